"""Table 1 (datasets used to construct LoCaL), the task profile, and Figure 2 (literature
survey): the computations behind notebook ``00_data``.

Table 1's columns follow the paper: source benchmark, number of original problems (# Ori.),
number selected (k), test cases per problem, whether an NL description exists, and level.
"Test cases per problem" counts the benchmark's own tests for the *selected* tasks: the
``assert`` statements of HumanEval's ``check``, MBPP's ``test_list``, APPS's example inputs
(the only APPS tests available offline), and none for PIE (its tests live in CodeNet).
"""

from __future__ import annotations

import ast
import statistics
import sys
from dataclasses import dataclass

import pandas as pd

from lcl.core import claim_links
from lcl.core.claim_links import PAPER_CEMS, Link
from lcl.core.records import Task

from . import loaders, sources

PAPER_BENCH = {"HumanEval": "HumanEval", "MBPP": "MBPP", "APPS": "APPS", "PIE": "PIE"}

TABLE1 = "table1_datasets"
_COUNT = "a count of a fixed public benchmark: no sampling, so no uncertainty; it must match (within 0.5)"
_TESTS = ("a mean of per-problem test counts over a fixed selection: no sampling, so no uncertainty; "
          "within 0.5 tests per problem")
#: Table 1's claims: per benchmark, # Ori., k and test cases per problem
CLAIMS: list[Link] = [
    Link(f"T1.{pb}.{suffix}", TABLE1, "Benchmark", b, column, tolerance=0.5,
         tolerance_reason=_TESTS if suffix == "tests" else _COUNT)
    for b, pb in PAPER_BENCH.items()
    for suffix, column in (("orig", "# Ori."), ("k", "k"), ("tests", "# Test cases/problem"))
]


@dataclass
class BenchmarkSummary:
    benchmark: str
    available: bool
    n_original: int
    n_selected: int
    tests_per_problem: float | None
    has_description: bool | None
    level: str
    rejected: list[loaders.Rejected]
    selected: list[Task]


def summarise(benchmark: str) -> BenchmarkSummary:
    """Load one benchmark, apply the paper's selection, count tests (Table 1 row)."""
    level = loaders.LEVEL[benchmark]
    if not loaders.benchmark_available(benchmark):
        return BenchmarkSummary(benchmark, False, 0, 0, None, None, level, [], [])
    res = loaders.LOADERS[benchmark]()
    chosen = loaders.select(benchmark, res.tasks)
    n_orig = len(res.tasks) + len(res.rejected)
    tests = statistics.fmean(t.n_tests for t in chosen) if chosen else None
    desc = any(t.description for t in chosen) if benchmark != "APPS" else True  # APPS statements exist upstream
    return BenchmarkSummary(benchmark, True, n_orig, len(chosen), tests, desc, level, res.rejected, chosen)


def summarise_all() -> list[BenchmarkSummary]:
    """:func:`summarise` of Table 1's four benchmarks, in the paper's order."""
    return [summarise(b) for b in PAPER_BENCH]


def table1(summaries: list[BenchmarkSummary]) -> pd.DataFrame:
    """Table 1 with our values next to the paper's."""
    rows = []
    for s in summaries:
        rows.append({
            "Benchmark": s.benchmark,
            "# Ori.": s.n_original if s.available else None,
            "k": s.n_selected if s.available else None,
            "# Test cases/problem": round(s.tests_per_problem, 1) if s.tests_per_problem is not None else None,
            "NL description?": ("Yes" if s.has_description else "No") if s.available else None,
            "Level": s.level.capitalize(),
            "rejected (ast.parse)": len(s.rejected) if s.available else None,
            "status": "ok" if s.available else "skipped: source not available",
        })
    return claim_links.add_paper_columns(pd.DataFrame(rows), CLAIMS, TABLE1)


def table1_notes(summaries: list[BenchmarkSummary]) -> list[str]:
    """Explanations of every deviation from the paper and every rejected row."""
    notes = [
        "HumanEval tests: `assert` statements in `check(candidate)` (the paper's 7.7 is the figure "
        "quoted by the HumanEval paper; some asserts sit in loops, so statement counts differ).",
        "APPS: the full APPS test split (solutions, ~21 tests each) is not obtainable offline; "
        "# Ori. counts the APPS problems whose reference is available here (published LoCaL pairs "
        "and CodeScore_test), tests are the statement's example inputs.",
        "PIE: # Ori. counts slow/fast pairs; k = the 100 pairs with the longest slow program; PIE "
        "ships no tests here (its 104 per problem live in CodeNet).",
    ]
    for s in summaries:
        if not s.available:
            notes.append(f"{s.benchmark}: skipped, its raw source is not available (`lcl data status`).")
        for r in s.rejected:
            notes.append(f"{s.benchmark} {r.task_id} excluded ({r.file.rsplit('/', 2)[-2:][-1]}:{r.line}): {r.reason}")
    return notes


