"""``lcl evaluate``: a metric's report card. Synthetic pair sets keep these tests to seconds; one
test runs the command on the quick (or smoke) profile's built outputs when they exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lcl.report import card_pages, report_card
from lcl.rq import distinguish
from lcl.core import paths, profiles
from lcl.rq import effectiveness as eff
from lcl.cli import main
from lcl.core.errors import UserError

from .conftest import ROOT

CEMS = list(report_card.CEM_LABELS)
TEST = "Toy under test"
SMOKE = profiles.get("smoke")


def _pairs(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """LoCaL-all-like pairs: mutants look alike (high SurfaceSim) with df 0 or 1, optimised variants
    look different with df near 1; the CEMs follow SurfaceSim; the metric under test is noisy."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        mut = i % 2 == 0
        df = float(i % 4 == 0) if mut else float(rng.uniform(0.7, 1.0))
        sim = float(rng.uniform(0.75, 1.0) if mut else rng.uniform(0.0, 0.5))
        row = {"id": f"HumanEval/{i % 5}~{'MUT' if mut else 'OPT'}{i}", "dataset": "LoCaL",
               "benchmark": "HumanEval" if i % 3 else "MBPP", "task": f"T{i % 5}", "level": "function",
               "variant_type": "MUT" if mut else "OPT", "lang": "python", "reference": f"def f(x):\n    return x + {i}\n",
               "candidate": f"def f(x):\n    return x - {i}\n", "df_score": df, "operator": f"op{i % 2}",
               "in_local": (df < 0.5) if mut else (df > 0.5), "SurfaceSim": sim}
        for j, c in enumerate(CEMS):
            row[c] = float(np.clip(sim + rng.normal(0, 0.05 * (j + 1)), 0, 1))
        row[TEST] = float(rng.uniform(0, 1))
        rows.append(row)
    return pd.DataFrame(rows)


def _sets() -> dict[str, pd.DataFrame]:
    la = _pairs(48, 0)
    cst = _pairs(30, 1).assign(id=lambda f: "CST/" + f["id"], in_local=True)
    return {"LoCaL-all": la, "LoCaL": eff.in_local(la), "CodeScore_test": cst}


def _cand(java: bool = False) -> report_card.Candidate:
    return report_card.Candidate("toy:score", TEST, "1", None, java=java)


# ----------------------------------------------------------------------------- the card's numbers
def test_the_card_reuses_table5_and_the_statistics_use_only_scored_pairs() -> None:
    sets = _sets()
    sets["LoCaL-all"].loc[[1, 2], TEST] = np.nan  # two pairs the metric failed on
    card = report_card.assemble(_cand(), sets, [], {}, None, SMOKE, 7)
    t = card.table
    loc = eff.in_local(sets["LoCaL-all"])
    ref = eff.table5({"LoCaL": loc}, [TEST], 7).set_index("Dataset").loc["LoCaL"]
    row = t[(t.quantity == "MAE on LoCaL") & (t.metric == TEST)].iloc[0]
    assert row["value"] == ref[TEST] and (row["ci_low"], row["ci_high"]) == (ref[f"{TEST} CI low"], ref[f"{TEST} CI high"])
    assert row["n"] == loc[TEST].notna().sum() < len(loc)
    assert set(t.section) >= {"table5", "by_benchmark", "rq3", "x3", "x4"}
    assert card.columns == [*CEMS, TEST]
    assert (t[(t.section == "table5")].metric == eff.CONSTANT).any()  # the trivial model beside them


def test_rq3_badly_wrong_counts_scores_on_the_far_side_of_the_thresholds() -> None:
    from lcl.engine.regions import Thresholds

    th = Thresholds(0.4, 0.7, 0.3, 0.8, float("nan"), 0.05, "test")
    f = pd.DataFrame({"SurfaceSim": [0.9, 0.9, 0.9, 0.1, 0.1, 0.5], "df_score": [0.0, 0.1, 0.2, 1.0, 0.9, 0.5],
                      "m": [0.95, 0.5, np.nan, 0.1, 0.9, 0.0]})
    # SFD: rows 0-2 (row 2 not scored): row 0 scored >= y_hi; DFS: rows 3, 4: row 3 scored <= y_lo
    assert report_card.badly_wrong(f, "m", th) == {"SFD": (2, 1), "DFS": (2, 1)}


