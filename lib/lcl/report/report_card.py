"""A surface-bias report card for any code metric: the paper's tests and this compendium's studies
run on one new metric, beside the four CEMs, from a profile's built outputs (``lcl evaluate``).

Nothing is fuzzed and no statistic is computed here that a research question's module does not
already compute: the pair sets are the ones the notebooks read (LoCaL and LoCaL-all from notebook
02, CodeScore_test and ShareCode_java capped as in notebook 06, RQ1's PIE sample, RQ2's stored
repetition pools), the four CEMs' scores come from the score cache, and each section calls the
function its notebook calls:

- Table 5 (Section 4.6): MAE with a bootstrap 95 % CI per evaluation set (LoCaL and, as notebook
  06's sensitivity table, LoCaL-all) and the constant-score baseline (:func:`lcl.rq.effectiveness.table5`), MAE per source benchmark of LoCaL
  (:func:`lcl.rq.effectiveness.mae_by_benchmark`);
- RQ1 (Section 4.3, Table 3): Spearman's rho with SurfaceSim (Eq. 1) on the equivalent PIE pairs
  (:func:`lcl.rq.correlation.table3`);
- RQ2 (Section 4.4, Table 4): distinguishability d (Eq. 3) on ds_orig and ds_replaced and the drop
  (:func:`lcl.rq.distinguish.repetition_scores`, :func:`lcl.rq.distinguish.table4`);
- RQ3 (Section 4.5, Eq. 4): the share of LoCaL's SFD and DFS pairs the metric gets badly wrong
  (:func:`badly_wrong`), under the paper's fitted thresholds and under ours (Algorithm 2 as
  notebook 05 fits it, :func:`lcl.rq.calibration.rq3_thresholds`);
- X2: the mean score shift under each behaviour-preserving perturbation of notebook 10's sample
  (:func:`lcl.rq.robustness.shift_table`), when every perturbed program's verification is stored;
- X3: AUROC of equivalent vs killed mutants in matched groups (:func:`lcl.rq.red_herrings.auroc_table`);
- X4: expected calibration error on LoCaL and CodeScore_test (:func:`lcl.rq.calibration.ece_table`).

Every section is one long table (:data:`LONG_COLUMNS`): one row per metric and quantity, with its
95 % interval (or its standard deviation over repetitions, RQ2). A section whose source is absent
(no data mirror) or whose stage was not run at this profile is "not run", with the reason.

The metric under test is trusted code the user chose to run (as with ``lcl score``). It is scored
once per distinct pair; a batch that raises is scored pair by pair, and pairs that still raise are
recorded with the error and left out of every statistic (:func:`score_candidate`).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Required, TypedDict

import numpy as np
import pandas as pd

from lcl.core import paths, profiles
from lcl.core.errors import UserError
from lcl.core.profiles import Profile
from lcl.engine import regions
from lcl.engine.metrics import Metric, get_metric
from lcl.engine.metrics.base import MetricWarning
from lcl.engine.metrics.cache import ScoreCache, pair_digest
from lcl.rq import calibration, correlation, distinguish, label_sensitivity
from lcl.rq import effectiveness as eff
from lcl.rq import red_herrings as rh
from lcl.rq import robustness as rb
from lcl.rq.coverage import wilson
from lcl.study import candidate_generation, codescore_base, loaders, pair_files, scoring, sources
from lcl.study.labelling import candidates_stored, label_candidates, profile_settings

if TYPE_CHECKING:
    from lcl.rq.distinguish import Repetition
    from lcl.study.codescore_base import BaseRecord

LONG_COLUMNS = ["section", "quantity", "metric", "value", "ci_low", "ci_high", "std", "n"]


class LongRow(TypedDict, total=False):
    """A row of a section of the long table (:data:`LONG_COLUMNS` but ``section``)."""

    quantity: Required[str]
    metric: Required[str]
    value: Required[float]
    ci_low: float
    ci_high: float
    std: float
    n: Required[int]


class RQ3Thresholds(TypedDict):
    """The thresholds RQ3's section used: the paper's, ours (None: Algorithm 2 found none) and
    where ours came from."""

    paper: dict[str, float | str]
    ours: dict[str, float | str] | None
    ours_source: str
#: sections of a card, in the order they are shown, with their titles
SECTIONS: dict[str, str] = {
    "table5": "Table 5 (Section 4.6): MAE against df_score, lower is better",
    "by_benchmark": "Table 5 per source benchmark of LoCaL: MAE",
    "rq1": "RQ1 (Section 4.3): Spearman rho with SurfaceSim on equivalent PIE pairs, 0 is ideal",
    "rq2": "RQ2 (Section 4.4): distinguishability d (Eq. 3), higher is better; the drop when mutants replace "
           "cross pairs",
    "rq3": "RQ3 (Section 4.5): % of LoCaL's SFD / DFS pairs badly wrong (scored on the far side of the label), "
           "lower is better",
    "x2": "X2: mean score shift under behaviour-preserving edits (fuzzer-verified), 0 is robust",
    "x3": "X3: AUROC, equivalent vs killed mutants of one task and operator, 0.5 is chance",
    "x4": "X4: expected calibration error (ECE), lower is better",
}
#: the four CEMs' column labels, in the paper's order
CEM_LABELS = tuple(scoring.label(m) for m in scoring.CEMS)
T5_ORDER = ("LoCaL", "LoCaL-all", "LoCaL_opt", eff.OPT_PIE_ROW, "LoCaL_mut", "CodeScore_test",
            "ShareCode_java")


# ----------------------------------------------------------------------------- the metric under test
@dataclass
class Candidate:
    """The metric under test: its spec as given, the column its scores take, and what it scores."""

    spec: str
    label: str
    version: str
    metric: Metric | None  # None: one of the columns scoring.score_frame already computes
    java: bool
    external: bool = False

    @property
    def column(self) -> str:
        return self.label


def candidate(spec: str) -> Candidate:
    """Resolve ``--metric SPEC`` as ``lcl score`` does (a registry name, ``external:FILE``,
    ``module:function``); a module that cannot be imported is a one-line error."""
    spec = spec.strip()
    if not spec:
        raise UserError("--metric needs a metric: a name (codebleu, ...), external:FILE or module:function")
    if spec in scoring.CEMS or spec == scoring.SURFACE:
        # the notebooks' own columns: scored with the CEMs, CodeScore-style with CodeScore_base
        return Candidate(spec, scoring.label(spec), "as the notebooks score it", None,
                         java=spec not in scoring.PYTHON_ONLY)
    try:
        metric = get_metric(spec)
    except UserError:
        raise
    except Exception as exc:  # a registry metric that cannot start here (a missing model, ...)
        raise UserError(f"metric {spec!r} cannot be loaded: {type(exc).__name__}: {exc}") from exc
    declared = getattr(metric, "declared_languages", None)
    external = spec.startswith("external:")
    java = external or ("java" in declared if declared is not None else
                        ":" not in spec and "java" in metric.languages)
    label = metric.label if metric.label not in (*CEM_LABELS, scoring.label(scoring.SURFACE)) else f"{metric.label} [{spec}]"
    return Candidate(spec, label, str(metric.version), metric, java=java, external=external)


@dataclass
class Scores:
    """The candidate's scores by pair key, and the pairs it could not score, with why."""

    values: dict[tuple[str, str], float] = field(default_factory=dict)
    failed: dict[tuple[str, str], str] = field(default_factory=dict)
    missing: list[tuple[str, str]] = field(default_factory=list)  # external: no score in the file


