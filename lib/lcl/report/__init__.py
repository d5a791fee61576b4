"""The report layer (see the package docstring of :mod:`lcl`)."""
