"""What a reader meets: tables formatted for reading, figures and stderr handled by the runner, a
notebook run by hand that cannot overwrite a build, guarded sentences, the Makefile's handling of
a mistyped profile and of a failed run, `make lab`, and README recipes that run as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from lcl.core import paths
from lcl.engine import stats
from lcl.report import display, outputs, runner
from lcl.study import sources

from .conftest import ROOT


# ----------------------------------------------------------------------------- tables
def test_readable_puts_each_ci_beside_its_value_and_the_status_first():
    table = pd.DataFrame({"Metric": ["CodeBLEU"], "n": [60], "rho": [0.77123], "rho (paper)": [0.8],
                          "p-value": [1.139065e-16], "CI low": [0.7612], "CI high": [0.7801],
                          "MAE": [0.25], "MAE CI low": [0.2], "MAE CI high": [0.3], "status": ["within tolerance"]})
    shown = display.readable(table)
    assert list(shown.columns) == ["status", "Metric", "n", "rho [95% CI]", "rho (paper)", "p-value", "MAE [95% CI]"]
    assert shown.loc[0, "rho [95% CI]"] == "0.771 [0.761, 0.78]"
    assert shown.loc[0, "MAE [95% CI]"] == "0.25 [0.2, 0.3]"
    assert shown.loc[0, "p-value"] == "1.14e-16"
    assert shown.loc[0, "n"] == "60"


def test_paper_columns_are_named_after_the_metric_the_paper_ran():
    assert display.paper_name("CodeBERTScore[MiniLM] (paper)") == "CodeBERTScore (paper)"
    assert display.paper_name("CodeScore-style (retrained) (paper)") == "CodeScore (paper)"
    assert display.paper_name("CodeBERTScore[MiniLM]") == "CodeBERTScore[MiniLM]"  # ours keeps its label
    assert stats.number(float("nan")) == "—" and stats.with_ci(0.5, None, 0.7) == "0.5"


def test_not_computed_names_the_skipped_sources(tmp_root: Path):
    stamp = paths.verified_stamp()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"available": {"humaneval": "registry"}, "skipped": {"pie": "no mirror",
                                                                                      "apps": "no mirror"}}))
    line = sources.not_computed("Spearman on 0 equivalent PIE pairs")
    assert line.startswith("- **Not computed:** Spearman on 0") and "apps, pie" in line


# ----------------------------------------------------------------------------- runner
def test_stderr_moves_to_a_log_and_errors_results_and_figures_stay(tmp_path: Path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text="bar: 100%|##| 3/3 [00:01<00:00]\n"),
                    nbformat.v4.new_output("stream", name="stdout", text="hello\n"),
                    nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
                    nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=[])]
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert runner.move_stderr_to_log(path, tmp_path / "nb.stderr.log") == 1
    kept = [o["output_type"] + o.get("name", "") for o in nbformat.read(path, as_version=4).cells[1].outputs]
    assert kept == ["streamstdout", "display_data", "error"]
    log = (tmp_path / "nb.stderr.log").read_text()
    assert log.startswith(runner.LOG_CELL_HEADER.format(index=1, count=None)) and "bar: 100%" in log


def test_a_notebook_run_by_hand_never_writes_into_the_builds_outputs(tmp_root: Path, monkeypatch):
    monkeypatch.delenv("LCL_NOTEBOOK", raising=False)
    monkeypatch.setenv("LCL_PROFILE", "quick")
    # the executed notebook's injected parameters name the build's own folders
    t, f = outputs.output_dirs(str(paths.tables()), str(paths.figures()))
    assert paths.interactive_outputs("quick") in t.parents and paths.interactive_outputs("quick") in f.parents
    monkeypatch.setenv("LCL_NOTEBOOK", "03_rq1_correlation")  # what lcl.report.runner sets
    assert outputs.output_dirs(str(paths.tables()), "") == (paths.tables(), paths.figures())


# ----------------------------------------------------------------------------- Makefile
def _make(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_a_mistyped_profile_stops_with_one_line_before_anything_runs():
    r = _make("all", "PROFILE=qick", "-n")
    assert r.returncode != 0 and r.stdout == ""
    assert re.fullmatch(r"Makefile:\d+: \*\*\* PROFILE=qick is not a profile; choose one of: full quick smoke\.  Stop\.\n",
                        r.stderr), r.stderr


def _fake_project(tmp_path: Path, extra: str = "") -> Path:
    """A copy of the Makefile and the notebooks' declarations whose `lcl` always fails, with the
    quick build's outputs of notebook 00 already there (older than nothing they depend on)."""
    root = tmp_path / "p"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "Makefile", root / "Makefile")
    if extra:
        with open(root / "Makefile", "a") as fh:
            fh.write(extra)
    shutil.copy(ROOT / "notebooks" / "outputs.mk", root / "notebooks" / "outputs.mk")
    for f in ("notebooks/00_data.py", "notebooks/00_data.ipynb", "requirements/lock.txt", "pyproject.toml",
              "data/sources.toml", "data/reference/paper_claims.csv"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x")
    outs = ["tables/table1_datasets.csv", "tables/table1_datasets.md", "figures/figure2_survey.png"]
    for f in outs:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("an earlier good output")
    lcl = root / ".venv" / "bin" / "lcl"
    lcl.parent.mkdir(parents=True)
    lcl.write_text("#!/bin/sh\necho 'error: notebook 00_data failed in cell 3' >&2\nexit 1\n")
    lcl.chmod(0o755)
    for i, f in enumerate(["notebooks/00_data.py", "requirements/lock.txt", "pyproject.toml", "data/sources.toml",
                           "data/reference/paper_claims.csv", "notebooks/outputs.mk", "Makefile",
                           ".venv/.lcl-installed", "data/raw/.verified", "notebooks/00_data.ipynb", *outs]):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).touch()
        os.utime(root / f, (1_000_000 + i, 1_000_000 + i))
    return root