def pair_key(row: Mapping[str, Any], lang: str) -> tuple[str, str]:
    """A pair's identity across sets: its id and a digest of both programs and the language."""
    return str(row["id"]), f"{lang}:{pair_digest(str(row['reference']), str(row['candidate']))}"


def score_candidate(cand: Candidate, frames: Mapping[str, tuple[pd.DataFrame, str]], *, progress: bool = True,
                    batch: int = 64) -> Scores:
    """Score every distinct pair of ``frames`` (name -> (pairs, language)) with the candidate, once.

    A batch that raises is scored pair by pair; a pair that still raises is recorded in
    ``failed`` (its error in one line). Wrong counts, NaN and scores outside [0, 1] stop the
    run with a one-line error naming the metric and the first pair concerned. Languages the
    candidate does not score are skipped (Java without a declaration)."""
    from tqdm import tqdm

    assert cand.metric is not None
    todo: dict[str, dict[tuple[str, str], tuple[str, str, str]]] = {}
    for name, (frame, lang) in frames.items():
        if lang == "java" and not cand.java:
            continue
        for row in frame[["id", "reference", "candidate"]].to_dict("records"):
            todo.setdefault(lang, {})[pair_key(row, lang)] = (str(row["reference"]), str(row["candidate"]), name)
    out = Scores()
    total = sum(len(v) for v in todo.values())
    store = ScoreCache() if cand.metric.cacheable else None
    try:
        with tqdm(total=total, desc=cand.label, unit="pair", disable=not progress) as bar:
            for lang, pairs in todo.items():
                keys = list(pairs)
                for start in range(0, len(keys), batch):
                    chunk = keys[start:start + batch]
                    _score_chunk(cand, lang, chunk, pairs, store, out)
                    bar.update(len(chunk))
                    _stop_if_nothing_works(cand, out, len(chunk))
    finally:
        if store is not None:
            store.close()
    return out


