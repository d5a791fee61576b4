"""``local_trained``: a learned metric whose model is trained elsewhere and read from a file.

The model is a CodeScore-style cross-encoder (:mod:`lcl.engine.metrics.codescore_style`: MiniLM,
a *substitute* encoder, with a regression head predicting the functional-equivalence score
in [0, 1]) saved as a directory with a ``CONTENT_HASH``. This module only loads and scores:
which pairs the model was trained on, and how, is decided by whoever wrote the file, and the
file's ``meta.json`` records it. Scoring refuses the pairs the model was trained on, as
``codescore_style`` does, so its scores are never in-sample by accident.

Where the model is looked up (first that is given): the ``local_trained_model`` option
(``--local-trained-model DIR``), ``$LCL_LOCAL_TRAINED_MODEL``, else
:func:`lcl.core.paths.local_trained_model` of the ``profile`` option (``--profile``), of
``$LCL_PROFILE``, else of ``full``.
"""

from __future__ import annotations

import os
from pathlib import Path

from lcl.core import paths
from lcl.core.errors import UserError

from .codescore_style import CodeScoreModel, CodeScoreStyle

NAME = "local_trained"
LABEL = "LoCaL-trained[MiniLM]"
ENV_MODEL = "LCL_LOCAL_TRAINED_MODEL"


def model_dir(profile: str | None = None, path: str | Path | None = None) -> Path:
    """The model directory the metric reads (see the module docstring for the order)."""
    given = path or os.environ.get(ENV_MODEL)
    if given:
        return Path(given)
    return paths.local_trained_model(profile or os.environ.get("LCL_PROFILE") or "full")


class LocalTrained(CodeScoreStyle):
    """The registry metric ``local_trained``: a saved CodeScore-style model under its own name,
    label and score-cache entries (the model's content hash versions every score)."""

    name = NAME
    label = LABEL

    def __init__(self, model: str | Path | CodeScoreModel, allow_overlap: bool = False, batch_size: int = 16):
        if not isinstance(model, CodeScoreModel) and not (Path(model) / "CONTENT_HASH").is_file():
            raise UserError(f"{NAME}: no trained model at {model}; run make all / notebook 11 first "
                            "(lcl notebook run 11_calibration_trained_metric --profile PROFILE) or pass "
                            f"--local-trained-model DIR")
        super().__init__(model, allow_overlap=allow_overlap, batch_size=batch_size)