def test_rq2_uses_table4_and_leaves_out_pairs_a_metric_did_not_score() -> None:
    rng = np.random.default_rng(3)
    ids = [f"p{i}" for i in range(30)]
    scored = pd.DataFrame({"id": ids, CEMS[0]: rng.uniform(0, 1, 30), TEST: rng.uniform(0, 1, 30)})
    scored.loc[0, TEST] = np.nan
    reps = [distinguish.Repetition(r, r, [{"id": i} for i in ids[:10]], [{"id": i} for i in ids[10:20]],
                                   [{"id": i} for i in ids[20:]]) for r in range(2)]
    t = report_card.rq2_section(scored, reps, [CEMS[0], TEST])
    want = distinguish.table4(distinguish.repetition_scores(scored, reps, columns=[CEMS[0]])).iloc[0]
    got = t[(t.metric == CEMS[0]) & (t.quantity == "d on ds_orig")].iloc[0]
    assert got["value"] == pytest.approx(want["d orig"]) and got["std"] == pytest.approx(want["d orig std"])
    assert t[(t.metric == TEST)]["n"].iloc[0] == 9  # one equivalent pair without a score
    assert np.isfinite(t[(t.metric == TEST)]["value"]).all()


def test_the_verdict_is_computed_from_the_intervals() -> None:
    def table(loc: tuple, cst: tuple, const: tuple) -> pd.DataFrame:
        rows = [("MAE on LoCaL", TEST, *loc), ("MAE on CodeScore_test", TEST, *cst), ("MAE on LoCaL", eff.CONSTANT, *const)]
        return pd.DataFrame([{"section": "table5", "quantity": q, "metric": m, "value": v, "ci_low": lo, "ci_high": hi}
                             for q, m, v, lo, hi in rows], columns=report_card.LONG_COLUMNS)

    worse = report_card.verdict(table((0.5, 0.45, 0.55), (0.2, 0.15, 0.25), (0.3, 0.28, 0.32)), TEST)
    assert "higher than its 0.20 on CodeScore_test (2.5 times)" in worse and "worse than a constant score" in worse
    same = report_card.verdict(table((0.3, 0.2, 0.4), (0.28, 0.2, 0.35), (0.6, 0.55, 0.65)), TEST)
    assert "about the same as" in same and "better than a constant score" in same
    assert report_card.verdict(pd.DataFrame(columns=report_card.LONG_COLUMNS), TEST).startswith("No verdict")


# ----------------------------------------------------------------------------- the pages and the leaderboard
def test_the_pages_provenance_and_a_leaderboard_that_a_second_run_adds_to(tmp_root: Path) -> None:
    card = report_card.assemble(_cand(), _sets(), [], {"rq1": "PIE absent"}, None, SMOKE, 7)
    card.failures = [{"pair": "HumanEval/1~OPT1", "error": "ValueError: boom"}]
    out = tmp_root / "card"
    written = card_pages.write(card, out)
    assert {p.name for p in written} == {"card.json", "card.md", "card.html", "leaderboard.csv"}
    data = json.loads((out / "card.json").read_text())
    assert data["failed_pairs"] == 1 and data["not_run"] == {"rq1": "PIE absent", "x2": card.not_run["x2"]}
    assert data["verdict"] == card.verdict and data["metric"]["label"] == TEST
    page = (out / "card.html").read_text()
    assert "data:image/png;base64," in page and card.verdict in page.replace("&#x27;", "'")
    assert "raised on 1 pairs" in (out / "card.md").read_text()
    side = json.loads((out / "card.json.provenance.json").read_text())
    assert side["profile"] == "smoke" and side["seed"] == 7 and side["metric"]["version"] == "1"
    board = pd.read_csv(paths.leaderboard())
    assert sorted(board.metric) == sorted([*CEMS, TEST])
    card_pages.write(card, out)  # the same metric again: its rows are replaced
    assert len(pd.read_csv(paths.leaderboard())) == 5
    other = report_card.assemble(report_card.Candidate("b:score", "Other", "2", None, java=False),
                                 {k: v.assign(Other=v[TEST]) for k, v in _sets().items()}, [], {}, None, SMOKE, 7)
    card_pages.write(other, tmp_root / "other")
    assert "Other" in set(pd.read_csv(paths.leaderboard()).metric) and len(pd.read_csv(paths.leaderboard())) == 6


# ----------------------------------------------------------------------------- the metric's errors
def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, body: str) -> str:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    sys.modules.pop(name, None)
    return f"{name}:score"