def _stop_if_nothing_works(cand: Candidate, out: Scores, batch: int) -> None:
    """A metric that raised on every pair of a whole batch and has scored none is broken (a wrong
    signature, a missing resource), not failing on some pairs: one line, the first error."""
    if not out.values and len(out.failed) >= max(2, batch):
        first = next(iter(out.failed.values()))
        raise UserError(f"metric {cand.spec!r} raised on each of the first {len(out.failed)} pairs, e.g. {first}")


def _call(metric: Metric, refs: list[str], cands: list[str], lang: str, ids: list[str],
          store: ScoreCache | None) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetricWarning)  # a missing external score is counted, not warned
        return np.asarray(metric.score(refs, cands, lang, ids=ids, cache=store if store is not None else False),
                          dtype=float)


def _score_chunk(cand: Candidate, lang: str, chunk: list[tuple[str, str]],
                 pairs: Mapping[tuple[str, str], tuple[str, str, str]], store: ScoreCache | None,
                 out: Scores) -> None:
    assert cand.metric is not None
    refs, cands = [pairs[k][0] for k in chunk], [pairs[k][1] for k in chunk]
    ids = [k[0] for k in chunk]
    try:
        vals = _call(cand.metric, refs, cands, lang, ids, store)
    except UserError:
        raise
    except Exception:  # noqa: BLE001 - some pair of the batch breaks the user's metric: find which, keep the others
        vals = np.full(len(chunk), np.nan)
        for i, k in enumerate(chunk):
            try:
                vals[i] = _call(cand.metric, [refs[i]], [cands[i]], lang, [ids[i]], store)[0]
            except UserError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported per pair on the card
                out.failed[k] = _one_line(exc)
    for k, v in zip(chunk, vals, strict=True):
        if k in out.failed:
            continue
        if math.isnan(v):
            if cand.external:
                out.missing.append(k)
                continue
            raise UserError(f"metric {cand.spec!r} returned NaN for pair {k[0]!r} ({pairs[k][2]}); "
                            "a metric must return a number in [0, 1] for every pair (raise to mark a pair it cannot score)")
        out.values[k] = float(v)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300]


def with_candidate(frame: pd.DataFrame, lang: str, cand: Candidate, scores: Scores | None) -> pd.DataFrame:
    """``frame`` with the candidate's column (NaN where it failed, has no score, or skips ``lang``)."""
    if cand.metric is None or scores is None:
        return frame
    vals = [scores.values.get(pair_key(r, lang), np.nan)
            for r in frame[["id", "reference", "candidate"]].to_dict("records")]
    return frame.assign(**{cand.column: np.asarray(vals, dtype=float)})


# ----------------------------------------------------------------------------- the profile's inputs
def check_built(profile: str) -> BaseRecord:
    """The CodeScore_base record of ``profile``; a one-line error when the profile's outputs are not built."""
    need = [paths.local_pairs(profile), paths.codescore_base_record(profile)]
    missing = [str(p.relative_to(paths.root())) if p.is_relative_to(paths.root()) else str(p)
               for p in need if not p.exists()]
    if missing:
        raise UserError(f"profile {profile} is not built ({', '.join(missing)} missing): run "
                        f"'make all PROFILE={profile}' first")
    record: BaseRecord = json.loads(paths.codescore_base_record(profile).read_text())
    return record


def _available(name: str) -> bool:
    return sources.available(loaders.PAIR_SOURCE[name])


@dataclass
class Inputs:
    """The pair sets of one profile, unscored: name -> (pairs, language), and sets not run, with why."""

    frames: dict[str, tuple[pd.DataFrame, str]]
    not_run: dict[str, str]
    reps: list[Repetition]
    x2: pd.DataFrame | None = None


def _capped(name: str, P: Profile, seed: int) -> pd.DataFrame:
    return eff.cap(eff.labelled(scoring.pairs_frame(loaders.PAIR_LOADERS[name]())), P.eval_pairs_cap, seed)


