"""The jsonc host: ``host.py`` is the host (the protocol of ``hosts/interface.py``); the other
modules are its parts."""
