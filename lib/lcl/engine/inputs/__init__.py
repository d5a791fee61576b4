"""Input constraints and generation (paper Step II, Figure 4): declarative specs
(:mod:`.spec`), a byte decoder shared by the seeded, Atheris and Hypothesis backends
(:mod:`.generate`, :mod:`.strategies`), and spec inference from seed inputs (:mod:`.infer`)."""

from .generate import decode, decode_bytes, generate, with_seeds
from .infer import infer_function, infer_program
from .spec import Spec, dumps, load, validate

__all__ = ["Spec", "decode", "decode_bytes", "dumps", "generate", "infer_function", "infer_program", "load",
           "validate", "with_seeds"]
