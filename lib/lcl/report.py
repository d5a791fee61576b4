"""The HTML report (``make report`` / ``lcl report``): every executed notebook rendered with
nbconvert, plus an index page linking each notebook, table and figure.

The index gives the verdict first: the claims summary (counts per status, overall and per paper
section, read from ``tables/claims.csv``), each paper figure next to ours as thumbnails, the
substitutes in one box; then the notebooks, their outputs grouped by the notebook that made them
(read from each output's provenance sidecar), skipped data sources and per-notebook wall times.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

from . import paths, sources
from .io import write_text

#: the paper's figures: our regenerated output and the paper's caption (the paper's image is shown
#: beside ours when stored under data/reference/figures/<name>.png)
PAPER_FIGURES = {
    "figure1_examples": "Fig. 1. Examples of surface-semantic divergence in code",
    "figure2_survey": "Fig. 2. Publications per year in which each CEM is used",
    "figure3_pipeline": "Fig. 3. The LoCaL construction pipeline",
    "figure5_regions": "Fig. 5. Data distribution across regions: LoCaL vs baseline",
}
#: what this compendium runs instead of the paper's model or data, one line each
SUBSTITUTES = (
    "CodeBERTScore: a MiniLM encoder instead of CodeBERT (CodeBERTScore[MiniLM]); no CodeBERT offline.",
    "CodeScore: a retrained CodeScore-style model (frozen MiniLM + head) instead of the CodeScore checkpoint.",
    "Optimised variants: our offline rewriter and PIE's fast programs instead of GPT-4.",
    "Labels: our differential fuzzer and reviewed input specs (df_score), curated as the authors' release shows.",
)


def _rel(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target, start)).as_posix()


def render_notebooks(executed: Path, out: Path) -> list[Path]:
    """nbconvert every executed notebook in ``executed`` to ``out/notebooks/NAME.html``."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    written = []
    for nb_path in sorted(executed.glob("[0-9][0-9]_*.ipynb")):
        target = out / "notebooks" / f"{nb_path.stem}.html"
        if target.exists() and target.stat().st_mtime >= nb_path.stat().st_mtime:
            written.append(target)
            continue
        body, _ = exporter.from_notebook_node(nbformat.read(nb_path, as_version=4))
        write_text(target, body)
        written.append(target)
    return written


def _outputs_by_notebook() -> dict[str, list[Path]]:
    groups: dict[str, list[Path]] = {}
    for folder in (paths.tables(), paths.figures()):
        for sidecar in sorted(folder.glob("*.provenance.json")):
            output = sidecar.with_name(sidecar.name[: -len(".provenance.json")])
            if not output.exists():
                continue
            meta = json.loads(sidecar.read_text())
            groups.setdefault(meta.get("notebook") or "other", []).append(output)
    return groups


def build_index(profile: str) -> Path:
    """Render notebooks and write ``build/report/index.html``; returns its path."""
    out = paths.report()
    executed = paths.executed_notebooks() / profile
    rendered = render_notebooks(executed, out)
    groups = _outputs_by_notebook()
    timings_path = paths.notebook_timings(profile)
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    st = sources.status()
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>LoCaL compendium report</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "img{max-width:32rem;border:1px solid #ddd;margin:.3rem}table{border-collapse:collapse}"
        "td,th{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:left}.skip{color:#a40}"
        ".n{text-align:right}.thumb{max-width:15rem}.figs{display:flex;flex-wrap:wrap;gap:1rem}"
        "figure{margin:0;border:1px solid #eee;padding:.4rem}.box{border:2px solid #a40;padding:.2rem 1rem;margin:1rem 0}"
        "</style>",
        "</head><body>",
        "<h1>LoCaL compendium: regenerated results</h1>",
        f"<p>Profile: <b>{html.escape(profile)}</b>. Each notebook below was executed by papermill "
        "(<code>make all</code>); tables and figures carry a <code>.provenance.json</code> sidecar "
        "(git commit, profile, seeds, package versions).</p>",
        *verdict_html(paths.claims_table()),
        *findings_html(paths.findings_table()),
        *figures_html(out),
        *substitutes_html(),
        "<h2>Data sources</h2><ul>",
    ]
    for name, method in sorted(st.get("available", {}).items()):
        parts.append(f"<li>{html.escape(name)}: available ({html.escape(method)})</li>")
    for name in sorted(st.get("skipped", {})):
        parts.append(f"<li class='skip'>{html.escape(name)}: <b>skipped</b> (not available; "
                     "its benchmarks are left out)</li>")
    parts.append("</ul><h2>Notebooks</h2>")
    for page in rendered:
        name = page.stem
        secs = timings.get(name)
        parts.append(f"<h3><a href='{_rel(page, out)}'>{html.escape(name)}</a>"
                     + (f" <small>({secs} s)</small>" if secs is not None else "") + "</h3><ul>")
        for output in groups.get(name, []):
            parts.append(f"<li><a href='{_rel(output, out)}'>{html.escape(output.name)}</a></li>")
        parts.append("</ul>")
        for output in groups.get(name, []):
            if output.suffix == ".png":
                parts.append(f"<a href='{_rel(output, out)}'><img src='{_rel(output, out)}' "
                             f"alt='{html.escape(output.stem)}'></a>")
    parts.append("</body></html>")
    index = out / "index.html"
    write_text(index, "\n".join(parts))
    return index