def inputs(P: Profile, seed: int, jobs: int) -> Inputs:
    """Every pair set a card needs, built as the notebooks build them (nothing fuzzed)."""
    frames: dict[str, tuple[pd.DataFrame, str]] = {}
    not_run: dict[str, str] = {}
    all_rows = pair_files.load_local(P.name, subset="all")
    operators = {r["id"]: r.get("operator") for r in all_rows}
    la = eff.labelled(eff.with_sources(scoring.pairs_frame(all_rows), all_rows))
    frames["LoCaL-all"] = (la.assign(operator=[operators.get(i) for i in la["id"]]), "python")  # 06, 10
    frames["LoCaL"] = (scoring.pairs_frame(pair_files.load_local(P.name)), "python")  # 05, 11
    for name, lang in (("CodeScore_test", "python"), ("ShareCode_java", "java")):
        if _available(name):
            frames[name] = (_capped(name, P, seed), lang)
        else:
            not_run[name] = f"{name}'s source needs the local data mirror, which is absent"
    if _available("PIE"):
        chosen = correlation.sample_pairs(loaders.PAIR_LOADERS["PIE"](), P.rq1_pairs, seed)
        frames["PIE (RQ1)"] = (scoring.pairs_frame(chosen), "python")
    else:
        not_run["rq1"] = not_run["rq2"] = "PIE needs the local data mirror, which is absent"
    x2, why = x2_pairs(P, seed)
    if why:
        not_run["x2"] = why
    else:
        for when in ("before", "after"):
            frames[f"X2 ({when})"] = (pd.DataFrame({"id": x2["id"].astype(str) + f"~{when}",
                                                    "reference": x2[f"ref_{when}"], "candidate": x2[f"cand_{when}"]}),
                                      "python")
    reps: list[Repetition] = []
    if "rq2" not in not_run:
        reps, why = rq2_repetitions(P, seed, jobs)
        if why:
            not_run["rq2"] = why
        else:
            frames["RQ2 (union)"] = (scoring.pairs_frame(distinguish.union(reps)), "python")
    return Inputs(frames, not_run, reps, x2)


def rq2_repetitions(P: Profile, seed: int, jobs: int) -> tuple[list[Repetition], str | None]:
    """RQ2's repetitions as notebook 04 builds them (the authors' construction over LoCaL's df = 0
    mutants, :func:`lcl.rq.distinguish.table4_repetitions`); a reason instead when LoCaL is not built
    yet. Nothing is fuzzed: every label comes from LoCaL's pairs file. ``jobs`` is unused (kept for
    the caller's uniform signature)."""
    del jobs
    if not paths.local_pairs(P.name).exists():
        return [], (f"LoCaL is not built at profile {P.name}: run 'make all PROFILE={P.name}' (notebook 02) first")
    pie_pairs, _ = distinguish.usable_pairs(loaders.load_pie_pairs())
    local = pair_files.load_local(P.name)
    return distinguish.table4_repetitions(pie_pairs, local, P.rq2_pairs, P.rq2_repetitions, seed), None


def notebook_defaults(name: str) -> dict[str, Any]:
    """The literal values of a notebook's ``parameters`` cell (its defaults, e.g. notebook 10's
    sample sizes), read from its jupytext source so that they are stated in one place
    (``ast.literal_eval`` results: of any type)."""
    lines = paths.notebook_source(name).read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("# %%") and "parameters" in ln) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("# %%")), len(lines))
    out: dict[str, Any] = {}
    for node in ast.parse("\n".join(lines[start:end])).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


X2_NOTEBOOK = "10_robustness"


def x2_pairs(P: Profile, seed: int) -> tuple[pd.DataFrame, str | None]:
    """Notebook 10's verified perturbed pairs (its sample, its perturbations, its two checks) with
    the sensitivity rows against the stored reference, from stored fuzz results only; a reason
    instead when some verification is not stored yet."""
    nb = notebook_defaults(X2_NOTEBOOK)
    all_rows = pair_files.load_local(P.name, subset="all")
    docs = rb.documented_references(candidate_generation.selected_tasks(P))
    rows = (rb.perturb_opt(rb.sample(all_rows, "OPT", nb.get("opt_pairs"), seed), docs, seed)
            + rb.perturb_mut(rb.sample(all_rows, "MUT", nb.get("mut_pairs"), seed), docs))
    why = (f"the perturbed programs of notebook 10 are not all verified at profile {P.name}: run "
           f"'make all PROFILE={P.name}' (notebook 10) first")
    if not rows:
        return pd.DataFrame(), "no perturbation applies to this profile's sampled pairs"
    first = candidates_stored(rb.verification_batch(rows), profile_settings(P), seed)
    if any(first.get(r["id"]) is False for r in rows):  # None: cannot be fuzzed, nothing to wait for
        return pd.DataFrame(), why
    results = {r["id"]: r for r in label_candidates(rb.verification_batch(rows), profile_settings(P), seed, 1, progress=False)}
    again = [r for r in rows if rb.outcome(results.get(r["id"], {"error": "no result"})) == rb.UNVERIFIABLE]
    second = candidates_stored(rb.check_batch(again), profile_settings(P), seed) if again else {}
    if any(v is False for v in second.values()):
        return pd.DataFrame(), why
    verified = rb.verify(rows, P, seed, 1, progress=False)
    both = pd.concat([verified, rb.against_stored_reference(verified)], ignore_index=True)
    return both[both["outcome"].isin(rb.USABLE)].reset_index(drop=True), None