def test_a_failed_notebook_run_keeps_the_earlier_outputs(tmp_path: Path):
    root = _fake_project(tmp_path)
    target = "build/notebooks/quick/00_data.ipynb"
    r = _make(target, "PROFILE=quick", cwd=root)
    assert r.returncode != 0 and "failed in cell 3" in r.stderr
    assert (root / "tables/table1_datasets.csv").read_text() == "an earlier good output"
    assert (root / "figures/figure2_survey.png").exists()
    # the hazard this guards against: with .DELETE_ON_ERROR, Make removes the grouped outputs
    hazard = _fake_project(tmp_path / "hazard", extra="\n.DELETE_ON_ERROR:\n")
    _make(target, "PROFILE=quick", cwd=hazard)
    assert not (hazard / "tables/table1_datasets.csv").exists()


def test_make_lab_opens_the_executed_notebooks_passes_options_on_and_allows_root(tmp_path: Path):
    root = _fake_project(tmp_path)
    r = _make("-n", "lab", "PROFILE=quick", "LAB_ARGS=--no-browser --port 8899", cwd=root)
    assert "opening the sources in notebooks/" in r.stdout  # no executed notebooks yet: it says how
    (root / "build/notebooks/quick").mkdir(parents=True)
    (root / "build/notebooks/quick/00_data.ipynb").write_text("{}")
    r = _make("-n", "lab", "PROFILE=quick", "LAB_ARGS=--no-browser --port 8899", cwd=root)
    cmd = r.stdout
    assert "env -u MPLBACKEND" in cmd and "default_url=/lab/tree/build/notebooks/quick" in cmd
    assert "--no-browser --port 8899" in cmd
    assert ("--allow-root" in cmd) == (os.geteuid() == 0)


def test_make_help_lists_the_variables_and_every_profile():
    out = _make("help").stdout
    for word in ("PROFILE=quick|full|smoke", "JOBS=N", "SEED=N", "LAB_ARGS", "TESTARGS", "lab", "verify"):
        assert word in out, word


# ----------------------------------------------------------------------------- README
def test_the_readme_evaluator_table_is_the_one_the_recorded_run_gives():
    from lcl.report import html_report as report

    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- evaluator-table:start -->\n", 1)[1].split("<!-- evaluator-table:end -->", 1)[0]
    assert block.strip() == report.readme_evaluator_table().strip(), (
        "README's evaluator table is stale: replace it with `.venv/bin/lcl report --evaluator-table`")


def _readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"<!-- readme-test: run -->\n```bash\n(.*?)```", text, re.S)


def test_the_readme_marks_its_recipes_to_run():
    blocks = _readme_blocks()
    assert blocks and any("lcl score" in b for b in blocks)
    assert any("lcl evaluate --metric examples.toy_metric:score" in b for b in blocks)


