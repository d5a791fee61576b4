"""The HTML report (``make report`` / ``lcl report``): every executed notebook rendered with
nbconvert, plus an index page that gives the verdict first.

The index, top to bottom: a banner when data sources were skipped (which, and how many claims
could therefore not run); the claims summary of this run beside the recorded full-profile run
(``data/reference/expected/full/claims.csv``), with each status's meaning; a picture of the
paper's numbers against ours (95% CIs, coloured by status); the claims per paper section, each
linked to the notebook that computes it; the deviations and every claim as HTML tables; the
studies' findings; the paper's figures beside ours; the substitutes; the data sources; the
notebooks with their outputs.

The report is self-contained: the tables and figures it links are copied under
``build/report/files/``, and rendered notebooks embed their figures, so the folder can be copied
or served anywhere.
"""

from __future__ import annotations

import html
import json
import os
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd

from lcl.core import paths
from lcl.core.io import atomic_path, write_text
from lcl.engine.stats import number, with_ci
from lcl.study import sources

from . import claims, display

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
#: which notebook computes the claims of each paper section (by the section's leading words; the
#: notebooks' "Paper's answer" cells cite the same sections)
SECTION_NOTEBOOKS = (
    ("Table 1", "00_data"), ("Table 2", "02_variants"), ("Table 3", "03_rq1_correlation"),
    ("Section 4.3", "03_rq1_correlation"), ("Table 4", "04_rq2_distinguishability"),
    ("Section 4.4", "04_rq2_distinguishability"), ("Section 4.5", "05_rq3_regions"),
    ("Table 5", "06_rq4_effectiveness"), ("Section 4.6", "06_rq4_effectiveness"),
    ("Section 1", "06_rq4_effectiveness"), ("Table 6", "07_rq5_training"), ("Section 4.7", "07_rq5_training"),
)
#: colour of each status in the report's picture and tables
STATUS_COLOURS = {
    claims.WITHIN: "#2a9d3a", claims.HOLDS: "#2a9d3a", claims.OUTSIDE: "#d1495b", claims.FAILS: "#d1495b",
    claims.BY_CONSTRUCTION: "#b08900", claims.NOT_COMPARABLE: "#8a8a8a", claims.NOT_JUDGED: "#6b8e23",
    claims.MISSING: "#555555",
}
NOT_RUN = getattr(claims, "NOT_RUN", "not run")
STATUS_COLOURS.setdefault(NOT_RUN, "#9aa9c7")
STATUS_COLOURS.setdefault(getattr(claims, "TRIVIAL", "trivial model passes too"), "#c77dba")
# on a substitute: the direction in a lighter shade of holds / fails (reported, not counted); a threshold
# on its search's bound in blue (the search range, not the data, set it)
STATUS_COLOURS.update({claims.HOLDS_SUB: "#7cc487", claims.FAILS_SUB: "#e89aa4", claims.AT_BOUND: "#3a7ca5"})
STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;line-height:1.4}"
    "img{max-width:32rem;border:1px solid #ddd;margin:.3rem}table{border-collapse:collapse;margin:.5rem 0}"
    "td,th{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}"
    ".skip{color:#a40}.n{text-align:right;font-variant-numeric:tabular-nums}.thumb{max-width:15rem}"
    ".figs{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0;border:1px solid #eee;padding:.4rem}"
    ".box{border:2px solid #a40;padding:.2rem 1rem;margin:1rem 0}"
    ".banner{background:#fff4e5;border-left:6px solid #e08a00;padding:.6rem 1rem;margin:1rem 0}"
    ".status{display:inline-block;padding:0 .4rem;border-radius:.3rem;color:#fff;white-space:nowrap}"
    "table.claims td{max-width:28rem}details{margin:.5rem 0}"
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


def copy_into_report(files: list[Path], out: Path) -> dict[Path, Path]:
    """Copy ``files`` (tables, figures, logs) under ``out/files/<folder>/``; return source -> copy."""
    copies: dict[Path, Path] = {}
    for f in files:
        target = out / "files" / f.parent.name / f.name
        if not target.exists() or target.stat().st_mtime < f.stat().st_mtime:
            with atomic_path(target) as tmp:
                shutil.copyfile(f, tmp)
        copies[f] = target
    return copies


