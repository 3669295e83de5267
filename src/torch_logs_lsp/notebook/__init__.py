"""Jupyter notebooks: the .ipynb read with positions, the cell order and fixes written back
into the JSON."""
