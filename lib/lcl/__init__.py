"""LoCaL compendium library.

Rebuilds the LoCaL ("Looks Can Lie") benchmark and reproduces the study *Analyzing and
Mitigating Surface Bias in Code Evaluation Metrics*. Heavy lifting lives here; notebooks
under ``notebooks/`` only load, call and show.

Modules are named after what they do: ``paths`` (every location), ``sources`` (raw-data
manifest and fetching), ``loaders`` (Task and Pair records from raw files), ``records``
(the record types), ``io`` (atomic writes), ``provenance`` (sidecars), ``cache``
(content-keyed caching), ``profiles`` (quick/full settings), ``tables``/``figures``
(output writers), ``report`` (HTML index).
"""

__version__ = "0.1.0"