def scored_sets(ins: Inputs, cand: Candidate, P: Profile, seed: int, jobs: int, *,
                progress: bool = True) -> tuple[dict[str, pd.DataFrame], Scores | None]:
    """Every set scored with SurfaceSim, the four CEMs (the notebooks' calls: the score cache
    answers) and the candidate."""
    scores = score_candidate(cand, ins.frames, progress=progress) if cand.metric is not None else None
    model = codescore_base.base_model(P, seed, jobs, progress=False)
    out = {}
    for name, (frame, lang) in ins.frames.items():
        f = scoring.score_frame(frame, codescore_model=model, lang=lang, progress=progress) if len(frame) else frame
        out[name] = with_candidate(f, lang, cand, scores)
    return out, scores


# ----------------------------------------------------------------------------- sections
def _long(section: str, rows: list[LongRow]) -> pd.DataFrame:
    return pd.DataFrame([{"section": section, **r} for r in rows], columns=LONG_COLUMNS)


def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def table5_section(sets: Mapping[str, pd.DataFrame], cols: list[str], seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 5's rows (notebook 06's sets and call) and LoCaL's MAE per source benchmark."""
    loc = eff.in_local(sets["LoCaL-all"])
    ordered = {"CodeScore_test": sets.get("CodeScore_test"), "LoCaL": loc,
               "LoCaL_opt": loc[loc.variant_type == "OPT"],
               **({eff.OPT_PIE_ROW: eff.pie_fast(loc)} if "opt_source" in loc else {}),
               "LoCaL_mut": loc[loc.variant_type == "MUT"],
               "ShareCode_java": sets.get("ShareCode_java")}
    t5 = eff.table5({k: v for k, v in ordered.items() if v is not None}, cols, seed).set_index("Dataset")
    # LoCaL-all (every labelled candidate, before curation) as notebook 06's sensitivity table has it:
    # its own call, with that call's default bootstrap seed
    base = {"CodeScore_test": ordered["CodeScore_test"]} if ordered["CodeScore_test"] is not None else {}
    t5 = pd.concat([t5, eff.table5({**base, "LoCaL-all": sets["LoCaL-all"]}, cols).set_index("Dataset")
                    .loc[["LoCaL-all"]]])
    ordered["LoCaL-all"] = sets["LoCaL-all"]
    rows: list[LongRow] = []
    for ds in T5_ORDER:
        if ds not in t5.index:
            continue
        r = t5.loc[ds]
        for col in [*cols, eff.CONSTANT]:
            rows.append({"quantity": f"MAE on {ds}", "metric": col, "value": _num(r.get(col)),
                         "ci_low": _num(r.get(f"{col} CI low")), "ci_high": _num(r.get(f"{col} CI high")),
                         "n": int(sets_n(ordered[ds], col)) if col != eff.CONSTANT else int(r["n"])})
    bench: list[LongRow] = []
    for col in cols:
        ok = loc[loc[col].notna()] if col in loc else loc.iloc[:0]
        for _, r in eff.mae_by_benchmark(ok, [col]).iterrows():
            bench.append({"quantity": f"MAE on LoCaL / {r['benchmark']}", "metric": col, "value": _num(r.get(col)),
                          "n": int(r["n"])})
    return _long("table5", rows), _long("by_benchmark", bench)


def sets_n(frame: pd.DataFrame | None, col: str) -> int:
    return int(frame[col].notna().sum()) if frame is not None and col in frame else 0


def rq1_section(scored: pd.DataFrame, cols: list[str], P: Profile, seed: int) -> pd.DataFrame:
    """Table 3's call on RQ1's PIE sample (notebook 03)."""
    t3 = correlation.table3(scored, n_boot=P.bootstrap, seed=seed, columns=cols)
    return _long("rq1", [{"quantity": "rho with SurfaceSim", "metric": r["Metric"], "value": _num(r["rho"]),
                          "ci_low": _num(r["CI low"]), "ci_high": _num(r["CI high"]), "n": int(r["n"])}
                         for _, r in t3.iterrows()])