def _fresh_clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the checkout as a clone has it after `make data` (the Makefile, pyproject, the lock,
    lib/, notebooks/*.py, examples/, data/ with the fetched raw files; no build outputs) and the
    environment a user has there (no test settings), so that a README recipe runs from its root as
    printed and writes its outputs under ``tmp_path``, not into the checkout. It shares the checkout's
    .venv (a folder of links to it, with a fresh install stamp, so Make never reinstalls into it), its
    content cache .cache (what a run from the checkout would reuse) and its data mirror."""
    root = tmp_path / "clone"
    root.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.ipynb", ".ipynb_checkpoints")
    for f in ("Makefile", "pyproject.toml", "requirements", "lib", "notebooks", "examples",
              "data/sources.toml", "data/constraints", "data/labels", "data/reference", "data/raw"):
        src, dst = ROOT / f, root / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, symlinks=True, ignore=skip)
        elif src.exists():
            shutil.copy2(src, dst)
    (root / ".venv").mkdir()
    for entry in (ROOT / ".venv").iterdir():
        if entry.name != ".lcl-installed":
            (root / ".venv" / entry.name).symlink_to(entry)
    (root / ".venv" / ".lcl-installed").touch()
    mirror = paths.mirror()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LCL_", "PYTEST"))}
    return root, env | {"LCL_ROOT": str(root), "LCL_CACHE": str(ROOT / ".cache"),
                        "LOCAL_DATA_MIRROR": str(mirror) if mirror else ""}


@pytest.mark.slow
@pytest.mark.notebooks
def test_the_readmes_recipes_run_as_written(tmp_path: Path):
    """Each block marked `<!-- readme-test: run -->` runs from the root of a fresh copy of the
    checkout, exactly as printed (the two main commands, `make all` and `make test`, are what CI
    itself runs)."""
    root, env = _fresh_clone(tmp_path)
    for block in _readme_blocks():
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=root, capture_output=True, text=True,
                           timeout=900, env=env)
        assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-3000:])
        if "lcl score" in block:
            maes = re.findall(r"MAE vs df_score on (\d+) LoCaL pairs: ([\d.]+)", r.stdout)
            assert len(maes) == 3 and int(maes[0][0]) > 0, r.stdout
        if "lcl evaluate" in block:
            assert any(ln.startswith("On LoCaL, Token Jaccard (toy) has MAE") for ln in r.stdout.splitlines()), r.stdout
            card = root / "build" / "evaluate" / "examples.toy_metric_score" / "quick"
            assert all((card / f"card.{ext}").exists() for ext in ("json", "md", "html")), sorted(card.glob("*"))


# ----------------------------------------------------------------------------- figures
def test_a_panel_without_data_says_so_on_the_figure(tmp_root: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (full, nan, empty, text) = plt.subplots(1, 4)
    full.scatter([0.1, 0.2], [0.3, 0.4])
    nan.scatter([float("nan")], [float("nan")])  # what a table of NaNs draws
    empty.scatter([], [])  # what no pairs draw: a marker path but no points
    text.text(0.1, 0.1, "def f(): ...")  # a code panel is content
    text.set_title("only a title")
    assert outputs.mark_empty_axes(fig) == 2
    assert [bool(ax.texts) for ax in (full, nan, empty)] == [False, True, True]
    assert "no data in this run" in nan.texts[0].get_text()
    assert list(nan.get_xticks()) == [] and list(empty.get_yticks()) == []
    plt.close(fig)
    # bars of missing values behind a reference line (RQ2's figure without PIE) show nothing;
    # a bar of height 0 is a value
    fig, (nan_bars, no_bars, zero_bar) = plt.subplots(1, 3)
    nan_bars.bar([0, 1], [float("nan"), float("nan")])
    nan_bars.axhline(1.0, ls="--")
    no_bars.bar([], [], yerr=[])  # no rows at all: only an empty error-bar collection
    no_bars.axhline(1.0, ls="--")
    zero_bar.bar([0], [0.0], yerr=[0.1])
    zero_bar.axhline(1.0, ls="--")
    no_bars.set_yscale("log")
    assert outputs.mark_empty_axes(fig) == 2 and nan_bars.texts and no_bars.texts and not zero_bar.texts
    assert list(no_bars.yaxis.get_minorticklocs()) == []  # no scale suggested on a log axis either
    plt.close(fig)


def test_a_no_data_note_stays_inside_its_own_panel(tmp_root: Path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lcl.study import sources

    # the longest note a run without the mirror writes: every mirror source named
    skipped = {name: "no local mirror" for name in ("apps_examples", "apps_mapcoder", "codescore_test",
                                                    "humaneval_et", "literature_survey", "local_release",
                                                    "mbpp", "mbpp_et", "pie", "sharecode_java")}
    monkeypatch.setattr(sources, "status", lambda: {"skipped": skipped})
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.2))
    assert outputs.mark_empty_axes(fig) == 3
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for ax in axes:
        note, box = ax.texts[0].get_window_extent(renderer), ax.get_window_extent(renderer)
        assert box.x0 <= note.x0 and note.x1 <= box.x1, "the note runs out of its panel"
    plt.close(fig)


def test_a_pair_file_written_by_hand_goes_to_the_scratch_folder(tmp_root: Path, monkeypatch):
    monkeypatch.delenv("LCL_NOTEBOOK", raising=False)
    monkeypatch.setenv("LCL_PROFILE", "quick")
    moved = outputs.build_path(paths.local_pairs("quick"))
    assert moved.name == paths.local_pairs("quick").name and paths.interactive_outputs("quick") in moved.parents
    monkeypatch.setenv("LCL_NOTEBOOK", "02_variants")
    assert outputs.build_path(paths.local_pairs("quick")) == paths.local_pairs("quick")


def test_a_claim_whose_whole_table_needs_a_skipped_source_is_not_run():
    """Table 3's rows are metrics, not benchmarks, yet every value comes from PIE: without PIE its
    claims were not run; with PIE present and a value missing, the claim is not reproduced."""
    from lcl.report import claims

    without = claims.compare({}, available={"table3_correlation"}, skipped={"pie": ("PIE",)}).set_index("claim_id")
    assert without.loc["T3.CodeBLEU.rho", "status"] == claims.NOT_RUN
    assert "pie" in without.loc["T3.CodeBLEU.rho", "reason"]
    present = claims.compare({}, available={"table3_correlation"}, skipped={}).set_index("claim_id")
    assert present.loc["T3.CodeBLEU.rho", "status"] == claims.MISSING
