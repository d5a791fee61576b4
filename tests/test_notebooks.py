"""Notebooks declare their outputs; every notebook executes end to end at the smoke profile
without the mirror (papermill; the tier ``notebooks``, run once in CI, in its pass without the
mirror); the quick build that ``make all PROFILE=quick`` made writes its declared outputs with
provenance and its report renders in headless Chromium (the tier ``build``, run after that build:
``make test-build``), so the quick profile is executed once, not a second time inside pytest."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lcl.core import paths
from lcl.report import html_report as report, runner
from lcl.study import sources

from .conftest import ROOT, copy_raw_from_project

#: the profile whose build the ``build`` tier checks (``make test-build PROFILE=...`` sets it)
BUILD_PROFILE = os.environ.get("LCL_BUILD_PROFILE", "quick")


def declared_outputs(profile: str = "smoke") -> dict[str, list[str]]:
    """Parse notebooks/outputs.mk: notebook id -> declared output paths (for ``profile``)."""
    text = (ROOT / "notebooks" / "outputs.mk").read_text().replace("\\\n", " ")
    for name, value in re.findall(r"^([A-Z0-9_]+)\s*:=\s*(.*)$", text, re.M):
        if name == "PAIRS_02":  # a variable the declarations use
            text = text.replace(f"$({name})", value)
    text = text.replace("$(PROFILE)", profile)
    out = {}
    for m in re.finditer(r"^NB_(\w+?)_OUT\s*:=\s*(.*)$", text, re.M):
        out[m.group(1)] = m.group(2).split()
    return out


def test_every_notebook_declares_its_outputs():
    ids = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    decl = declared_outputs()
    assert sorted(decl) == ids
    for nb in ids:
        src = (ROOT / "notebooks" / f"{nb}.py").read_text()
        saved = set(re.findall(r'"(\w+)",\s*profile=', src))
        # findings.save(rows, "NN", profile=...) writes tables/findings_NN.csv
        saved = {f"findings_{n}" if re.fullmatch(r"\d\d", n) else n for n in saved}
        stems = {Path(p).stem for p in decl[nb]}
        assert saved <= stems, f"{nb}: saved but not declared: {saved - stems}"
        assert '# %% tags=["parameters"]' in src, f"{nb}: needs a cell tagged parameters"


def _run_all(root: Path) -> list[Path]:
    out = []
    for name in runner.available_notebooks():
        out.append(runner.run(name, profile="smoke", seed=1, jobs=1, progress=False))
    return out


def _check_outputs(root: Path, profile: str = "smoke", seed: int | None = 1) -> None:
    """Every declared output exists; each non-markdown one has a provenance sidecar of this profile
    (and of ``seed``; None: one seed shared by every output, whichever the build used)."""
    seeds = set()
    for nb, files in declared_outputs(profile).items():
        for f in files:
            path = root / f
            assert path.exists(), f"{nb} did not write {f}"
            if not f.endswith(".md"):
                side = path.with_name(path.name + ".provenance.json")
                meta = json.loads(side.read_text())
                assert meta["profile"] == profile and meta["notebook"] == nb, (f, meta["profile"], meta["notebook"])
                assert seed is None or meta["seed"] == seed
                seeds.add(meta["seed"])
                assert meta["packages"]["pandas"] != "not installed"
    assert len(seeds) == 1, f"outputs of several seeds: {sorted(seeds)}"


@pytest.mark.notebooks
def test_notebooks_smoke_without_mirror(tmp_root: Path, monkeypatch):
    """Registry-only data: every notebook still runs; skipped benchmarks are reported."""
    monkeypatch.setenv("LOCAL_DATA_MIRROR", "")
    copy_raw_from_project(tmp_root, [s.name for s in sources.load_manifest(ROOT / "data" / "sources.toml")
                                     if s.required])
    rep = sources.fetch_all()
    assert "humaneval" in rep.available and "mbpp" in rep.skipped
    _run_all(tmp_root)
    _check_outputs(tmp_root)
    t1 = (tmp_root / "tables" / "table1_datasets.csv").read_text()
    assert "skipped" in t1 and "HumanEval,164" in t1
    # the report says what was skipped and what it costs; claims that need those sources are "not run"
    import pandas as pd

    from lcl.report import claims
    table = pd.read_csv(tmp_root / "tables" / "claims.csv")
    assert (table.status == claims.NOT_RUN).sum() > 0
    page = report.build_index("smoke").read_text()
    assert "id='skipped-banner'" in page and "mbpp" in page.split("id='skipped-banner'")[1].split("</div>")[0]


@pytest.mark.build
def test_the_build_writes_its_outputs_and_its_report_renders_in_a_browser(tmp_path: Path) -> None:
    """What ``make all PROFILE=quick`` made in this checkout (CI runs it right after that build):
    every declared output with provenance, the studies' findings joined (with the mirror) or the
    skipped sources named and their claims "not run" (without it), a self-contained report whose
    front page and claims page show tables/claims.csv in Chromium, executed notebooks with their
    figures inline and no stderr."""
    root = paths.root()
    executed = sorted((root / "build" / "notebooks" / BUILD_PROFILE).glob("[0-9][0-9]_*.ipynb"))
    index = root / "build" / "report" / "index.html"
    if not executed or not index.exists():
        pytest.skip(f"no {BUILD_PROFILE} build in {root}: run `make all PROFILE={BUILD_PROFILE}` first "
                    "(CI runs this tier right after it)")
    assert sorted(nb.stem for nb in executed) == runner.available_notebooks()
    _check_outputs(root, BUILD_PROFILE, seed=None)
    import pandas as pd

    from lcl.report import claims, findings
    skipped = sources.status().get("skipped", {})
    table = pd.read_csv(root / "tables" / "claims.csv")
    if skipped:
        assert (table.status == claims.NOT_RUN).sum() > 0
        banner = index.read_text().split("id='skipped-banner'")[1].split("</div>")[0]
        assert all(name in banner for name in skipped), (sorted(skipped), banner[:300])
    else:
        joined = findings.collect(root / "tables")
        assert {"X1", "X2", "X3", "X4", "X5"} <= set(joined.study.str[:2]), sorted(set(joined.study))
    links = report.linked_files(index)
    assert links and all(p.exists() for p in links), [p for p in links if not p.exists()]
    assert any(p.suffix == ".png" for p in links) and any(p.suffix == ".html" for p in links)
    # self-contained: every link stays inside the report folder, so a copy elsewhere still works
    assert all(index.parent in p.parents for p in links), [p for p in links if index.parent not in p.parents]
    copy = tmp_path / "copied-report"
    shutil.copytree(index.parent, copy)
    assert all(p.exists() for p in report.linked_files(copy / "index.html"))
    dom = _render_in_chromium(copy / "index.html", tmp_path)
    assert _summary_in(dom) == _summary_expected(root / "tables" / "claims.csv")
    # every claim's status as the browser shows it on claims.html is the one in tables/claims.csv
    shown = _claims_in(_render_in_chromium(copy / "claims.html", tmp_path, check_index=False))
    assert shown == dict(zip(table.claim_id, table.status, strict=True))
    # executed notebooks show their figures and keep stderr out (it is in NAME.stderr.log)
    images = {nb.stem: _outputs(nb, "image/png") for nb in executed}
    assert images["03_rq1_correlation"] >= 1 and images["06_rq4_effectiveness"] >= 1, images
    assert sum(_outputs(nb, "stderr") for nb in executed) == 0


def _outputs(notebook: Path, kind: str) -> int:
    cells = json.loads(notebook.read_text())["cells"]
    outs = [o for c in cells for o in c.get("outputs", [])]
    if kind == "stderr":
        return sum(o.get("name") == "stderr" for o in outs)
    return sum(kind in o.get("data", {}) for o in outs)


def _claims_in(page: str) -> dict[str, str]:
    """claim id -> status as claims.html shows them."""
    import html

    rows = re.findall(r"<tr data-claim=\"([^\"]+)\">.*?<span class=\"status\"[^>]*>([^<]+)</span>", page, re.S)
    return {html.unescape(c): html.unescape(s) for c, s in rows}


def _summary_in(page: str) -> dict[str, int]:
    """The claims summary shown on the front page: status -> count."""
    import re

    return {k: int(v) for k, v in re.findall(r"data-status=['\"]([^'\"]+)['\"]>(\d+)<", page)}


def _summary_expected(claims_csv: Path) -> dict[str, int]:
    import html

    import pandas as pd

    from lcl.report import claims

    return {html.escape(k): v for k, v in claims.summary(pd.read_csv(claims_csv)).items()}


def test_front_page_verdict_matches_the_claims_table(tmp_path: Path, monkeypatch):
    """The verdict box shows the counts of tables/claims.csv (no notebooks run)."""
    import html

    from lcl.report import claims
    from lcl.core import paths

    monkeypatch.setattr(paths, "tables", lambda: tmp_path)
    table = claims.compare({"T1.HumanEval.orig": 164, "T1.APPS.orig": 298,
                            "T2.opt.surfacesim": 0.6, "T2.mut.surfacesim": 0.9, "T2.opt.df": 1.0, "T2.mut.df": 0.1})
    table.to_csv(tmp_path / "claims.csv", index=False)
    page = "".join(report.verdict_html(tmp_path / "claims.csv"))
    shown = _summary_in(page)
    assert shown == _summary_expected(tmp_path / "claims.csv")
    assert shown["within tolerance"] == 1 and shown["by construction"] == 1
    # each status is shown with its meaning, from the one vocabulary in lcl.report.claims
    for status, (meaning, _) in claims.STATUS_MEANINGS.items():
        assert html.escape(meaning) in page, status
    # the recorded full run's counts sit beside this run's
    page = "".join(report.verdict_html(tmp_path / "claims.csv", recorded=table))
    assert re.findall(r"data-recorded='([^']+)'>(\d+)<", page) == [(html.escape(k), str(v))
                                                                    for k, v in claims.summary(table).items()]


def _render_in_chromium(index: Path, tmp_path: Path, check_index: bool = True) -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium not installed (.ci/run installs Debian's chromium)")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'chrome'}"]
    dom = subprocess.run([chromium, *flags, "--dump-dom", index.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    if not check_index:
        return dom.stdout
    assert "LoCaL compendium" in dom.stdout and "00_data" in dom.stdout
    shot = tmp_path / "index.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", "--window-size=1200,1600", index.as_uri()],
                   capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000, "screenshot of the rendered index expected"
    assert dom.stdout.index("Verdict") < dom.stdout.index("00_data"), "the verdict comes before the notebooks"
    return dom.stdout


def test_a_failing_notebook_is_kept_with_its_traceback(tmp_path, monkeypatch):
    """A notebook that raises is a UserError naming the cell, and the executed notebook up to
    the error is kept as NAME.failed.ipynb (a long full-profile run must leave something to read)."""
    from lcl.core import paths
    from lcl.core.errors import UserError

    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    header = (ROOT / "notebooks" / "00_data.py").read_text().split("# ---\n\n", 1)[0] + "# ---\n\n"
    (nbdir / "99_broken.py").write_text(header +
        '# %% tags=["parameters"]\nprofile = "full"\nseed = 0\njobs = 1\ntables_dir = ""\nfigures_dir = ""\n\n'
        '# %%\nprint("before")\n\n# %%\nraise ValueError("on purpose")\n')
    monkeypatch.setattr(paths, "notebooks", lambda: nbdir)
    out = tmp_path / "build" / "99_broken.ipynb"
    with pytest.raises(UserError, match=r"failed in cell \d+: ValueError: on purpose.*99_broken\.failed\.ipynb"):
        runner.run("99_broken", profile="smoke", output=out, progress=False)
    assert not out.exists()
    kept = json.loads((tmp_path / "build" / "99_broken.failed.ipynb").read_text())
    errors = [o for c in kept["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors and errors[0]["evalue"] == "on purpose"
