"""The core layer (see the package docstring of :mod:`lcl`)."""