def rq2_section(scored: pd.DataFrame, reps: list[Repetition], cols: list[str]) -> pd.DataFrame:
    """Table 4's d and drop per metric (notebook 04's calls), each metric on the pairs it scored."""
    rows: list[LongRow] = []
    for col in cols:
        ok = set(scored.loc[scored[col].notna(), "id"]) if col in scored else set()
        kept = [dataclasses.replace(r, eq=[p for p in r.eq if p["id"] in ok],
                                    neq_orig=[p for p in r.neq_orig if p["id"] in ok],
                                    neq_repl=[p for p in r.neq_repl if p["id"] in ok]) for r in reps]
        t4 = distinguish.table4(distinguish.repetition_scores(scored, kept, columns=[col]))
        for _, r in t4.iterrows():
            n = int(r["n_eq"])
            rows += [{"quantity": "d on ds_orig", "metric": col, "value": _num(r["d orig"]), "std": _num(r["d orig std"]),
                      "n": n},
                     {"quantity": "d on ds_replaced", "metric": col, "value": _num(r["d repl"]),
                      "std": _num(r["d repl std"]), "n": n},
                     {"quantity": "drop of d (%)", "metric": col, "value": _num(r["drop %"]),
                      "std": _num(r["drop % std"]), "n": n}]
    return _long("rq2", rows)


def badly_wrong(frame: pd.DataFrame, col: str, th: regions.Thresholds) -> dict[str, tuple[int, int]]:
    """Per region (SFD, DFS; Eq. 4 on SurfaceSim and df_score): (pairs the metric scored, pairs it
    gets badly wrong). Badly wrong: the score lies on the far side of the region's df_score
    thresholds, so the metric says the opposite of the label: an SFD pair (df_score <= y_lo)
    scored >= y_hi, a DFS pair (df_score >= y_hi) scored <= y_lo."""
    ok = frame[frame[col].notna()] if col in frame else frame.iloc[:0]
    lab = regions.assign(ok[calibration.SURFACE].to_numpy(float), ok[calibration.TRUTH].to_numpy(float), th)
    s = ok[col].to_numpy(float)
    sfd, dfs = lab == "SFD", lab == "DFS"
    return {"SFD": (int(sfd.sum()), int(np.sum(s[sfd] >= th.y_hi - 1e-9))),
            "DFS": (int(dfs.sum()), int(np.sum(s[dfs] <= th.y_lo + 1e-9)))}


def rq3_section(local: pd.DataFrame, control: pd.DataFrame | None, cols: list[str], P: Profile,
                seed: int) -> tuple[pd.DataFrame, RQ3Thresholds]:
    """:func:`badly_wrong` on LoCaL under the paper's thresholds and ours (fitted with the four
    CEMs, as notebook 05 fits them; the metric under test does not move the regions)."""
    paper = label_sensitivity.paper_thresholds()
    cems = [c for c in CEM_LABELS if c in local]
    ours, source = calibration.rq3_thresholds(local, control if control is not None else local.iloc[:0],
                                              P.rq3_balanced, seed, cems, fallback=None)
    rows: list[LongRow] = []
    for tag, th in (("paper's thresholds", paper), ("our thresholds", ours)):
        if th is None:
            continue
        for col in cols:
            for region, (n, bad) in badly_wrong(local, col, th).items():
                lo, hi = wilson(bad, n) if n else (float("nan"), float("nan"))
                rows.append({"quantity": f"{region} %, {tag}", "metric": col,
                             "value": round(100 * bad / n, 2) if n else float("nan"), "ci_low": lo, "ci_high": hi,
                             "n": n})
    used: RQ3Thresholds = {"paper": paper.to_dict(), "ours": ours.to_dict() if ours is not None else None, "ours_source": source}
    return _long("rq3", rows), used


def x2_section(pairs: pd.DataFrame, sets: Mapping[str, pd.DataFrame], cols: list[str], P: Profile,
               seed: int) -> pd.DataFrame:
    """Notebook 10's shift table (its sensitivity rows left out) on the verified pairs, each
    metric's scores before and after the perturbation taken from the scored X2 sets."""
    scored = pairs.copy()
    for when in ("before", "after"):
        f = sets[f"X2 ({when})"]  # row for row as ``pairs`` (ids repeat across the sides of a pair)
        for col in cols:
            scored[f"{col}:{when}"] = f[col].to_numpy(float) if col in f else np.nan
    t = rb.shift_table(scored, n_boot=P.bootstrap, seed=seed)
    t = t[~t["perturbation"].str.endswith(rb.STORED)]
    return _long("x2", [{"quantity": f"{r['kind']} {r['side']}: {r['perturbation']}", "metric": r["metric"],
                         "value": _num(r["shift"]), "ci_low": _num(r["shift_ci_low"]),
                         "ci_high": _num(r["shift_ci_high"]), "n": int(r["n"])} for _, r in t.iterrows()])


