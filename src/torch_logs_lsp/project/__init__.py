"""The files of a project: the tree walk, ignore rules, git's index and the [tool.torch-
logs] configuration."""
