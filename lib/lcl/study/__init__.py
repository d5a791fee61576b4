"""The study layer (see the package docstring of :mod:`lcl`)."""