def build_index(profile: str) -> Path:
    """Render notebooks and write ``build/report/index.html`` (and ``claims.html``); returns its path."""
    out = paths.report()
    executed = paths.executed_notebooks() / profile
    rendered = render_notebooks(executed, out)
    groups = _outputs_by_notebook()
    figures = [paths.figures() / f"{n}.png" for n in PAPER_FIGURES]
    logs = sorted(executed.glob("*.stderr.log"))
    copies = copy_into_report([f for fs in groups.values() for f in fs] + [f for f in figures if f.exists()] + logs,
                              out)
    timings_path = paths.notebook_timings(profile)
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    st = sources.status()
    table = _read_claims(paths.claims_table())
    recorded = _read_claims(paths.expected_outputs("full") / "claims.csv")
    if table is not None:
        write_text(out / "claims.html", claims_page(table, profile))
        paper_vs_ours_figure(table, out / "files" / "report" / "paper_vs_ours.png")
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>LoCaL compendium report</title>", f"<style>{STYLE}</style>", "</head><body>",
        "<h1>LoCaL compendium: regenerated results</h1>",
        f"<p>Profile: <b>{html.escape(profile)}</b>. Each notebook below was executed by papermill "
        "(<code>make all</code>); tables and figures carry a <code>.provenance.json</code> sidecar "
        "(git commit, profile, seeds, package versions).</p>",
        *banner_html(st, table),
        *verdict_html(paths.claims_table(), recorded=recorded, profile=profile),
        *picture_html(out, table),
        *sections_html(table, out, rendered),
        *deviations_html(table),
        *findings_html(paths.findings_table()),
        *figures_html(out, copies),
        *substitutes_html(),
        *sources_html(st),
        "<h2>Notebooks</h2>",
    ]
    for page in rendered:
        name = page.stem
        secs = timings.get(name)
        log = executed / f"{name}.stderr.log"
        parts.append(f"<h3 id='nb-{html.escape(name)}'><a href='{_rel(page, out)}'>{html.escape(name)}</a>"
                     + (f" <small>({secs} s)</small>" if secs is not None else "")
                     + (f" <small><a href='{_rel(copies[log], out)}'>stderr log</a></small>" if log in copies else "")
                     + "</h3><ul>")
        for output in groups.get(name, []):
            parts.append(f"<li><a href='{_rel(copies[output], out)}'>{html.escape(output.name)}</a></li>")
        parts.append("</ul>")
        for output in groups.get(name, []):
            if output.suffix == ".png":
                link = _rel(copies[output], out)
                parts.append(f"<a href='{link}'><img src='{link}' alt='{html.escape(output.stem)}'></a>")
    parts.append("</body></html>")
    index = out / "index.html"
    write_text(index, "\n".join(parts))
    return index


def _read_claims(path: Path) -> pd.DataFrame | None:
    return pd.read_csv(path) if path.exists() else None


def banner_html(st: sources.SourcesStatus, table: pd.DataFrame | None) -> list[str]:
    """What skipping data sources costs: the sources, and the claims that could therefore not run."""
    skipped = sorted(st.get("skipped", {}))
    if not skipped:
        return []
    cost = ""
    if table is not None:
        not_run = int(table.status.isin([NOT_RUN, claims.MISSING]).sum())
        cost = (f" {not_run} of {len(table)} claims could not be computed in this run; the recorded full-profile "
                "verdict beside this run's shows what a run with every source gives.")
    return [f"<div class='banner' id='skipped-banner'><b>Data sources skipped:</b> {html.escape(', '.join(skipped))} "
            "(they come from the local data mirror, <code>LOCAL_DATA_MIRROR</code> or <code>../shared/datasets</code>)."
            f"{html.escape(cost)}</div>"]


def _badge(status: str) -> str:
    colour = STATUS_COLOURS.get(status, "#555")
    return f"<span class='status' style='background:{colour}'>{html.escape(status)}</span>"


