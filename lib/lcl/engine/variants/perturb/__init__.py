"""Semantics-preserving perturbations of a pair's code: can a metric be fooled without changing
behaviour?

Study X2 (beyond the paper): semantics-preserving perturbations; each perturbed pair must be
re-verified by differential fuzzing (Algorithm 1) before use. The checks described below are
syntactic and conservative; they argue why behaviour cannot change, and the fuzzer confirms it.

One module per perturbation (:mod:`.comments`, :mod:`.docstrings`, :mod:`.renaming`,
:mod:`.dead_code_insertion`, :mod:`.reordering`), the helpers they share in :mod:`.source_text`,
the SFD counterpart in :mod:`.mutant_comments`, and the registry and the pair driver in
:mod:`.driver`; everything public is importable from this package.

Each perturbation is a pure function ``(candidate_source, reference_source, rng) -> str | None``
registered in :data:`PERTURBATIONS`. ``None`` means "not applicable": the candidate does not
parse, nothing qualifies, or the output would equal the input. Every returned text parses and
compiles.

``misleading_comment``
    Comments that claim correctness ("# all tests pass") at the top of the module, after a
    shebang or encoding line, and before every function definition (above its decorators), at
    that definition's indentation. The edit is made on source lines, because comments exist only
    in source text. Comments are discarded by the tokenizer, so the compiled code is unchanged.
``reference_docstring``
    The reference's docstrings are copied into the candidate verbatim, as the reference's own
    source text. The module docstring goes to the module and each function's docstring goes to
    the function with the same qualified name. When no function name matches, the first
    function's docstring goes to the first function. Each copied docstring replaces the
    candidate's own. This changes only ``__doc__``, so the perturbation is not applied when the
    candidate reads ``__doc__``.
``rename_identifiers``
    Local variables and parameters get bland fresh names (``v0``, ``v1``, ...). A fresh name
    collides with no identifier in the module, not even attribute or keyword names. Names are
    resolved with Python's scoping rules: comprehension and lambda scopes, closures, class
    scopes that closures skip, and defaults, annotations and decorators evaluated in the
    enclosing scope. Every occurrence of one binding is renamed and nothing else is. The
    following are never renamed:

    * function, class and import names;
    * names in any ``global``/``nonlocal`` statement;
    * dunders and attributes;
    * names bound in class bodies, which are attributes;
    * builtins, and unbound names in general;
    * words that occur in string literals when the module calls ``eval``/``exec``/``compile``;
    * module-level names of function-level code, which an importer may read (a stdin program's
      globals are renamed, since nothing outside reads them);
    * parameters of methods and decorated functions;
    * keyword-only parameters, and parameters of top-level functions that have a default,
      because callers commonly pass those by keyword;
    * any parameter spelled like a keyword argument used in the candidate or the reference,
      and every parameter when the module unpacks ``**`` into a call.

    A scope that uses ``locals``, ``vars``, ``eval``, ``exec``, ``compile``, ``dir``,
    ``globals``, ``__import__`` or ``__dict__``, or that contains a class, is skipped entirely.
    So is the module level of a module that uses any of these. Nothing at all is renamed when
    the module reads introspection attributes such as ``__code__`` or ``__defaults__``.
``dead_code``
    No-effect statements at one to three random places. One kind is an ``if False:`` block of
    plausible code, which the compiler removes. The other is an unused constant assignment
    (``tmp = 0``), placed only at the top level of a function body so that it runs at most once
    per call, and never in a scope that can list its locals. Every name in the inserted code is
    fresh: a name assigned anywhere in a function is local to it, so reusing an existing name
    could shadow a global. Nothing is inserted before a docstring or a ``from __future__``
    import, and nothing into class bodies, where an assignment would add an attribute.
``reorder_statements``
    One pair of adjacent statements in the same block is swapped. Both statements must be
    assignments to plain names whose expressions contain no call, attribute, comprehension,
    lambda, walrus, f-string, yield or await. An augmented assignment qualifies only when its
    target is provably an ``int``, so ``+=`` cannot mutate a shared object. Neither statement
    may write a name that the other reads or writes. Neither may touch a ``global``/``nonlocal``
    name, and neither may write a name that a nested scope reads. At most one of the two may
    run user code or raise: the other may only load constants, parameters or names bound
    earlier in the same block. When one of them can raise, neither may be inside a ``try`` or
    ``with`` in its scope, so the frame that would observe the reordered write is unwound.
    Class bodies are never reordered, because attribute order is observable. Nor are modules
    with dynamic scope access.

:func:`mutant_with_reference_comments` is the SFD counterpart: a mutant that carries the
reference's docstrings (via the AST, as above) and its comments (via :mod:`tokenize`) verbatim.

:func:`perturb_pairs` applies perturbations to pair rows. Each RNG comes from a stable hash of
``(seed, id, name)``.

The AST-level perturbations (``rename_identifiers``, ``dead_code``, ``reorder_statements``)
write :func:`ast.unparse` text, the project's normal form for variants. The source-level ones
keep the candidate's layout. Nothing here executes the code it perturbs.
"""

from __future__ import annotations

# The perturbations live one per module (source_text holds what they share); this package keeps
# the single import path that the robustness study, the tests and the notebooks use.
from .comments import CLAIMS as CLAIMS
from .comments import misleading_comment
from .dead_code_insertion import dead_code
from .docstrings import reference_docstring
from .driver import PERTURBATIONS, apply_perturbation, perturb_pairs
from .driver import pair_rng as pair_rng
from .mutant_comments import mutant_with_reference_comments
from .renaming import rename_identifiers
from .reordering import reorder_statements
from .source_text import Perturbation

__all__ = [
    "PERTURBATIONS",
    "Perturbation",
    "apply_perturbation",
    "dead_code",
    "misleading_comment",
    "mutant_with_reference_comments",
    "perturb_pairs",
    "reference_docstring",
    "rename_identifiers",
    "reorder_statements",
]
