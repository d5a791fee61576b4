"""The rq layer (see the package docstring of :mod:`lcl`)."""