def verdict_html(claims_csv: Path, recorded: pd.DataFrame | None = None, profile: str = "") -> list[str]:
    """The claims summary: counts per status for this run (and the recorded full-profile run beside
    it), with each status's meaning."""
    if not claims_csv.exists():
        return ["<h2>Verdict</h2><p class='skip'>No claims table yet (run notebook 08).</p>"]
    table = pd.read_csv(claims_csv)
    s = claims.summary(table)
    r = claims.summary(recorded) if recorded is not None else {}
    meanings: dict[str, tuple[str, str] | str] = getattr(claims, "STATUS_MEANINGS", {})
    head = (f"<tr><th></th><th>this run{f' ({html.escape(profile)})' if profile else ''}</th>"
            + ("<th>recorded full run</th>" if r else "") + "<th>meaning</th></tr>")
    rows = []
    for k, v in s.items():
        meaning = meanings.get(k)
        text = ""
        if meaning:
            what, example = meaning if isinstance(meaning, tuple | list) else (meaning, "")
            text = html.escape(str(what)) + (f" <i>e.g. {html.escape(str(example))}</i>" if example else "")
        label = _badge(k) if k in STATUS_COLOURS else html.escape(k)
        rows.append(f"<tr><th>{label}</th><td class='n' data-status='{html.escape(k)}'>{v}</td>"
                    + (f"<td class='n' data-recorded='{html.escape(k)}'>{r.get(k, 0)}</td>" if r else "")
                    + f"<td>{text}</td></tr>")
    return ["<h2>Verdict: the paper's claims on our numbers</h2>",
            f"<table id='claims-summary'>{head}{''.join(rows)}</table>",
            "<p><a href='claims.html'>Every claim with its values and reason</a> (an HTML table). "
            "<i>unexplained</i>: a deviation with no evidence-backed reason.</p>"]


def sections_html(table: pd.DataFrame | None, out: Path, rendered: list[Path]) -> list[str]:
    """Claims per paper section, each section linked to the notebook that computes it."""
    if table is None:
        return []
    pages = {p.stem: p for p in rendered}
    sections = claims.by_section(table)
    cols = [c for c in sections.columns[1:] if c == "claims" or sections[c].sum() > 0]
    out_rows = ["<h2>Per paper section</h2><table id='claims-by-section'><tr><th>section</th><th>notebook</th>"
                + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>"]
    for _, r in sections.iterrows():
        nb = section_notebook(str(r["section"]))
        link = (f"<a href='{_rel(pages[nb], out)}'>{html.escape(nb)}</a>" if nb in pages
                else html.escape(nb or "—"))
        out_rows.append(f"<tr><td>{html.escape(str(r['section']))}</td><td>{link}</td>"
                        + "".join(f"<td class='n'>{int(r[c])}</td>" for c in cols) + "</tr>")
    out_rows.append("</table>")
    return out_rows


def section_notebook(section: str) -> str:
    """The notebook that computes a paper section's claims ('' when none does)."""
    best, chosen = "", ""
    for prefix, nb in SECTION_NOTEBOOKS:
        if (section == prefix or section.startswith(prefix + ".")) and len(prefix) >= len(best):
            best, chosen = prefix, nb
    return chosen


def deviations_html(table: pd.DataFrame | None) -> list[str]:
    """Numbers outside their tolerance and failing conclusions, grouped by reason (an HTML table)."""
    if table is None:
        return []
    dev = claims.deviations(table)
    if dev.empty:
        return ["<h2>Deviations</h2><p>No number outside its tolerance and no failing conclusion.</p>"]
    rows = "".join(f"<tr><td>{html.escape(str(r['reason']))}</td><td class='n'>{int(r['claims'])}</td>"
                   f"<td>{html.escape(str(r['claim ids']))}</td></tr>" for _, r in dev.iterrows())
    return ["<h2>Deviations from the paper, by reason</h2>",
            f"<table id='deviations' class='claims'><tr><th>reason</th><th>claims</th><th>claim ids</th></tr>{rows}"
            "</table>"]


def claims_page(table: pd.DataFrame, profile: str) -> str:
    """Every claim as an HTML table (status first, CIs beside values), for ``claims.html``."""
    shown = display.readable(table.drop(columns=["within_tolerance"], errors="ignore"))
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = []
    for (_, r), status in zip(shown.iterrows(), table.status, strict=True):
        cells = [(_badge(str(status)) if c == "status" else html.escape(str(r[c]))) for c in shown.columns]
        body.append(f"<tr data-claim='{html.escape(str(r['claim_id']))}'>" + "".join(f"<td>{c}</td>" for c in cells)
                    + "</tr>")
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Every claim</title>"
            f"<style>{STYLE}</style></head><body><p><a href='index.html'>&larr; report</a></p>"
            f"<h1>Every claim of the paper on our numbers ({html.escape(profile)})</h1>"
            f"<table id='claims' class='claims'><tr>{head}</tr>{''.join(body)}</table></body></html>")


