"""LoCaL compendium library.

Rebuilds the LoCaL ("Looks Can Lie") benchmark and reproduces the study *Analyzing and
Mitigating Surface Bias in Code Evaluation Metrics*. Heavy lifting lives here; notebooks
under ``notebooks/`` only load, call and show.

One folder per layer, each importing only the layers below it (``tests/test_layers.py``):

- ``core``: locations (``paths``), files (``io``), caches, provenance, profiles, seeds,
  errors, the shared records (``records``) and where each paper number lives (``claim_links``);
- ``engine``: differential fuzzing (``fuzz``, Algorithm 1), inputs, variants, metrics,
  SurfaceSim (``similarity``), statistics, regions: no benchmark and no paper;
- ``study``: raw data (``sources``, ``loaders``), labelling, LoCaL's assembly, clones,
  CodeScore_base, scoring;
- ``rq``: one module per research question and per study beyond the paper;
- ``report``: claims, findings, outputs, the notebook runner, the HTML report, verify;
- ``cli``: the ``lcl`` command.
"""

__version__ = "0.1.0"