def x3_section(mutants: pd.DataFrame, cols: list[str], P: Profile, seed: int) -> pd.DataFrame:
    """Notebook 10's AUROC table, its "all benchmarks" rows."""
    auc = rh.auroc_table(mutants, list(dict.fromkeys([rh.SURFACE, *cols])), n_boot=P.bootstrap, seed=seed)
    auc = auc[(auc.benchmark == rh.ALL) & auc.metric.isin(cols)]
    return _long("x3", [{"quantity": "AUROC within groups", "metric": r["metric"], "value": _num(r["auroc_within"]),
                         "ci_low": _num(r["auroc_within_ci_low"]), "ci_high": _num(r["auroc_within_ci_high"]),
                         "n": int(r["n_groups"])} for _, r in auc.iterrows()])


def x4_section(sets: Mapping[str, pd.DataFrame], cols: list[str], P: Profile, seed: int,
               bins: int = 10) -> pd.DataFrame:
    """Notebook 11's ECE (its ``bins`` default), on LoCaL and CodeScore_test, every pair together."""
    rows: list[LongRow] = []
    for name, f in sets.items():
        t = calibration.ece_table(f, cols, by=None, n_boot=P.bootstrap, seed=seed, bins=bins)
        rows += [{"quantity": f"ECE on {name}", "metric": r["metric"], "value": _num(r["ece"]),
                  "ci_low": _num(r["ece_ci_low"]), "ci_high": _num(r["ece_ci_high"]), "n": int(r["n"])}
                 for _, r in t.iterrows() if r["metric"] in cols]
    return _long("x4", rows)


# ----------------------------------------------------------------------------- the card
class CardMetric(TypedDict):
    spec: str
    label: str
    version: str
    java: bool


class CardJson(TypedDict):
    """``card.json``: :class:`Card` as JSON."""

    metric: CardMetric
    profile: str
    seed: int
    columns: list[str]
    verdict: str
    pairs_per_set: dict[str, int]
    scored_pairs: int
    failed_pairs: int
    missing_scores: int
    failures: list[dict[str, str]]
    not_run: dict[str, str]
    rq3_thresholds: RQ3Thresholds
    results: list[dict[str, object]]  # the long table's rows: column -> value (None where missing)


@dataclass
class Card:
    """Everything a card shows: the long table of every section, what was not run, the
    candidate's failures, the verdict, and how it was made."""

    candidate: Candidate
    profile: str
    seed: int
    columns: list[str]
    table: pd.DataFrame
    not_run: dict[str, str]
    failures: list[dict[str, str]]
    missing: int
    scored_pairs: int
    thresholds: RQ3Thresholds
    verdict: str
    sets: dict[str, int]

    def to_json(self) -> CardJson:
        t = self.table.astype(object).where(self.table.notna(), None)
        return {"metric": {"spec": self.candidate.spec, "label": self.candidate.label,
                           "version": self.candidate.version, "java": self.candidate.java},
                "profile": self.profile, "seed": self.seed, "columns": self.columns, "verdict": self.verdict,
                "pairs_per_set": self.sets, "scored_pairs": self.scored_pairs, "failed_pairs": len(self.failures),
                "missing_scores": self.missing, "failures": self.failures, "not_run": self.not_run,
                "rq3_thresholds": self.thresholds, "results": t.to_dict("records")}


def build(spec: str, profile: str = "quick", seed: int | None = None, jobs: int = 2,
          progress: bool = True) -> Card:
    """The report card of metric ``spec`` on ``profile``'s built outputs (a one-line error when
    the metric cannot be loaded or the outputs are missing)."""
    cand = candidate(spec)
    record = check_built(profile)
    P = profiles.get(profile)
    seed = int(record.get("seed", profiles.DEFAULT_SEED)) if seed is None else seed
    ins = inputs(P, seed, jobs)
    sets, scores = scored_sets(ins, cand, P, seed, jobs, progress=progress)
    return assemble(cand, sets, ins.reps, ins.not_run, scores, P, seed, x2=ins.x2)