def paper_vs_ours_figure(table: pd.DataFrame, path: Path) -> Path | None:
    """The paper's numbers in [0, 1] against ours, with 95% CIs (or 2 std), coloured by status; the
    claims outside their tolerance are labelled with their id."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    nums = table[(table.kind == "number") & table.reproduced_value.notna()]
    shown = nums[nums.paper_value.between(0, 1) & nums.reproduced_value.between(0, 1)]
    fig, ax = plt.subplots(figsize=(6.4, 6))
    for status, g in shown.groupby("status", sort=False):
        lo = g.ci_low.fillna(g.reproduced_value - 2 * g.reproduced_std.fillna(0))
        hi = g.ci_high.fillna(g.reproduced_value + 2 * g.reproduced_std.fillna(0))
        ax.errorbar(g.paper_value, g.reproduced_value,
                    yerr=[(g.reproduced_value - lo).clip(lower=0), (hi - g.reproduced_value).clip(lower=0)],
                    fmt="o", ms=4, color=STATUS_COLOURS.get(str(status), "#555"), alpha=0.8, elinewidth=0.8,
                    label=f"{status} ({len(g)})")
    for _, r in shown[shown.status == claims.OUTSIDE].iterrows():
        ax.annotate(str(r.claim_id), (r.paper_value, r.reproduced_value), fontsize=5.5, alpha=0.8,
                    xytext=(3, -3), textcoords="offset points")
    ax.plot([0, 1], [0, 1], color="black", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("paper's value")
    ax.set_ylabel("our value (95% CI, or ± 2 std)")
    left = len(nums) - len(shown)
    ax.set_title(f"Paper vs ours: {len(shown)} numbers in [0, 1]" + (f" ({left} others in the table)" if left else ""),
                 fontsize=10)
    if len(shown):
        ax.legend(frameon=False, fontsize=8, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no reproduced numbers in this run", ha="center", va="center", color="#a40")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=150, metadata={"Software": "lcl"})
    plt.close(fig)
    return path


def picture_html(out: Path, table: pd.DataFrame | None) -> list[str]:
    picture = out / "files" / "report" / "paper_vs_ours.png"
    if table is None or not picture.exists():
        return []
    return ["<h2>Paper vs ours, at a glance</h2>",
            f"<figure><img src='{_rel(picture, out)}' alt='paper vs ours, coloured by status' style='max-width:40rem'>"
            "<figcaption>Each point is one number of the paper in [0, 1] (scores, rho, MAE); the diagonal is "
            "agreement. Labelled points are outside their tolerance.</figcaption></figure>"]


def findings_html(findings_csv: Path) -> list[str]:
    """The studies beyond the paper: each finding's sentence and number (notebooks 09 on)."""
    if not findings_csv.exists():
        return []
    table = pd.read_csv(findings_csv)
    rows = []
    for _, r in table.iterrows():
        rows.append(f"<tr><td>{html.escape(str(r['finding_id']))}</td><td>{html.escape(str(r['statement']))}</td>"
                    f"<td class='n'>{html.escape(with_ci(r['value'], r['ci_low'], r['ci_high']))}</td></tr>")
    return ["<h2>Beyond the paper: findings of the studies</h2>",
            f"<table id='findings'><tr><th>id</th><th>finding</th><th>value [95% CI]</th></tr>{''.join(rows)}</table>"]


