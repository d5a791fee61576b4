"""Human-written DFS pairs: independent implementations of the same behaviour ("clones").

Four algorithm collections from
PyPI (``data/raw/clones/{algorithms,pygorithm,searchsort,algos_py}``, see ``data/sources.toml``)
hold many implementations of the same few behaviours (sorting, searching, gcd, Fibonacci, ...)
written by different people, or by one person in different ways. Pairs of them are what the
paper's DFS corner asks for (different form, similar semantics), without any generator in the
loop. Their code is *untrusted*: it is read with :mod:`ast` and only ever executed inside the
sandboxed fuzzing engine :mod:`lcl.engine.fuzz` (never installed, never imported here).

Pipeline (every step counts what it leaves out in a :class:`lcl.core.records.Ledger`):

1. **Extract** every top-level function of every module (:func:`extract`). A function's *unit*
   is the function plus the top-level definitions it needs from its module (helpers, constants,
   standard-library imports), in module order, docstrings removed (they are tutorial text, not
   code: comments are ignored by SurfaceSim anyway, docstrings would not be), unparsed with
   :func:`ast.unparse` like every LoCaL reference. A unit that needs another module of its
   package (relative or package import) or a third-party module is excluded.
2. **Candidate groups** (:data:`FAMILIES`): name/signature rules (e.g. "a name containing
   *sort*, callable with one argument") put functions into families, each with an *input
   domain* (:data:`DOMAINS`: seeded generators, e.g. lists of non-negative ints, sorted
   distinct ints + a target, small non-negative ints) and an *observation* rule (below).
   A function can be a candidate of more than one family (``power(a, n, mod=None)`` is a
   2-argument power and a 3-argument modular power).
3. **Behaviour fingerprints**: each candidate runs in the sandbox on ``N`` domain inputs (a
   probe on the 8 largest first, so that e.g. bogo sort is excluded in seconds); its
   fingerprint is the vector of outcomes (return-value digest under the engine's type-strict
   deep equality, or the exception type). Excluded: functions that cannot be loaded, time out
   or crash, raise on more than half of the inputs (outside their domain), or return the same
   value on every input (uninformative: also guards against outputs the engine compares by
   type only).
4. **Clusters** = candidates of a family with *identical* fingerprints (strict equivalence on
   the sampled domain, symmetric and transitive; an implementation that raises where another
   returns is a different behaviour). Singletons are excluded.
5. **Pairs**: all within-cluster pairs except textually identical units, at most
   ``pairs_per_cluster`` of them sampled with a recorded seed (so the ~50 equivalent sorts do
   not dominate; pairs across two collections are taken first, as the most independently
   written), each oriented (which side is the reference) by the same seeded generator. Each pair is then labelled
   independently by Algorithm 1 (:func:`lcl.engine.fuzz.run_batch`; R runs of N *fresh* inputs from
   the domain generator, seeds derived from the run seed, not the clustering seed), and its
   SurfaceSim (Eq. 1, paper mode) computed on the two units. As for our optimised variants,
   a pair whose df_score < 1 is discarded (the equivalence was not confirmed), and counted.

Observation rule (in-place vs returning functions). Most sorting implementations of these
collections return the sorted list, but some sort in place and return ``None`` (algos-py's
``qsort0``), and others sort in place *and* return the same list. Sorting families therefore
observe ``returned value if it is not None, else the (mutated) first argument``
(``observe = "return_or_arg0"``): a function that returns a new sorted list and one that sorts
its argument in place are the same behaviour, while a function that returns ``None`` without
sorting is not. Every other family observes the returned value only (``"return"``: there,
``None`` is a meaningful answer, e.g. "not found"). In both modes an iterator (a generator)
is materialised into a list, so two generators are compared by what they yield, not by type.
The engine gives each side its own copy of every input, so mutations never leak between the
two sides. The rule is applied by a harness appended to each unit only when it runs
(:func:`harness`); the stored ``reference``/``variant`` code is the plain unit.

Modules, in pipeline order: :mod:`.extraction` (step 1), :mod:`.families` (step 2's rules and
the harness), :mod:`.domains` (the input domains), :mod:`.clustering` (steps 2-4: candidates,
fingerprints, clusters), :mod:`.pairs` (step 5, :func:`build` and the reports), :mod:`.caps`
(how much of it a profile does). Everything public is importable from this package; the command
line, ``lcl variants clones``, is in :mod:`lcl.cli.variants`.
"""

from __future__ import annotations

from .caps import CAPS, Caps, caps_for
from .clustering import (
    FINGERPRINT_TIMEOUT,
    PROBE_INPUTS,
    PROBE_TIMEOUT,
    Candidate,
    Cluster,
    candidates,
    cluster,
    fingerprint_all,
)
from .domains import DOMAINS, VERSION, DomainGenerator, generate
from .extraction import PACKAGES, Function, clones_root, extract
from .extraction import units as units
from .families import ENTRY, FAMILIES, FAMILY, Family, harness
from .pairs import assemble, build, cluster_table, label_pairs, pair_rows, resolve_clone, summary

__all__ = [
    "CAPS",
    "DOMAINS",
    "ENTRY",
    "FAMILIES",
    "FAMILY",
    "FINGERPRINT_TIMEOUT",
    "PACKAGES",
    "PROBE_INPUTS",
    "PROBE_TIMEOUT",
    "VERSION",
    "Candidate",
    "Caps",
    "Cluster",
    "DomainGenerator",
    "Family",
    "Function",
    "assemble",
    "build",
    "candidates",
    "caps_for",
    "clones_root",
    "cluster",
    "cluster_table",
    "extract",
    "fingerprint_all",
    "generate",
    "harness",
    "label_pairs",
    "pair_rows",
    "resolve_clone",
    "summary",
]