def _frames(n: int = 6) -> dict[str, tuple[pd.DataFrame, str]]:
    f = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "reference": [f"x = {i}" for i in range(n)],
                      "candidate": [f"y = {i}" for i in range(n)]})
    return {"LoCaL-all": (f, "python")}


@pytest.mark.parametrize(("name", "body", "message"), [
    ("rc_count", "def score(r, c, lang):\n    return [0.5]\n", "returned 1 scores for 6 pairs"),
    ("rc_nan", "def score(r, c, lang):\n    return [float('nan') if 'x = 3' in a else 0.5 for a in r]\n",
     "returned NaN for pair 'p3'"),
    ("rc_range", "def score(r, c, lang):\n    return [1.5 for a in r]\n", "outside [0, 1]"),
])
def test_a_metric_that_breaks_the_contract_stops_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              name: str, body: str, message: str) -> None:
    spec = _module(tmp_path, monkeypatch, name, body)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("]", r"\]")):
        report_card.score_candidate(report_card.candidate(spec), _frames(), progress=False)


def test_a_metric_that_raises_on_some_pairs_is_scored_pair_by_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _module(tmp_path, monkeypatch, "rc_raises", """
        def score(r, c, lang):
            if any("x = 2" in a or "x = 4" in a for a in r):
                raise ValueError("cannot tokenise\\n this one")
            return [0.25 for _ in r]
    """)
    got = report_card.score_candidate(report_card.candidate(spec), _frames(), progress=False)
    assert sorted(k[0] for k in got.failed) == ["p2", "p4"]
    assert all(v == "ValueError: cannot tokenise this one" for v in got.failed.values())
    assert sorted(k[0] for k in got.values) == ["p0", "p1", "p3", "p5"] and set(got.values.values()) == {0.25}


