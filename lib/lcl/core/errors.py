"""Exceptions shared across the compendium."""


class UserError(Exception):
    """An error caused by bad input (file, id, option): ``lcl`` prints it without a
    traceback and exits with status 2. Messages name the offending file/id and say how to fix it."""


class DataError(UserError):
    """A raw source is missing or corrupt."""
