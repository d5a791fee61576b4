"""The HTML report (``make report`` / ``lcl report``): every executed notebook rendered with
nbconvert, plus an index page linking each notebook, table and figure.

The index groups outputs by the notebook that made them (read from each output's provenance
sidecar), shows figures inline, lists skipped data sources and per-notebook wall times.
"""

from __future__ import annotations

import argparse
import html
import json
import os
from pathlib import Path

from . import paths, profiles, sources
from .io import write_text


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
    timings_path = executed / "timings.json"
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    st = sources.status()
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>LoCaL compendium report</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "img{max-width:32rem;border:1px solid #ddd;margin:.3rem}table{border-collapse:collapse}"
        "td,th{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:left}.skip{color:#a40}</style>",
        "</head><body>",
        "<h1>LoCaL compendium: regenerated results</h1>",
        f"<p>Profile: <b>{html.escape(profile)}</b>. Each notebook below was executed by papermill "
        "(<code>make all</code>); tables and figures carry a <code>.provenance.json</code> sidecar "
        "(git commit, profile, seeds, package versions).</p>",
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
    claims = paths.tables() / "claims.md"
    if claims.exists():
        parts.append(f"<h2>Paper vs reproduced</h2><p><a href='{_rel(claims, out)}'>claims table</a></p>")
    parts.append("</body></html>")
    index = out / "index.html"
    write_text(index, "\n".join(parts))
    return index


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


def _cmd_report(args: argparse.Namespace) -> int:
    index = build_index(args.profile)
    missing = [p for p in linked_files(index) if not p.exists()]
    print(f"report: {index}")
    if missing:
        print("missing linked files:\n  " + "\n  ".join(map(str, missing)))
        return 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("report", help="render executed notebooks to HTML with an index page",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", default=os.environ.get("LCL_PROFILE", "full"), choices=sorted(profiles.PROFILES))
    p.set_defaults(func=_cmd_report)