def assemble(cand: Candidate, sets: dict[str, pd.DataFrame], reps: list[Repetition], not_run: Mapping[str, str],
             scores: Scores | None, P: Profile, seed: int, x2: pd.DataFrame | None = None) -> Card:
    """The card from scored sets (:func:`scored_sets`): every section, the failures and the verdict."""
    cols = [*(c for c in CEM_LABELS if c in sets["LoCaL-all"]), *([cand.column] if cand.column not in CEM_LABELS else [])]
    parts, why, th = _sections(sets, reps, not_run, cols, P, seed, x2)
    table = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else \
        pd.DataFrame(columns=LONG_COLUMNS)
    failures = ([{"pair": k[0], "error": e} for k, e in sorted(scores.failed.items())] if scores is not None else [])
    return Card(cand, P.name, seed, cols, table, why, failures, len(scores.missing) if scores else 0,
                len(scores.values) if scores else 0, th, verdict(table, cand.column),
                {k: len(v) for k, v in sets.items()})


def _sections(sets: dict[str, pd.DataFrame], reps: list[Repetition], why: Mapping[str, str], cols: list[str],
              P: Profile, seed: int, x2: pd.DataFrame | None) -> tuple[list[pd.DataFrame], dict[str, str], RQ3Thresholds]:
    not_run = dict(why)
    t5, bench = table5_section(sets, cols, seed)
    parts = [t5, bench]
    if "PIE (RQ1)" in sets:
        parts.append(rq1_section(sets["PIE (RQ1)"], cols, P, seed))
    if "RQ2 (union)" in sets:
        parts.append(rq2_section(sets["RQ2 (union)"], reps, cols))
    local = sets["LoCaL"]
    r3, th = rq3_section(local, sets.get("CodeScore_test"), cols, P, seed)
    parts.append(r3)
    la = sets["LoCaL-all"]
    parts.append(x3_section(la[la.variant_type == rh.MUTANT].reset_index(drop=True), cols, P, seed))
    parts.append(x4_section({"LoCaL": local, **({"CodeScore_test": sets["CodeScore_test"]}
                                                if "CodeScore_test" in sets else {})}, cols, P, seed))
    if x2 is not None and len(x2) and "X2 (before)" in sets:
        parts.append(x2_section(x2, sets, cols, P, seed))
    elif "x2" not in not_run:
        not_run["x2"] = "no verified perturbed pair was given"
    return parts, not_run, th


# ----------------------------------------------------------------------------- the verdict
def _cell(table: pd.DataFrame, quantity: str, metric: str) -> tuple[float, float, float] | None:
    r = table[(table.quantity == quantity) & (table.metric == metric)]
    if r.empty or not np.isfinite(r["value"].iloc[0]):
        return None
    return float(r["value"].iloc[0]), float(r["ci_low"].iloc[0]), float(r["ci_high"].iloc[0])


def _compare(a: tuple[float, float, float], b: tuple[float, float, float], more: str, less: str) -> str:
    """``more`` / ``less`` when the two 95 % intervals lie apart, else "about the same as"."""
    if a[1] > b[2]:
        return more
    if a[2] < b[1]:
        return less
    return "about the same as (intervals overlap)"


def verdict(table: pd.DataFrame, column: str, fmt: Callable[[float], str] = lambda x: f"{x:.2f}") -> str:
    """One sentence from Table 5's numbers: the metric's MAE on LoCaL against its MAE on
    CodeScore_test (existing data) and against a constant score on LoCaL (the trivial model)."""
    loc = _cell(table, "MAE on LoCaL", column)
    if loc is None:
        return f"No verdict: {column} has no MAE on LoCaL (no pair was scored)."
    base = _cell(table, "MAE on CodeScore_test", column)
    const = _cell(table, "MAE on LoCaL", eff.CONSTANT)
    text = f"On LoCaL, {column} has MAE {fmt(loc[0])} [{fmt(loc[1])}, {fmt(loc[2])}]"
    if base is not None:
        text += (f", {_compare(loc, base, 'higher than', 'lower than')} its {fmt(base[0])} on CodeScore_test"
                 + (f" ({loc[0] / base[0]:.1f} times)" if base[0] > 0 else ""))
    else:
        text += " (CodeScore_test not run: no comparison with existing data)"
    if const is not None:
        text += (f", and it is {_compare(loc, const, 'worse than', 'better than')} a constant score "
                 f"({fmt(const[0])}) there")
    cems = table[(table.quantity == "MAE on LoCaL") & table.metric.isin(CEM_LABELS)]
    if len(cems) and column not in CEM_LABELS:
        beaten = int((cems["value"] < loc[0]).sum())
        text += f"; {beaten} of the {len(cems)} CEMs have a lower MAE on LoCaL"
    return text + "."
