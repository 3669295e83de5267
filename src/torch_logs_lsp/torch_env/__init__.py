"""Finding and reading the user's torch statically: Python environments, the installed
registry, module resolution, which torch applies to a file."""
