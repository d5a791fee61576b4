"""The engine layer (see the package docstring of :mod:`lcl`)."""
