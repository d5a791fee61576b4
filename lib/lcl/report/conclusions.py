"""The paper's conclusions (Sections 3.3 and 4.3-4.7), each a test on our numbers.

A :class:`Conclusion` reads our values (:class:`lcl.core.claim_links.Reading` by claim id) and
returns ``holds`` or ``fails``; one that follows from how our data were built returns ``by
construction`` instead, one that rests on a substitute CEM returns ``holds on the substitute`` /
``fails on the substitute`` (its direction reported, never counted as support for the paper), one
whose interval carries no uncertainty is ``not comparable``, and one whose values are missing is
``not reproduced``. Each verdict carries the numbers it was decided on.

Every ``holds`` rests on a resolved interval: an ordering of two quantities holds only when the
interval of their paired difference excludes 0 (or, where no difference is computed, when the two
95% intervals lie apart, which is the stricter test); a comparison with a bar only when the
quantity's interval lies beyond it; a share the paper states only when our interval contains the
paper's share. A point estimate alone never decides a verdict, and a zero-width interval (nothing
varied) resolves nothing. Conclusions that imply one another are declared in :data:`IMPLIES`, so a
verdict table in which one holds and the other fails is caught (:func:`contradictions`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import pairwise

from lcl.core import claim_links
from lcl.core.claim_links import PAPER_CEMS, Reading

CEMS = PAPER_CEMS
#: the CEMs we run as substitutes for the authors' models (MiniLM for CodeBERT, a retrained
#: CodeScore-style model for the CodeScore checkpoint); the other two are reimplementations
SUBSTITUTES = ("CodeBERTScore", "CodeScore")
HOLDS, FAILS, BY_CONSTRUCTION, NOT_COMPARABLE, MISSING = (
    "holds", "fails", "by construction", "not comparable", "not reproduced")
#: the test passes, and passes for the trivial model too (mean predictor, constant score)
TRIVIAL = "trivial model passes too"
#: a directional conclusion tested on a substitute CEM (its agreement with the authors' model not
#: shown): its direction is reported, never counted as support for (or against) the paper
HOLDS_SUB, FAILS_SUB = "holds on the substitute", "fails on the substitute"
#: verdicts whose test passed / did not pass (for :func:`contradictions`)
PASSED, NOT_PASSED = (HOLDS, HOLDS_SUB, TRIVIAL), (FAILS, FAILS_SUB)

Values = dict[str, Reading]
#: the ``kind`` of a claims-table row that is a check of ours, not a conclusion of the paper
OWN_CHECK = "own check"


@dataclass(frozen=True)
class Verdict:
    status: str
    evidence: str
    missing: tuple[str, ...] = ()  # the claim ids whose values were absent (status "not reproduced")


@dataclass(frozen=True)
class Conclusion:
    claim_id: str
    section: str
    statement: str
    judge: Callable[[Values], Verdict]
    #: the same values for the trivial model (the mean predictor, a constant score), where one exists:
    #: a conclusion it passes too is reported as such, never as "holds"
    trivial: Callable[[Values], Values] | None = None
    trivial_name: str = ""
    #: further trivial models, each (values, name), judged after ``trivial``: the surface rule in RQ5
    also: tuple[tuple[Callable[[Values], Values], str], ...] = ()
    #: False for a check of the compendium's own that the paper does not state (it is reported under
    #: :data:`OWN_CHECK`, never counted among the paper's conclusions)
    paper: bool = True

    def trivials(self) -> list[tuple[Callable[[Values], Values], str]]:
        """Every trivial model this conclusion is also run on, in order."""
        return ([(self.trivial, self.trivial_name)] if self.trivial is not None else []) + list(self.also)


def _v(values: Values, cid: str) -> float:
    r = values.get(cid)
    return r.value if r is not None else math.nan


def broken(values: Values, cem: str) -> str:
    """Why ``cem`` is not comparable, in every RQ alike ('' when it is): a substitute is comparable
    only when it reproduces the authors' own scores, measured on the published LoCaL pairs as the
    authors' MAE (rq4_author_scores) lying inside our 95% CI of the MAE on the same pairs
    (table5_mae, LoCaL_published row). Unmeasured agreement is not agreement."""
    if cem not in SUBSTITUTES:
        return ""
    ours, theirs = values.get(f"aux.T5.published.{cem}"), values.get(f"aux.RQ4.author.{cem}")
    if ours is None or theirs is None:
        return (f"{cem} is a substitute whose agreement with the authors' scores is not measured here (the "
                "LoCaL_published row of table5_mae or rq4_author_scores is absent)")
    if not (math.isnan(ours.low) or math.isnan(ours.high)) and ours.low <= theirs.value <= ours.high:
        return ""
    return (f"{cem} is a substitute that does not reproduce the authors' scores: on the published LoCaL pairs "
            f"its MAE is {ours.value:.3f} (95% CI {ours.low:.3f}-{ours.high:.3f}), the authors' {cem} "
            f"{theirs.value:.3f} (rq4_author_scores)")


def _test(values: Values, needs: list[str], ok: Callable[[], bool], shown: str, *, cems_used: tuple[str, ...] = (),
          construction: str = "", resolved_by: tuple[str, ...] | list[str] = ()) -> Verdict:
    """The verdict of ``ok`` on ``needs``. ``resolved_by``: the readings whose intervals ``ok``
    rests on; where ``ok`` does not pass and one of them has no interval, nothing was resolved
    either way ("not comparable", not "fails")."""
    missing = [c for c in needs if math.isnan(_v(values, c))]
    if missing:
        return Verdict(MISSING, "missing: " + ", ".join(missing), tuple(missing))
    why = "; ".join(b for b in (broken(values, c) for c in cems_used) if b)
    if construction:
        return Verdict(BY_CONSTRUCTION, f"{shown}; {construction}")
    if unresolved := _unresolved(values, needs):
        return Verdict(NOT_COMPARABLE, f"{shown}; {unresolved}")
    passed = ok()
    if not passed and not _POINTS.get() and (bare := [c for c in resolved_by if interval(values.get(c)) is None]):
        return Verdict(NOT_COMPARABLE, f"{shown}; not resolved: {', '.join(bare)} carries no interval, so the "
                                       "test can be decided neither way" + (f"; on the substitute: {why}" if why else ""))
    if why:  # a directional test on a substitute: its direction, under its own label
        return Verdict(HOLDS_SUB if passed else FAILS_SUB, f"{shown}; on the substitute: {why}")
    return Verdict(HOLDS if passed else FAILS, shown)


#: True while a trivial model's values are judged: they are exact by definition (a constant, a mean
#: label), so its point values decide; "passes too" must not be hidden by its lack of an interval
_POINTS: ContextVar[bool] = ContextVar("points_decide", default=False)


@contextmanager
def _points_decide() -> Iterator[None]:
    token = _POINTS.set(True)
    try:
        yield
    finally:
        _POINTS.reset(token)


def _unresolved(values: Values, needs: list[str]) -> str:
    """Why the readings ``needs`` cannot resolve anything ('' when they can): an interval of zero
    width (nothing varied where it was computed) carries no uncertainty, so it resolves no ordering."""
    if _POINTS.get():
        return ""
    flat = [c for c in needs if (r := values.get(c)) is not None and _finite(r.low) and r.low == r.high]
    return (f"not resolved: {', '.join(flat)} has a zero-width interval (no uncertainty where it was computed), "
            "so no ordering or share rests on it" if flat else "")


def _finite(x: float) -> bool:
    return not math.isnan(x)


def interval(r: Reading | None) -> tuple[float, float] | None:
    """The 95% interval of a reading: its own (bootstrap, Wilson, propagation) when it has width,
    else the t interval of a mean of replicates (std and count), else None (a point estimate, or
    an interval of zero width, resolves nothing)."""
    if r is None:
        return None
    if _finite(r.low) and _finite(r.high) and (r.high > r.low or _POINTS.get()):
        return r.low, r.high
    if _finite(r.low) and _finite(r.high):
        return None
    if _finite(r.std) and _finite(r.n) and r.n >= 2 and r.std > 0:
        from scipy import stats as st

        half = float(st.t.ppf(0.975, r.n - 1)) * r.std / math.sqrt(r.n)
        return r.value - half, r.value + half
    return (r.value, r.value) if _POINTS.get() else None


def above_bar(values: Values, cid: str, bar: float) -> bool:
    """``cid`` resolved above ``bar``: its 95% interval lies above it."""
    iv = interval(values.get(cid))
    return iv is not None and iv[0] > bar


def below_bar(values: Values, cid: str, bar: float) -> bool:
    """``cid`` resolved below ``bar``: its 95% interval lies below it."""
    iv = interval(values.get(cid))
    return iv is not None and iv[1] < bar


def higher(values: Values, a: str, b: str, diff: str = "") -> bool:
    """``a`` resolved above ``b``: the interval of their paired difference ``diff`` (a - b) above 0
    where that reading exists, else the two 95% intervals apart (a.low > b.high: stricter than the
    difference, never weaker); never on point estimates."""
    if diff and diff in values:
        return above_bar(values, diff, 0.0)
    ia, ib = interval(values.get(a)), interval(values.get(b))
    return ia is not None and ib is not None and ia[0] > ib[1]


def _no_interval(values: Values, cids: list[str]) -> list[str]:
    return [c for c in cids if c in values and interval(values[c]) is None]


def comparable(values: Values, cems: tuple[str, ...] = CEMS) -> tuple[str, ...]:
    """The CEMs of ``cems`` that score PIE pairs (a ranking is tested among these only)."""
    return tuple(c for c in cems if not broken(values, c))


def _ranking(v: Values, template: str, expected: list[str], *, highest_first: bool = True, diff: str = "",
             require_diff: bool = False) -> Verdict:
    """The paper's ranking of the CEMs by ``template`` values: ``expected`` first, in that order,
    above every other CEM, each step resolved (:func:`higher`). Among the comparable CEMs; where a
    CEM the paper names first is a substitute, among all four, reported on the substitute.
    ``diff``: the template of a paired difference reading (``{a}``, ``{b}``: a above b) that
    resolves a step; ``require_diff``: without that reading the step is not resolved (the two
    values come from the same repetitions, so their separate intervals do not test the order)."""
    kept = comparable(v)
    on_substitute = not any(c in kept for c in expected)
    pool = list(CEMS) if on_substitute else list(kept)
    ids = [template.format(cem=c) for c in pool]
    if missing := [c for c in ids if math.isnan(_v(v, c))]:
        return Verdict(MISSING, "missing: " + ", ".join(missing), tuple(missing))
    named = [c for c in expected if c in pool]
    # each named CEM above the next, and the last named above every other CEM
    steps = list(pairwise(named)) + [(named[-1], c) for c in pool if c not in expected]
    needed = [diff.format(a=a, b=b) if highest_first else diff.format(a=b, b=a) for a, b in steps] if diff else []
    if require_diff and (absent := [d for d in needed if d not in v]):
        return Verdict(MISSING, f"{_fmt(v, *ids)}; not resolved: the paired difference interval(s) "
                                f"{', '.join(absent)} are not computed", tuple(absent))

    def step(a: str, b: str) -> bool:
        ta, tb = template.format(cem=a), template.format(cem=b)
        d = diff.format(a=a, b=b) if highest_first else diff.format(a=b, b=a)
        return higher(v, ta, tb, d) if highest_first else higher(v, tb, ta, d)
    left = [c for c in CEMS if c not in pool]
    shown = (_with_cis(v, *ids) + "".join(f", {d} = {_v(v, d):.3g}{_ci(v, d)}" for d in needed if d in v)
             + (f" ({', '.join(left)} left out: not comparable)" if left else ""))
    subs = tuple(c for c in expected if c in SUBSTITUTES) if on_substitute else ()
    return _test(v, ids, lambda: all(step(a, b) for a, b in steps), shown, cems_used=subs,
                 resolved_by=needed if diff else [template.format(cem=c) for s in steps for c in s])


def _fmt(values: Values, *cids: str) -> str:
    return ", ".join(f"{c} = {_v(values, c):.3g}" for c in cids)


# ----------------------------------------------------------------------------- Section 3.3 (Table 2)
def _t2_surface(v: Values) -> Verdict:
    a, b = "T2.opt.surfacesim", "T2.mut.surfacesim"
    return _test(v, [a, b], lambda: higher(v, b, a), _with_cis(v, a, b), resolved_by=[a, b])


def _t2_behaviour(v: Values) -> Verdict:
    a, b = "T2.opt.df", "T2.mut.df"
    return _test(v, [a, b], lambda: _v(v, a) > 0.5 > _v(v, b), _fmt(v, a, b),
                 construction="curation keeps optimised variants above df 0.5 and mutants below (lcl.study.curation)")


# ----------------------------------------------------------------------------- Section 4.3 (RQ1)
def _rho_positive(cem: str) -> Callable[[Values], Verdict]:
    def judge(v: Values) -> Verdict:
        r, p = f"T3.{cem}.rho", f"aux.T3.{cem}.p"
        return _test(v, [r, p], lambda: _v(v, r) > 0 and _v(v, p) < 0.05, _fmt(v, r, p), cems_used=(cem,))
    return judge


def _rho_strongest(v: Values) -> Verdict:
    """CodeBLEU and CodeBERTScore above both others, each step resolved (rho's CIs apart)."""
    top, rest = ("CodeBLEU", "CodeBERTScore"), ("CrystalBLEU", "CodeScore")
    ids = [f"T3.{c}.rho" for c in CEMS]
    return _test(v, ids, lambda: all(higher(v, f"T3.{a}.rho", f"T3.{b}.rho") for a in top for b in rest),
                 _with_cis(v, *ids), cems_used=top, resolved_by=ids)


def _rho_codescore_weakest(v: Values) -> Verdict:
    ids = [f"T3.{c}.rho" for c in CEMS]
    return _test(v, ids, lambda: all(higher(v, f"T3.{c}.rho", "T3.CodeScore.rho") for c in CEMS if c != "CodeScore"),
                 _with_cis(v, *ids), cems_used=("CodeScore",), resolved_by=ids)


#: "CrystalBLEU often returns zero" (Section 4.3) gives no share; "often" is read as at least one pair in ten
OFTEN = 0.10


def _crystal_zeros(v: Values) -> Verdict:
    """The share of zeros resolved at or above :data:`OFTEN`: its Wilson 95% interval's lower end."""
    from lcl.engine.stats import wilson

    z, n = "aux.T3.CrystalBLEU.zeros", "aux.T3.CrystalBLEU.n"
    share = _v(v, z) / _v(v, n) if _v(v, n) else math.nan
    lo, hi = wilson(int(_v(v, z)), int(_v(v, n))) if _v(v, n) == _v(v, n) and _v(v, z) == _v(v, z) else (
        math.nan, math.nan)
    return _test(v, [z, n], lambda: lo >= OFTEN,
                 f"{_fmt(v, z, n)}: share {share:.1%} (Wilson 95% CI {lo:.1%}-{hi:.1%}) vs 'often' read as "
                 f">= {OFTEN:.0%} (the paper gives no share)")


# ----------------------------------------------------------------------------- Section 4.4 (RQ2)
def _d_orig(cem: str) -> Callable[[Values], Verdict]:
    cid = f"T4.{cem}.d_orig"
    return lambda v: _test(v, [cid], lambda: above_bar(v, cid, 1), _with_cis(v, cid), cems_used=(cem,),
                           resolved_by=[cid])


def _d_repl(cem: str) -> Callable[[Values], Verdict]:
    cid = f"T4.{cem}.d_repl"
    return lambda v: _test(v, [cid], lambda: below_bar(v, cid, 1), _with_cis(v, cid), cems_used=(cem,),
                           resolved_by=[cid])


#: the paired difference of two CEMs' drops in d over the same repetitions (drop(a) - drop(b)),
#: which lcl.rq.distinguish is to declare; until it does the drop order is not resolved
RQ2_DROP_DIFF = "aux.RQ2.diff.drop.{a}-{b}"


def _drop_order(v: Values) -> Verdict:
    return _ranking(v, "RQ2.drop.{cem}", ["CrystalBLEU", "CodeBLEU", "CodeScore", "CodeBERTScore"],
                    diff=RQ2_DROP_DIFF, require_diff=True)


def _surface_order(v: Values) -> Verdict:
    ids = ["RQ2.surf.neq_orig", "RQ2.surf.eq", "RQ2.surf.neq_repl"]
    return _test(v, ids, lambda: higher(v, ids[1], ids[0]) and higher(v, ids[2], ids[1]), _with_cis(v, *ids),
                 resolved_by=ids)


def _crystal_best_orig(v: Values) -> Verdict:
    return _ranking(v, "T4.{cem}.d_orig", ["CrystalBLEU"])


def _crystal_worst_repl(v: Values) -> Verdict:
    return _ranking(v, "T4.{cem}.d_repl", ["CrystalBLEU"], highest_first=False)


def _codebertscore_inflated(v: Values) -> Verdict:
    return _ranking(v, "T4.{cem}.neq_orig", ["CodeBERTScore"])


# ----------------------------------------------------------------------------- Section 4.5 (RQ3)
def _with_cis(v: Values, *cids: str) -> str:
    return ", ".join(f"{c} = {_v(v, c):.3g}" + _ci(v, c) for c in cids)


def _share_higher(region: str) -> Callable[[Values], Verdict]:
    a, b = f"aux.RQ3.local.{region}_share", f"aux.RQ3.base.{region}_share"
    return lambda v: _test(v, [a, b], lambda: higher(v, a, b), _with_cis(v, a, b), resolved_by=[a, b])


def _ctrl_closer(v: Values) -> Verdict:
    a, b = "RQ3.local.ctrl_dist", "RQ3.base.ctrl_dist"
    return _test(v, [a, b], lambda: higher(v, b, a), _with_cis(v, a, b), resolved_by=[a, b])


def contains_paper_share(v: Values, cid: str, paper_id: str) -> bool:
    """Our 95% interval of ``cid`` contains the paper's share ``paper_id`` (claims data): a share the
    paper states is tested as that share, not as a bar it sets itself (its own 237 of 465 optimised
    variants, 50.97%, would fail "above half" by its Wilson interval)."""
    iv = interval(v.get(cid))
    paper = claim_links.paper_value(paper_id)
    return iv is not None and iv[0] < paper < iv[1]


def _share_shown(v: Values, cid: str, paper_id: str) -> str:
    iv = interval(v.get(cid))
    half = "" if iv is None else (" (resolved above half)" if iv[0] > 50 else " (not resolved above half)")
    return f"{_with_cis(v, cid)} vs the paper's {claim_links.paper_value(paper_id):g}%{half}"


def _mut_in_sfd(v: Values) -> Verdict:
    cid = "RQ3.mut_in_sfd"
    return _test(v, [cid], lambda: contains_paper_share(v, cid, cid), _share_shown(v, cid, cid), resolved_by=[cid])


#: rq3_hit_rates_by_source's sources (lcl.study.makeup.OPT_SOURCES): 0 the rewriter's refactorings (surface
#: rewrites only; LoCaL-all, not LoCaL), 1 the rewriter's optimisations, 2 PIE's fast programs (both in
#: LoCaL's optimised variants), 3 the human-written clones (not in LoCaL). The rewriter is ours: its
#: surface target is drawn from the released GPT-4 variants (lcl.study.surface_budget), but we wrote it
#: knowing the region machinery, so it never decides the test.
REWRITER_SOURCES, INDEPENDENT_OPT_SOURCE = (1,), 2


def _source(v: Values, i: int, col: str) -> float:
    return _v(v, f"aux.RQ3.opt_source.{i}.{col}")


#: the share over every optimised variant of LoCaL under the paper's thresholds (RQ3.opt_in_dfs reads
#: PIE's fast programs only, lcl.rq.coverage), shown beside the test, never tested
_ALL_OPT = "aux.RQ3.opt_in_dfs.all"


def _opt_in_dfs(v: Values) -> Verdict:
    """More than half of LoCaL's optimised variants in DFS, tested only on the ones no rule of ours
    built: PIE's fast programs (rq3_hit_rates_by_source). The rewriter's optimisations are shown
    beside them, never tested (see :data:`REWRITER_SOURCES`), and so is the share over every
    optimised variant of LoCaL (RQ3.opt_in_dfs)."""
    cid = f"aux.RQ3.opt_source.{INDEPENDENT_OPT_SOURCE}.share"
    built = sum(x for x in (_source(v, i, "inside") for i in REWRITER_SOURCES) if not math.isnan(x))
    made = sum(x for x in (_source(v, i, "n") for i in REWRITER_SOURCES) if not math.isnan(x))
    shown = (f"PIE's fast programs inside DFS: {_with_cis(v, cid)} of {_source(v, INDEPENDENT_OPT_SOURCE, 'n'):.0f}; "
             f"not tested: the rewriter's optimisations (ours), {built:.0f} of {made:.0f} inside DFS; "
             f"all of LoCaL's optimised variants: {_with_cis(v, _ALL_OPT if _ALL_OPT in v else 'RQ3.opt_in_dfs')}")
    return _test(v, [cid], lambda: contains_paper_share(v, cid, "RQ3.opt_in_dfs"),
                 shown + "; " + _share_shown(v, cid, "RQ3.opt_in_dfs"), resolved_by=[cid])


#: the paper's share each released-variant conclusion is tested against
_PAPER_SHARE = {"mut": "RQ3.mut_in_sfd", "opt": "RQ3.opt_in_dfs"}


def _released_share(kind: str) -> Callable[[Values], Verdict]:
    """The authors' released variants of ``kind`` in their corner under the paper's thresholds
    (rq3_released_variants): Eq. 4 on the paper's own variants, labels and thresholds, tested as
    the paper's share (:func:`contains_paper_share`)."""
    cid = f"aux.RQ3.released.{kind}"
    return lambda v: _test(v, [cid], lambda: contains_paper_share(v, cid, _PAPER_SHARE[kind]),
                           _share_shown(v, cid, _PAPER_SHARE[kind]), resolved_by=[cid])


# ----------------------------------------------------------------------------- Section 4.6 (RQ4)
def _above(hard: str, base: str, cem: str) -> Callable[[Values], Verdict]:
    """MAE on ``hard`` above MAE on ``base``; with both CIs, only when they do not overlap."""
    a, b = f"T5.{hard}.{cem}", f"T5.{base}.{cem}"

    def judge(v: Values) -> Verdict:
        shown = _fmt(v, a, b)
        if a in v and b in v and not math.isnan(v[a].low) and not math.isnan(v[b].high):
            shown += f" (CIs {v[a].low:.3f}-{v[a].high:.3f} vs {v[b].low:.3f}-{v[b].high:.3f})"
        return _test(v, [a, b], lambda: higher(v, a, b), shown, cems_used=(cem,), resolved_by=[a, b])
    return judge


#: Table 5's sets, for the trivial model's values
_T5_SETS = ("CodeScore_test", "LoCaL", "LoCaL_opt", "LoCaL_mut", "ShareCode_java")


def constant_score(v: Values) -> Values:
    """Table 5's values for the trivial model of RQ4: every CEM replaced by a constant score (the
    mean label of CodeScore_test, ``aux.T5.constant.<set>``), so a comparison of two sets that it
    passes too says more about the sets' labels than about surface bias."""
    out = {k: r for k, r in v.items() if not k.startswith("T5.")}
    for ds in _T5_SETS:
        r = v.get(f"aux.T5.constant.{ds}")
        if r is not None:
            out.update({f"T5.{ds}.{cem}": r for cem in CEMS})
    return out


#: Section 4.6's ranking of the metrics by their error increase on LoCaL, largest first
PAPER_RATIO_ORDER = ("CodeScore", "CodeBLEU", "CrystalBLEU", "CodeBERTScore")


def ratio_diff_id(a: str, b: str) -> str:
    """The paired bootstrap difference ratio(a) - ratio(b) (lcl.rq.effectiveness.intervals)."""
    return f"aux.RQ4.diff.ratio.{a}-{b}"


def bench_diff_id(cem: str, a: str, b: str) -> str:
    """The paired bootstrap difference MAE(cem on a) - MAE(cem on b) (lcl.rq.effectiveness.intervals)."""
    return f"aux.RQ4.diff.bench.{cem}.{a}-{b}"


def _ratio_order(v: Values) -> Verdict:
    """The paper's error-increase ranking among the comparable CEMs, each step resolved by its
    paired bootstrap difference over pairs (two ratios of the same pairs: their separate values
    never decide, 2.95 against 2.74 is no ranking without the difference's interval)."""
    order = [c for c in PAPER_RATIO_ORDER if c in comparable(v)]
    ids = [f"aux.RQ4.ratio.{c}" for c in order]
    diffs = [ratio_diff_id(a, b) for a, b in pairwise(order)]
    left = [c for c in CEMS if c not in order]
    shown = (_fmt(v, *ids) + "".join(f", {d} = {_v(v, d):.3g}{_ci(v, d)}" for d in diffs if d in v)
             + (f" ({', '.join(left)} left out: not comparable)" if left else ""))
    return _test(v, ids + diffs, lambda: all(above_bar(v, d, 0) for d in diffs), shown, resolved_by=diffs)


def _codebertscore_opt(v: Values) -> Verdict:
    a, b = "T5.LoCaL_opt.CodeBERTScore", "T5.LoCaL_mut.CodeBERTScore"
    return _test(v, [a, b], lambda: higher(v, b, a), _with_cis(v, a, b), cems_used=("CodeBERTScore",),
                 resolved_by=[a, b])


def _worst_gap(v: Values) -> Verdict:
    """"An average absolute difference of 0.86" between SurfaceSim and df in the worst cases: the
    paper's value inside our interval over pairs, or our interval above it (a gap as large as the
    paper's). Ours is over the metrics that are not substitutes (lcl.rq.effectiveness.intervals)."""
    cid = "RQ4.worst100_gap"
    paper = claim_links.paper_value(cid)

    def ok() -> bool:
        iv = interval(v.get(cid))
        return iv is not None and iv[0] < paper
    return _test(v, [cid], ok, f"{_with_cis(v, cid)} vs the paper's {paper:g}", resolved_by=[cid])


def _apps_then_pie(cem: str) -> Callable[[Values], Verdict]:
    """APPS worst, then PIE: MAE on APPS above PIE's, PIE's above HumanEval's and MBPP's, each by
    its paired bootstrap difference over LoCaL's pairs."""
    ids = [f"aux.RQ4.bench.{b}.{cem}" for b in ("APPS", "PIE", "HumanEval", "MBPP")]
    diffs = [bench_diff_id(cem, "APPS", "PIE"), bench_diff_id(cem, "PIE", "HumanEval"),
             bench_diff_id(cem, "PIE", "MBPP")]
    return lambda v: _test(v, ids + diffs, lambda: all(above_bar(v, d, 0) for d in diffs),
                           _fmt(v, *ids) + "".join(f", {d} = {_v(v, d):.3g}{_ci(v, d)}" for d in diffs),
                           cems_used=(cem,), resolved_by=diffs)


# ----------------------------------------------------------------------------- Section 4.7 (RQ5)
def _combined_drop(v: Values) -> Verdict:
    cid = "RQ5.combined_drop"
    return _test(v, [cid], lambda: above_bar(v, cid, 0), _fmt(v, cid) + _ci(v, cid), resolved_by=[cid])


def _ci(v: Values, cid: str) -> str:
    """The interval a verdict rests on, as shown beside the value ('' when it has none)."""
    r = v.get(cid)
    if r is not None and not math.isnan(r.low):
        return f" (95% CI {r.low:.3g}-{r.high:.3g})"
    iv = interval(r) if r is not None and not _POINTS.get() else None
    return f" (95% t interval over {r.n:.0f} replicates {iv[0]:.3g}-{iv[1]:.3g})" if iv and r else ""


#: the paired contrast (MAE_0 - MAE_20) - (MAE_0 - MAE_100) / 2 on Combined, over models, that
#: lcl.rq.rq5 is to declare: above 0 when p = 20 reaches at least half of the drop to p = 100
RQ5_HALF_AT_20 = "aux.RQ5.contrast.Combined.half_at_20"


def _small_p_large_gain(v: Values) -> Verdict:
    """Most of the gain already at p = 20: the drop from p = 0 to p = 100 resolved above 0 (the
    interval of RQ5.combined_drop, the same quantity C.RQ5.combined tests, so the two cannot
    disagree) and p = 20 resolved past half of it (:data:`RQ5_HALF_AT_20`). A gain that is not
    resolved has no "most" to reach: 0.004 between p = 0 and p = 100 is a tie."""
    ids = ["T6.Combined.0", "T6.Combined.20", "T6.Combined.100", "RQ5.combined_drop"]
    shown = _fmt(v, *ids[:3]) + f", RQ5.combined_drop = {_v(v, ids[3]):.3g}{_ci(v, ids[3])}"
    contrast = RQ5_HALF_AT_20 in v and not _POINTS.get()  # the trivial model's exact values decide alone
    if not contrast and not _POINTS.get():
        if not above_bar(v, ids[3], 0) and ids[3] in v:  # no gain to take half of: fails without the contrast
            return _test(v, ids, lambda: False, shown + "; the drop from p = 0 to p = 100 is not resolved",
                         resolved_by=[ids[3]])
        return Verdict(MISSING, f"{shown}; not resolved: the contrast {RQ5_HALF_AT_20} is not computed",
                       (RQ5_HALF_AT_20,))
    c0, c20, c100 = (_v(v, i) for i in ids[:3])
    half = (lambda: above_bar(v, RQ5_HALF_AT_20, 0)) if contrast else (
        lambda: c0 - c20 >= 0.5 * (c0 - c100) and c0 > c100)
    return _test(v, ids, lambda: above_bar(v, ids[3], 0) and half(),
                 shown + (f", {RQ5_HALF_AT_20} = {_v(v, RQ5_HALF_AT_20):.3g}{_ci(v, RQ5_HALF_AT_20)}"
                          if contrast else ""), resolved_by=[ids[3], *([RQ5_HALF_AT_20] if contrast else [])])


def _local_test_falls(v: Values) -> Verdict:
    cid = "RQ5.local_test_reduction"
    return _test(v, [cid], lambda: above_bar(v, cid, 50), _fmt(v, cid) + _ci(v, cid), resolved_by=[cid])


def _baseline_minor(v: Values) -> Verdict:
    """The baseline's increase under a quarter of LoCaL_test's reduction, resolved: the increase's
    interval below a quarter of the reduction's interval (stricter than a paired ratio, which the
    tables do not hold), and the reduction resolved above 0."""
    a, b = "RQ5.baseline_increase", "RQ5.local_test_reduction"

    def ok() -> bool:
        ia, ib = interval(v.get(a)), interval(v.get(b))
        return ia is not None and ib is not None and ia[1] < 0.25 * ib[0] and ib[0] > 0
    return _test(v, [a, b], ok, _with_cis(v, a, b), resolved_by=[a, b])


_RQ5_SETS = ("Combined", "Baseline", "LoCaL_test")
#: Section 4.7.2's percentages: claim id -> (set, sign) of the relative change from p = 0 to p = 100
_RQ5_HEADLINES = {"RQ5.local_test_reduction": ("LoCaL_test", -1.0), "RQ5.baseline_increase": ("Baseline", 1.0),
                  "RQ5.combined_drop": ("Combined", -1.0)}


def mean_predictor(v: Values) -> Values:
    """Table 6's values for the mean predictor (the trivial model: always the training set's mean
    label, ``<set> MAE (mean baseline)``), with Section 4.7.2's percentages recomputed from them."""
    out = {k: r for k, r in v.items() if not k.startswith(("T6.", "RQ5."))}
    for name in _RQ5_SETS:
        for p in range(0, 101, 10):
            r = v.get(f"aux.T6.mean.{name}.{p}")
            if r is not None:
                out[f"T6.{name}.{p}"] = Reading(r.value)
    for cid, (name, sign) in _RQ5_HEADLINES.items():
        a, b = _v(out, f"T6.{name}.0"), _v(out, f"T6.{name}.100")
        if not (math.isnan(a) or math.isnan(b)) and a:
            out[cid] = Reading(sign * (b - a) / a * 100)
    return out


#: the surface rule's readings (lcl.rq.rq5, ``RULE_PREFIX``): its Table 6 MAE per set and p, and Section
#: 4.7.2's percentages recomputed on it, each with its interval over the models' training draws
RQ5_RULE = "aux.RQ5.surface_rule"
#: the learned gain over each comparator, MAE(comparator) - MAE(model), with a t interval over the models
RQ5_GAIN_OVER_RULE, RQ5_GAIN_OVER_MEAN = "aux.RQ5.gain_over_rule", "aux.RQ5.gain_over_mean"


def surface_rule(v: Values) -> Values:
    """Table 6's values for the surface rule (the second trivial model of RQ5: one similarity
    threshold fitted on each model's training draw, answering 1 or 0, lcl.rq.rq5.SurfaceRule),
    intervals kept: ``aux.RQ5.surface_rule.<set>.<p>`` as ``T6.<set>.<p>`` and
    ``aux.RQ5.surface_rule.<headline>`` as ``RQ5.<headline>``; a headline the tables lack is
    recomputed from the rule's Table 6 values, as :func:`mean_predictor` does. A conclusion the rule
    passes too says no more than how alike the programs look."""
    out = {k: r for k, r in v.items() if not k.startswith(("T6.", "RQ5."))}
    for name in _RQ5_SETS:
        for p in range(0, 101, 10):
            r = v.get(f"{RQ5_RULE}.{name}.{p}")
            if r is not None:
                out[f"T6.{name}.{p}"] = r
    for cid, (name, sign) in _RQ5_HEADLINES.items():
        r = v.get(f"{RQ5_RULE}.{cid.split('.', 1)[1]}")
        if r is not None:
            out[cid] = r
            continue
        a, b = _v(out, f"T6.{name}.0"), _v(out, f"T6.{name}.100")
        if not (math.isnan(a) or math.isnan(b)) and a:
            out[cid] = Reading(sign * (b - a) / a * 100)
    return out


#: the two RQ5 comparators, each (values, name): every conclusion of the paper in Section 4.7 runs on both
RQ5_TRIVIAL: tuple[tuple[Callable[[Values], Values], str], ...] = (
    (mean_predictor, "the mean predictor"),
    (surface_rule, "the surface rule (a similarity threshold fitted on the training draw)"))


def _beats(prefix: str, comparator: str) -> Callable[[Values], Verdict]:
    """The models trained with all of LoCaL (p = 100) beat ``comparator`` on LoCaL_test and on
    Combined: the lower end of the learned gain's t interval over the models above 0 on both."""
    ids = [f"{prefix}.{name}.100" for name in ("LoCaL_test", "Combined")]
    return lambda v: _test(v, ids, lambda: all(above_bar(v, c, 0) for c in ids),
                           _with_cis(v, *ids) + f" (MAE of {comparator} minus the models' MAE)", resolved_by=ids)


def _per_cem(prefix: str, section: str, text: str, make: Callable[[str], Callable[[Values], Verdict]],
             cems: tuple[str, ...] = CEMS) -> list[Conclusion]:
    return [Conclusion(f"{prefix}.{c}", section, text.format(cem=c), make(c)) for c in cems]


def _t5(hard: str, cem: str, base: str = "CodeScore_test") -> Callable[[Values], Verdict]:
    return _above(hard, base, cem)


def _rq5(rows: list[tuple[str, str, Callable[[Values], Verdict]]]) -> list[Conclusion]:
    """Section 4.7's conclusions, each run on both RQ5 comparators (:data:`RQ5_TRIVIAL`)."""
    (first, first_name), *rest = RQ5_TRIVIAL
    return [Conclusion(cid, "Section 4.7", text, test, first, first_name, tuple(rest)) for cid, text, test in rows]


def _per_cem_t5(prefix: str, text: str, hard: str, cems: tuple[str, ...] = CEMS,
                base: str = "CodeScore_test") -> list[Conclusion]:
    """Table 5 comparisons per CEM, each also run on the constant score (RQ4's trivial model)."""
    return [Conclusion(f"{prefix}.{c}", "Section 4.6", text.format(cem=c), _t5(hard, c, base), constant_score,
                       "a constant score (CodeScore_test's mean label)") for c in cems]


CONCLUSIONS: list[Conclusion] = [
    Conclusion("C.T2.surface", "Table 2", "optimised pairs look less alike than mutated pairs (mean SurfaceSim)",
               _t2_surface),
    Conclusion("C.T2.behaviour", "Table 2", "optimised pairs behave the same (df near 1), mutants differ (df < 0.5)",
               _t2_behaviour),
    *_per_cem("C.RQ1.positive", "Section 4.3", "{cem}: rho with SurfaceSim > 0 and significant (p < 0.05)",
              _rho_positive),
    Conclusion("C.RQ1.strongest", "Section 4.3", "CodeBLEU and CodeBERTScore correlate most strongly", _rho_strongest),
    Conclusion("C.RQ1.codescore_weakest", "Section 4.3", "CodeScore's correlation is the weakest",
               _rho_codescore_weakest),
    Conclusion("C.RQ1.crystal_zeros", "Section 4.3",
               "CrystalBLEU often returns 0 on equivalent pairs (a share of at least one in ten)", _crystal_zeros),
    *_per_cem("C.RQ2.d_orig", "Section 4.4", "{cem}: d > 1 on ds_orig", _d_orig),
    *_per_cem("C.RQ2.d_repl", "Section 4.4", "{cem}: d < 1 on ds_replaced", _d_repl),
    Conclusion("C.RQ2.drop_order", "Section 4.4",
               "drop in d ranks CrystalBLEU > CodeBLEU > CodeScore > CodeBERTScore", _drop_order),
    Conclusion("C.RQ2.surface", "Section 4.4",
               "SurfaceSim: NEQ ds_orig < EQ < NEQ ds_replaced (replaced pairs look more alike)", _surface_order),
    Conclusion("C.RQ2.crystal_best_orig", "Section 4.4", "CrystalBLEU has the highest d on ds_orig",
               _crystal_best_orig),
    Conclusion("C.RQ2.crystal_worst_repl", "Section 4.4", "CrystalBLEU has the lowest d on ds_replaced",
               _crystal_worst_repl),
    Conclusion("C.RQ2.codebertscore_high", "Section 4.4",
               "CodeBERTScore gives the highest score to dissimilar non-equivalent pairs (NEQ ds_orig)",
               _codebertscore_inflated),
    Conclusion("C.RQ3.sfd", "Section 4.5",
               "LoCaL_balanced has a larger share in SFD than CodeScore_test (95% intervals over pairs apart)",
               _share_higher("sfd")),
    Conclusion("C.RQ3.dfs", "Section 4.5",
               "LoCaL_balanced has a larger share in DFS than CodeScore_test (95% intervals over pairs apart)",
               _share_higher("dfs")),
    Conclusion("C.RQ3.ctrl", "Section 4.5",
               "LoCaL's control points lie closer to SFD/DFS than the baseline's (95% intervals over pairs apart)",
               _ctrl_closer),
    Conclusion("C.RQ3.mut_in_sfd", "Section 4.5",
               "the paper's share of mutants falls in SFD (our Wilson 95% CI contains it)", _mut_in_sfd),
    Conclusion("C.RQ3.opt_in_dfs", "Section 4.5",
               "the paper's share of optimised variants falls in DFS (our Wilson 95% CI contains it; tested on PIE's "
               "fast programs, never on our rewriter's variants)", _opt_in_dfs),
    Conclusion("C.RQ3.released.mut_in_sfd", "Section 4.5",
               "the paper's share of the authors' released mutants falls in SFD under the paper's thresholds "
               "(our Wilson 95% CI contains it)", _released_share("mut")),
    Conclusion("C.RQ3.released.opt_in_dfs", "Section 4.5",
               "the paper's share of the authors' released optimised variants falls in DFS under the paper's "
               "thresholds (our Wilson 95% CI contains it)", _released_share("opt")),
    *_per_cem_t5("C.RQ4.local", "{cem}: MAE on LoCaL above MAE on CodeScore_test (CIs apart)", "LoCaL"),
    *_per_cem_t5("C.RQ4.sharecode", "{cem}: MAE on LoCaL above MAE on ShareCode_java (CIs apart)", "LoCaL",
                 CEMS[:3], "ShareCode_java"),
    *_per_cem_t5("C.RQ4.mut", "{cem}: LoCaL_mut degrades it (MAE above CodeScore_test's, CIs apart)", "LoCaL_mut"),
    *_per_cem_t5("C.RQ4.opt", "{cem}: LoCaL_opt degrades it (MAE above CodeScore_test's, CIs apart)", "LoCaL_opt",
                 ("CodeBLEU", "CrystalBLEU", "CodeScore")),
    Conclusion("C.RQ4.codebertscore_opt", "Section 4.6",
               "CodeBERTScore looks better on LoCaL_opt than on LoCaL_mut (inflated scores)", _codebertscore_opt,
               constant_score, "a constant score (CodeScore_test's mean label)"),
    Conclusion("C.RQ4.ratio_order", "Section 4.6",
               "error increase ranks CodeScore > CodeBLEU > CrystalBLEU > CodeBERTScore (each step by its paired "
               "bootstrap difference)", _ratio_order),
    Conclusion("C.RQ4.worst_gap", "Section 4.6",
               "the 100 worst cases show a SurfaceSim/df gap as large as the paper's (mean |SurfaceSim - df| over "
               "the metrics that are not substitutes)", _worst_gap),
    *_per_cem("C.RQ4.apps_pie", "Section 4.6",
              "{cem}: worst on APPS, then PIE (each step by its paired bootstrap difference)", _apps_then_pie),
    *_rq5([
        ("C.RQ5.combined", "Combined MAE drops from p = 0 to p = 100 (its 95% CI above 0)", _combined_drop),
        ("C.RQ5.small_p", "10-20 % LoCaL already gives most of the gain (the drop to p = 100 resolved, and Combined at "
                          "p = 20 resolved past half of it)", _small_p_large_gain),
        ("C.RQ5.local_test", "LoCaL_test MAE falls by more than half (p = 100 vs 0)", _local_test_falls),
        ("C.RQ5.baseline_minor", "the baseline's error increase is minor (under a quarter of LoCaL_test's reduction) "
                                 "while LoCaL_test's error falls", _baseline_minor)]),
    # the compendium's own checks (the paper compares with neither comparator): not counted as its claims
    Conclusion("C.RQ5.beats_surface_rule", "Section 4.7",
               "ours, not the paper's: the models trained at p = 100 beat the surface rule (a similarity threshold "
               "fitted on the same training draw) on LoCaL_test and on Combined (the learned gain's 95% interval "
               "over the models above 0 on both)", _beats(RQ5_GAIN_OVER_RULE, "the surface rule"), paper=False),
    Conclusion("C.RQ5.beats_mean", "Section 4.7",
               "ours, not the paper's: the models trained at p = 100 beat the mean predictor (the training draw's "
               "mean label) on LoCaL_test and on Combined (the learned gain's 95% interval over the models above 0 "
               "on both)", _beats(RQ5_GAIN_OVER_MEAN, "the mean predictor"), paper=False),
]


@dataclass(frozen=True)
class Implication:
    """``premise`` (a conclusion) cannot pass while ``consequence`` does not: the consequence is a
    conclusion, or, with ``bar``, a number claim whose 95% interval must lie above ``bar``."""

    premise: str
    consequence: str
    why: str
    bar: float = math.nan


#: pairs of claims where one cannot stand without the other (:func:`lcl.report.claims.contradictions`)
IMPLIES: tuple[Implication, ...] = (
    Implication("C.RQ5.small_p", "C.RQ5.combined",
                "most of the gain at p = 20 presupposes a gain from p = 0 to p = 100"),
    Implication("C.RQ5.small_p", "RQ5.combined_drop",
                "most of the gain at p = 20 presupposes a Combined drop whose interval lies above 0", 0.0),
    Implication("C.RQ5.baseline_minor", "RQ5.local_test_reduction",
                "'while LoCaL_test's error falls' needs its reduction's interval above 0", 0.0),
)


def judge(c: Conclusion, values: Values) -> Verdict:
    """``c`` on our values, then, where it holds, on each trivial model's (:meth:`Conclusion.trivials`):
    passing on any of them too is "trivial model passes too", never "holds", and the evidence names
    which comparator passed."""
    v = c.judge(values)
    if v.status not in (HOLDS, HOLDS_SUB) or not c.trivials():
        return v
    said, passed = [], []
    for make, name in c.trivials():
        with _points_decide():  # a trivial model's values decide on its points where it has no interval
            t = c.judge(make(values))
        if t.status in (HOLDS, HOLDS_SUB):
            passed.append(name)
            said.append(f"{name} passes too: {t.evidence}")
        elif t.status in (FAILS, FAILS_SUB):
            said.append(f"{name} does not: {t.evidence}")
        else:
            said.append(f"{name} not tested ({t.evidence})")
    if passed:
        return Verdict(TRIVIAL, "; ".join([v.evidence, *said]))
    return Verdict(v.status, "; ".join([v.evidence, *said]))


def judge_all(values: Values) -> list[tuple[Conclusion, Verdict]]:
    return [(c, judge(c, values)) for c in CONCLUSIONS]