def test_a_metric_that_raises_on_every_pair_is_broken_not_partly_failing(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _module(tmp_path, monkeypatch, "rc_signature", "def score(r, c):\n    return [0.5 for _ in r]\n")
    with pytest.raises(UserError, match=r"raised on each of the first 6 pairs, e\.g\. TypeError"):
        report_card.score_candidate(report_card.candidate(spec), _frames(), progress=False)


def test_java_is_scored_only_when_the_metric_declares_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _module(tmp_path, monkeypatch, "rc_plain", "def score(r, c, lang):\n    return [0.5 for _ in r]\n")
    java = _module(tmp_path, monkeypatch, "rc_java",
                   "languages = ('python', 'java')\ndef score(r, c, lang):\n    return [0.5 for _ in r]\n")
    assert not report_card.candidate(plain).java and report_card.candidate(java).java
    frames = {**_frames(2), "ShareCode_java": (_frames(3)["LoCaL-all"][0].assign(id=lambda f: "J" + f["id"]), "java")}
    assert len(report_card.score_candidate(report_card.candidate(plain), frames, progress=False).values) == 2
    assert len(report_card.score_candidate(report_card.candidate(java), frames, progress=False).values) == 5


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(["evaluate", *args, "--no-progress"])
    err = capsys.readouterr().err.strip()
    return rc, err


def test_a_metric_that_cannot_be_imported_says_how_to_make_it_importable(tmp_path: Path, capsys,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rc, err = _cli(["--metric", "no_such_metric_module:score", "--profile", "smoke"], capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and "PYTHONPATH" in err and "current folder" in err
    (tmp_path / "rc_broken.py").write_text("def score(r, c, lang):\n    return [\n")
    rc, err = _cli(["--metric", "rc_broken:score", "--profile", "smoke"], capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and "rc_broken.py:2" in err and "SyntaxError" in err


def test_a_profile_that_is_not_built_says_to_run_make_all(tmp_root: Path, capsys) -> None:
    rc, err = _cli(["--metric", "examples.toy_metric:score", "--profile", "smoke"], capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and "make all PROFILE=smoke" in err


def test_a_wrong_count_through_the_command_is_one_line_and_exit_2(tmp_path: Path, capsys,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _module(tmp_path, monkeypatch, "rc_cli_count", "def score(r, c, lang):\n    return [0.5, 0.5]\n")
    monkeypatch.setattr(report_card, "check_built", lambda profile: {"seed": 1})
    monkeypatch.setattr(report_card, "inputs", lambda P, seed, jobs: report_card.Inputs(_frames(), {}, []))
    rc, err = _cli(["--metric", spec, "--profile", "smoke"], capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and "returned 2 scores for 6 pairs" in err


# ----------------------------------------------------------------------------- on a built profile
def _built() -> str | None:
    for profile in ("smoke", "quick"):
        if paths.local_pairs(profile).exists() and paths.codescore_base_record(profile).exists():
            return profile
    return None


def _as_a_user_runs_it(tmp_path: Path) -> dict[str, str]:
    """The environment of `lcl evaluate` run by hand on this checkout's build (no test settings, the
    label archive on, the content cache .cache, the data mirror), but with its root a view of the
    checkout in ``tmp_path`` (a link to each entry) whose build/evaluate/ is empty: the command adds
    its rows to build/evaluate/leaderboard.csv whatever --out says, and a test writes only under
    temporary folders."""
    root = paths.root()
    view = tmp_path / "checkout"
    (view / "build").mkdir(parents=True)
    for entry in root.iterdir():
        if entry.name != "build":
            (view / entry.name).symlink_to(entry)
    for entry in (root / "build").iterdir():
        if entry.name != "evaluate":
            (view / "build" / entry.name).symlink_to(entry)
    mirror = paths.mirror()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LCL_", "PYTEST"))}
    return env | {"LCL_ROOT": str(view), "LCL_CACHE": str(root / ".cache"),
                  "LOCAL_DATA_MIRROR": str(mirror) if mirror else ""}


@pytest.mark.slow
def test_the_toy_metric_on_a_built_profile(tmp_path: Path) -> None:
    profile = _built()
    if profile is None:
        pytest.skip("no smoke or quick outputs here: run 'make all PROFILE=quick' first")
    env = _as_a_user_runs_it(tmp_path / "view")
    r = subprocess.run([str(ROOT / ".venv" / "bin" / "lcl"), "evaluate", "--metric", "examples.toy_metric:score",
                        "--profile", profile, "--out", str(tmp_path), "--no-progress"],
                       cwd=ROOT, capture_output=True, text=True, timeout=1200, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    card = json.loads((tmp_path / "card.json").read_text())
    mae = [x for x in card["results"] if x["quantity"] == "MAE on LoCaL" and x["metric"] == "Token Jaccard (toy)"]
    assert mae and 0 <= mae[0]["value"] <= 1 and card["verdict"].startswith("On LoCaL, Token Jaccard (toy)")
    assert (tmp_path / "card.html").exists() and card["failed_pairs"] == 0


# ----------------------------------------------------------------------------- the CEMs' numbers on a card
_CARDS: dict[str, dict] = {}


def _cem_card(profile: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The card of CodeBLEU on ``profile`` (its CEM rows are what every card shows beside a metric),
    computed once per session, as a user runs it (the label archive on, no test settings)."""
    if profile not in _CARDS:
        out = tmp_path_factory.mktemp(f"card_{profile}")
        env = _as_a_user_runs_it(tmp_path_factory.mktemp(f"view_{profile}"))
        r = subprocess.run([str(ROOT / ".venv" / "bin" / "lcl"), "evaluate", "--metric", "codebleu", "--profile",
                            profile, "--out", str(out), "--no-progress"],
                           cwd=ROOT, capture_output=True, text=True, timeout=3600, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        _CARDS[profile] = json.loads((out / "card.json").read_text())
    return _CARDS[profile]


def _value(card: dict, quantity: str, metric: str) -> dict:
    rows = [r for r in card["results"] if r["quantity"] == quantity and r["metric"] == metric]
    assert len(rows) == 1, (quantity, metric)
    return rows[0]


def _own_table(profile: str, name: str) -> pd.DataFrame:
    """``tables/<name>.csv`` when the last build of this checkout made it at ``profile``, else skip."""
    path = paths.tables() / f"{name}.csv"
    side = Path(str(path) + ".provenance.json")
    if not path.exists() or not side.exists() or json.loads(side.read_text()).get("profile") != profile:
        pytest.skip(f"tables/{name}.csv was not built at profile {profile} in this checkout")
    return pd.read_csv(path)


def _need(profile: str) -> None:
    if not (paths.local_pairs(profile).exists() and paths.codescore_base_record(profile).exists()):
        pytest.skip(f"profile {profile} is not built here: run 'make all PROFILE={profile}' first")


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["quick", "full"])
def test_the_cems_on_a_card_are_the_notebooks_own_numbers(profile: str, tmp_path_factory) -> None:
    """Tables 3, 4 and 5 and the studies' X2-X4 tables as this checkout's build wrote them, and the same
    rows on a card: equal."""
    _need(profile)
    t5, t3 = _own_table(profile, "table5_mae").set_index("Dataset"), _own_table(profile, "table3_correlation")
    sens = _own_table(profile, "table5_sensitivity").set_index("Dataset")
    t5 = pd.concat([t5, sens.loc[["LoCaL-all"]]])  # LoCaL-all: notebook 06's sensitivity table
    t4 = _own_table(profile, "table4_distinguishability").set_index("metric")
    card = _cem_card(profile, tmp_path_factory)
    for ds in report_card.T5_ORDER:
        for m in CEMS:
            if ds not in t5.index or pd.isna(t5.loc[ds, m]):
                continue
            got = _value(card, f"MAE on {ds}", m)
            # a row of one pair has no interval: the card writes null where the table has NaN
            have = tuple(float("nan") if got[k] is None else got[k] for k in ("value", "ci_low", "ci_high"))
            assert have == pytest.approx((t5.loc[ds, m], t5.loc[ds, f"{m} CI low"], t5.loc[ds, f"{m} CI high"]),
                                         abs=1e-9, nan_ok=True), (ds, m)
    for _, r in t3[t3.rho.notna()].iterrows():
        got = _value(card, "rho with SurfaceSim", r["Metric"])
        assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx((r["rho"], r["CI low"], r["CI high"]),
                                                                             abs=1e-9)
    for m in [c for c in CEMS if c in t4.index]:
        for q, col in (("d on ds_orig", "d orig"), ("d on ds_replaced", "d repl"), ("drop of d (%)", "drop %")):
            assert _value(card, q, m)["value"] == pytest.approx(t4.loc[m, col], rel=1e-9, abs=1e-9), (m, q)
    _studies_agree(card, profile)


def _same(got: dict, want: pd.Series, value: str, low: str, high: str) -> None:
    assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx((want[value], want[low], want[high]),
                                                                         abs=1e-9)


def _studies_agree(card: dict, profile: str) -> None:
    """X2's shifts, X3's within-group AUROC and X4's ECE of the CEMs, as notebooks 10 and 11 wrote them."""
    x2 = _own_table(profile, "x2_robustness")
    for _, r in x2[x2.metric.isin(CEMS) & ~x2.perturbation.str.endswith("]")].iterrows():
        _same(_value(card, f"{r['kind']} {r['side']}: {r['perturbation']}", r["metric"]), r,
              "shift", "shift_ci_low", "shift_ci_high")
    x3 = _own_table(profile, "x3_auroc")
    for _, r in x3[(x3.benchmark == "all") & x3.metric.isin(CEMS)].iterrows():
        _same(_value(card, "AUROC within groups", r["metric"]), r, "auroc_within", "auroc_within_ci_low",
              "auroc_within_ci_high")
    x4 = _own_table(profile, "x4_ece")
    for _, r in x4[(x4.grouping == "all") & x4.metric.isin(CEMS)].iterrows():
        _same(_value(card, f"ECE on {r['dataset']}", r["metric"]), r, "ece", "ece_ci_low", "ece_ci_high")


@pytest.mark.slow
def test_the_cems_on_a_full_card_reproduce_the_recorded_table5(tmp_path_factory) -> None:
    """The full profile's card against Table 5 as recorded from a full run (data/reference/expected/full),
    within the tolerance ``make verify`` allows that table (the substitutes are not bit-stable across CPUs)."""
    from lcl.report import verify

    _need("full")
    rec = pd.read_csv(verify.expected_dir("full") / "table5_mae.csv").set_index("Dataset")
    tol = verify.table_tolerance("table5_mae")
    card = _cem_card("full", tmp_path_factory)
    for ds in report_card.T5_ORDER:
        for m in CEMS:
            if ds not in rec.index or pd.isna(rec.loc[ds, m]):
                continue
            got = _value(card, f"MAE on {ds}", m)
            atol = tol.rule("", m).atol  # exact for CodeBLEU and CrystalBLEU, measured spread for a substitute
            assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx(
                (rec.loc[ds, m], rec.loc[ds, f"{m} CI low"], rec.loc[ds, f"{m} CI high"]), abs=atol), (ds, m)
            assert got["n"] == rec.loc[ds, "n"], (ds, m)


def test_x2_is_notebook_10s_shift_table_on_its_own_sample_sizes() -> None:
    from lcl.rq import robustness as rb

    defaults = report_card.notebook_defaults(report_card.X2_NOTEBOOK)
    assert isinstance(defaults["opt_pairs"], int) and isinstance(defaults["mut_pairs"], int)
    assert defaults["profile"] == "full"  # every literal of the parameters cell, nothing else
    rng = np.random.default_rng(5)
    n = 12
    pairs = pd.DataFrame({"id": [f"p{i % 6}" for i in range(n)], "kind": "OPT",
                          "side": ["variant"] * 6 + ["reference"] * 6,
                          "perturbation": ["rename_identifiers"] * 3 + ["dead_code [vs stored reference]"] * 3
                          + ["dead_code"] * 6})
    before = pd.DataFrame({c: rng.uniform(0, 1, n) for c in [CEMS[0], TEST]})
    after = before + rng.normal(0, 0.1, (n, 2))
    sets = {"X2 (before)": before, "X2 (after)": after}
    t = report_card.x2_section(pairs, sets, [CEMS[0], TEST], SMOKE, 3)
    scored = pairs.assign(**{f"{c}:before": before[c] for c in before}, **{f"{c}:after": after[c] for c in after})
    want = rb.shift_table(scored, n_boot=SMOKE.bootstrap, seed=3)
    want = want[~want.perturbation.str.endswith(rb.STORED)]
    assert len(t) == len(want) == 4 and not t.quantity.str.contains("stored").any()
    got = t.set_index(["quantity", "metric"])["value"]
    for _, r in want.iterrows():
        assert got[(f"OPT {r['side']}: {r['perturbation']}", r["metric"])] == r["shift"]


def test_without_the_mirror_the_sets_it_holds_are_not_run_and_the_verdict_says_so() -> None:
    sets = {k: v for k, v in _sets().items() if k != "CodeScore_test"}
    why = {"CodeScore_test": "needs the local data mirror", "rq1": "PIE needs the mirror", "rq2": "PIE needs the mirror"}
    card = report_card.assemble(_cand(), sets, [], why, None, SMOKE, 7)
    assert {"CodeScore_test", "rq1", "rq2"} <= set(card.not_run)
    assert "CodeScore_test not run" in card.verdict
    assert not (card.table.quantity == "MAE on CodeScore_test").any()
    const = card.table[(card.table.metric == eff.CONSTANT) & (card.table.quantity == "MAE on LoCaL")]
    assert const["value"].isna().all()  # the trivial model's score is CodeScore_test's mean label


def test_an_external_file_may_leave_pairs_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    scores = tmp_path / "judge.jsonl"
    scores.write_text("".join(json.dumps({"id": f"p{i}", "score": 0.1 * i}) + "\n" for i in range(4)))
    cand = report_card.candidate(f"external:{scores}")
    got = report_card.score_candidate(cand, _frames(6), progress=False)
    assert sorted(k[0] for k in got.missing) == ["p4", "p5"] and len(got.values) == 4 and not got.failed
    assert cand.java  # matched by id: whatever the file scores is used


def _card_table(text: str, heading: str) -> pd.DataFrame:
    """The first Markdown table after ``heading`` in a card, cells as text."""
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    rows = []
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return pd.DataFrame(rows[2:], columns=rows[0]).set_index(rows[0][0])


@pytest.mark.parametrize("name", ["codebleu", "crystalbleu", "codebertscore", "codescore_style"])
def test_the_cem_cards_in_docs_match_the_recorded_full_table5(name):
    """docs/cards/ holds each CEM's card at the full profile; a recorded Table 5 that moved makes it stale."""
    card = (ROOT / "docs" / "cards" / f"{name}.md").read_text()
    recorded = pd.read_csv(ROOT / "data/reference/expected/full/table5_mae.csv").set_index("Dataset")
    table = _card_table(card, "## Table 5 (Section 4.6)")
    checked = 0
    for metric in table.index:
        for dataset in ("LoCaL", "LoCaL_opt", "LoCaL_mut", "CodeScore_test"):
            shown = float(table.loc[metric, f"MAE on {dataset}"].split()[0])
            assert shown == pytest.approx(float(recorded.loc[dataset, metric]), abs=5e-4), (name, metric, dataset)
            checked += 1
    assert checked == 20  # the four CEMs and the constant score on four sets
    provenance = json.loads((ROOT / "docs" / "cards" / f"{name}.md.provenance.json").read_text())
    assert provenance["metric"]["spec"] == name
