"""Worked examples for the README (a toy metric to put through `lcl score`)."""