def verdict_html(claims_csv: Path) -> list[str]:
    """The claims summary: counts per status overall, then per paper section (a table)."""
    if not claims_csv.exists():
        return ["<h2>Verdict</h2><p class='skip'>No claims table yet (run notebook 08).</p>"]
    import pandas as pd

    from . import claims

    table = pd.read_csv(claims_csv)
    s = claims.summary(table)
    cells = "".join(f"<tr><th>{html.escape(k)}</th><td class='n' data-status='{html.escape(k)}'>{v}</td></tr>"
                    for k, v in s.items())
    out = ["<h2>Verdict: the paper's claims on our numbers</h2>",
           f"<table id='claims-summary'>{cells}</table>",
           f"<p><a href='{_rel(claims_csv.with_suffix('.md'), paths.report())}'>every claim with its reason</a> "
           "(within: the paper's value inside our 95% CI, or means within 2 combined std; <i>unexplained</i>: a "
           "deviation with no evidence-backed reason)</p>", "<table id='claims-by-section'><tr><th>section</th>"]
    sections = claims.by_section(table)
    out.append("".join(f"<th>{html.escape(c)}</th>" for c in sections.columns[1:]) + "</tr>")
    for _, r in sections.iterrows():
        out.append(f"<tr><td>{html.escape(str(r['section']))}</td>"
                   + "".join(f"<td class='n'>{int(r[c])}</td>" for c in sections.columns[1:]) + "</tr>")
    out.append("</table>")
    return out


def findings_html(findings_csv: Path) -> list[str]:
    """The studies beyond the paper: each finding's sentence and number (notebooks 09 on)."""
    if not findings_csv.exists():
        return []
    import pandas as pd

    table = pd.read_csv(findings_csv)
    rows = []
    for _, r in table.iterrows():
        ci = "" if pd.isna(r["ci_low"]) else f" [{r['ci_low']:.3g}, {r['ci_high']:.3g}]"
        rows.append(f"<tr><td>{html.escape(str(r['finding_id']))}</td><td>{html.escape(str(r['statement']))}</td>"
                    f"<td class='n'>{r['value']:.3g}{ci}</td></tr>")
    return ["<h2>Beyond the paper: findings of the studies</h2>",
            f"<table id='findings'><tr><th>id</th><th>finding</th><th>value [95% CI]</th></tr>{''.join(rows)}</table>"]


def figures_html(out: Path) -> list[str]:
    """Each paper figure next to ours, as thumbnails."""
    parts = ["<h2>Figures: paper and ours</h2><div class='figs'>"]
    for name, caption in PAPER_FIGURES.items():
        ours, theirs = paths.figures() / f"{name}.png", paths.paper_figure(name)
        cell = [f"<figure><figcaption>{html.escape(caption)}</figcaption>"]
        if theirs.exists():
            cell.append(f"<img class='thumb' src='{_rel(theirs, out)}' alt='paper {html.escape(name)}'>")
        else:
            cell.append("<span class='skip'>paper image not stored; caption above</span>")
        if ours.exists():
            cell.append(f"<a href='{_rel(ours, out)}'><img class='thumb' src='{_rel(ours, out)}' "
                        f"alt='ours {html.escape(name)}'></a>")
        else:
            cell.append("<span class='skip'>not regenerated</span>")
        parts.append("".join(cell) + "</figure>")
    parts.append("</div>")
    return parts


def substitutes_html() -> list[str]:
    items = "".join(f"<li>{html.escape(s)}</li>" for s in SUBSTITUTES)
    return [f"<div class='box'><h2>Substitutes</h2><ul>{items}</ul></div>"]


def linked_files(index: Path) -> list[Path]:
    """Every local file the index links to (href/src), resolved relative to the index."""
    from html.parser import HTMLParser

    links: list[str] = []

    class _P(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            for k, v in attrs:
                if k in ("href", "src") and v and "://" not in v and not v.startswith("#"):
                    links.append(v)

    _P().feed(index.read_text())
    return [(index.parent / link).resolve() for link in links]
