"""Every seed the compendium derives, from one recorded base seed (``SEED`` in the Makefile).

Two derivations, both stable across runs, processes and platforms (Python's ``hash`` is salted,
so it is never used):

- :func:`rng`: a ``random.Random`` seeded by the text ``"part1:part2:..."`` (e.g. the base seed and
  a task id), for a sample or shuffle that belongs to one unit of work;
- :func:`digest64`: the first 64 bits of SHA-256 of the joined parts, for integer seeds handed to
  other libraries (a fuzzing run's seed; :func:`unit_seed`, a training run's torch seed).

Each caller keeps the exact text it has always used (separator and part order), so that every
recorded output and every archived fuzzing result stays valid. The one derivation written out
elsewhere is :func:`lcl.engine.fuzz.semantics.run_seed` (a fuzzing run's seed), because the sandbox's
modules import only the standard library; a test checks it equals ``digest64("lcl-fuzz", ...) >> 1``.
"""

from __future__ import annotations

import hashlib
import random


def rng(*parts: object) -> random.Random:
    """A random stream for one unit of work: ``random.Random("p1:p2:...")``."""
    return random.Random(":".join(str(p) for p in parts))


def unit_seed(seed: int, *parts: object) -> int:
    """A 31-bit seed for one unit of work (e.g. ``("rq5", p, k)``: a model's torch seed), from
    :func:`digest64` of the base seed and the parts joined by NUL."""
    return (digest64(seed, *parts, sep="\0") >> 32) % (2**31 - 1)


def digest64(*parts: object, sep: str = ":") -> int:
    """The first 64 bits (big-endian) of SHA-256 of ``sep.join(parts)``."""
    text = sep.join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