# ----------------------------------------------------------------------------- task profile
def dependency_kind(code: str) -> str:
    """``self-contained`` (no imports), ``stdlib`` or ``third-party`` (Code2Bench-style)."""
    mods: set[str] = set()
    try:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                mods.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                mods.add(node.module.split(".")[0])
    except SyntaxError:
        return "unparsable"
    if not mods:
        return "self-contained"
    return "stdlib" if mods <= set(sys.stdlib_module_names) else "third-party"


def cyclomatic(code: str) -> int:
    """Total cyclomatic complexity (radon): module-level code plus every function."""
    from radon.visitors import ComplexityVisitor

    try:
        return int(ComplexityVisitor.from_code(code).total_complexity)
    except (SyntaxError, ValueError):
        return 0


def task_profile(summaries: list[BenchmarkSummary]) -> pd.DataFrame:
    """Per benchmark (selected tasks): mean LOC, mean cyclomatic complexity, dependency mix."""
    rows = []
    for s in summaries:
        if not s.available or not s.selected:
            continue
        kinds = pd.Series([dependency_kind(t.reference) for t in s.selected]).value_counts()
        n = len(s.selected)
        rows.append({
            "Benchmark": s.benchmark,
            "tasks": n,
            "mean LOC": round(statistics.fmean(loaders.loc(t.reference) for t in s.selected), 1),
            "mean cyclomatic complexity": round(statistics.fmean(cyclomatic(t.reference) for t in s.selected), 2),
            "self-contained %": round(100 * kinds.get("self-contained", 0) / n, 1),
            "stdlib imports %": round(100 * kinds.get("stdlib", 0) / n, 1),
            "third-party imports %": round(100 * kinds.get("third-party", 0) / n, 1),
            "mean seed inputs": round(statistics.fmean(len(t.seed_inputs) for t in s.selected), 1),
        })
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Figure 2
METRIC_ORDER = list(PAPER_CEMS)


def survey_counts() -> pd.DataFrame | None:
    """Publications per year per metric from the literature survey (None when unavailable)."""
    if not sources.available("literature_survey"):
        return None
    frame = pd.read_csv(sources.raw_path("literature_survey"))
    counts = frame.groupby(["year", "metric"]).size().unstack(fill_value=0)
    return counts.reindex(columns=[m for m in METRIC_ORDER if m in counts.columns]).sort_index()


def figure2(counts: pd.DataFrame):
    """Figure 2: number of publications using each CEM per year (grouped bars)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    width = 0.8 / len(counts.columns)
    years = list(counts.index)
    for i, metric in enumerate(counts.columns):
        xs = [y + (i - (len(counts.columns) - 1) / 2) * width for y in years]
        bars = ax.bar(xs, counts[metric], width=width, label=metric)
        ax.bar_label(bars, fontsize=7, padding=1)
    ax.set_xticks(years, [str(y) for y in years])
    ax.set_xlabel("Year")
    ax.set_ylabel("Publications")
    ax.set_title("Publications using each code evaluation metric (literature survey)")
    ax.legend(frameon=False, ncol=2, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def unavailable_figure(title: str, reason: str):
    """A placeholder figure that says why a figure could not be drawn (keeps builds complete)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 2.0))
    ax.axis("off")
    ax.text(0.5, 0.6, title, ha="center", fontsize=11, weight="bold")
    ax.text(0.5, 0.3, reason, ha="center", fontsize=9, color="#a40", wrap=True)
    return fig


def found(summaries: list[BenchmarkSummary], table: pd.DataFrame, counts: pd.DataFrame | None) -> list[str]:
    """Notebook 00's sentences: per benchmark, Table 1's counts beside the paper's and the references
    ``ast.parse`` rejected (or that the source was skipped); the survey's size and most used metric."""
    rows = table.set_index("Benchmark")
    lines = []
    for s in summaries:
        if not s.available:
            lines.append(f"- **{s.benchmark}**: skipped (raw source not available here).")
            continue
        row = rows.loc[s.benchmark]
        lines.append(
            f"- **{s.benchmark}**: {row['# Ori.']} original (paper {row['# Ori. (paper)']}), {row['k']} selected "
            f"(paper {row['k (paper)']}), {row['# Test cases/problem']} tests per problem "
            f"(paper {row['# Test cases/problem (paper)']}), {len(s.rejected)} references rejected by `ast.parse`.")
    if counts is not None:
        top = counts.sum().idxmax()
        lines.append(f"- The survey counts {int(counts.values.sum())} publications; the most used metric is "
                     f"**{top}** ({int(counts[top].sum())}).")
    return lines