def figures_html(out: Path, copies: dict[Path, Path] | None = None) -> list[str]:
    """Each paper figure next to ours, as thumbnails."""
    copies = copies or {}
    parts = ["<h2>Figures: paper and ours</h2><div class='figs'>"]
    for name, caption in PAPER_FIGURES.items():
        ours, theirs = paths.figures() / f"{name}.png", paths.paper_figure(name)
        cell = [f"<figure><figcaption>{html.escape(caption)}</figcaption>"]
        if theirs.exists():
            theirs = copy_into_report([theirs], out)[theirs]
            cell.append(f"<img class='thumb' src='{_rel(theirs, out)}' alt='paper {html.escape(name)}'>")
        else:
            cell.append("<span class='skip'>paper image not stored; caption above</span>")
        if ours.exists():
            link = _rel(copies.get(ours, ours), out)
            cell.append(f"<a href='{link}'><img class='thumb' src='{link}' alt='ours {html.escape(name)}'></a>")
        else:
            cell.append("<span class='skip'>not regenerated</span>")
        parts.append("".join(cell) + "</figure>")
    parts.append("</div>")
    return parts


def substitutes_html() -> list[str]:
    items = "".join(f"<li>{html.escape(s)}</li>" for s in SUBSTITUTES)
    return [f"<div class='box'><h2>Substitutes</h2><ul>{items}</ul></div>"]


def sources_html(st: sources.SourcesStatus) -> list[str]:
    parts = ["<h2>Data sources</h2><ul>"]
    for name, method in sorted(st.get("available", {}).items()):
        parts.append(f"<li>{html.escape(name)}: available ({html.escape(method)})</li>")
    for name in sorted(st.get("skipped", {})):
        parts.append(f"<li class='skip'>{html.escape(name)}: <b>skipped</b> (not available; "
                     "its benchmarks are left out)</li>")
    parts.append("</ul>")
    return parts


def linked_files(index: Path) -> list[Path]:
    """Every local file the index links to (href/src), resolved relative to the index."""
    links: list[str] = []

    class _P(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            for k, v in attrs:
                if k in ("href", "src") and v and "://" not in v and not v.startswith("#"):
                    links.append(v)

    _P().feed(index.read_text())
    return [(index.parent / link).resolve() for link in links]


def evaluator_table(recorded: pd.DataFrame, timings: dict[str, float]) -> str:
    """The README's evaluator path as Markdown: per paper section, its notebook, the command that
    regenerates it, one of its numbers (the paper's value, the recorded full run's value and
    status) and the recorded full run's verdict over the section; times are the notebook's own."""
    rows = ["| paper section | notebook | command | a claim: paper → ours (full run), status | full-run verdict "
            "| time (full) |", "|---|---|---|---|---|---|"]
    for section, g in recorded.groupby("section", sort=False):
        nb = section_notebook(str(section))
        if not nb:
            continue
        nums = g[(g.kind == "number") & g.reproduced_value.notna()]
        example = "—"
        if len(nums):
            r = nums.iloc[0]
            ours = with_ci(r.reproduced_value, r.ci_low, r.ci_high)
            example = f"`{r.claim_id}`: {number(r.paper_value)} → {ours}, {r.status}"
        counts = g.status.value_counts()
        verdict = ", ".join(f"{int(n)} {s}" for s, n in counts.items())
        secs = timings.get(nb)
        rows.append(f"| {section} | [`{nb}`](notebooks/{nb}.py) | `make build/notebooks/full/{nb}.ipynb` | {example} "
                    f"| {verdict} | {number(secs) + ' s' if secs is not None else '—'} |")
    return "\n".join(rows)


def readme_evaluator_table() -> str:
    """:func:`evaluator_table` from the committed recorded full run (what the README shows)."""
    exp = paths.expected_outputs("full")
    timings = json.loads((exp / "timings.json").read_text()) if (exp / "timings.json").exists() else {}
    return evaluator_table(pd.read_csv(exp / "claims.csv"), timings)
