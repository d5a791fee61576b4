"""Writers for the compendium's outputs: tables (CSV + Markdown) and figures (PNG + PDF).

Each writer is atomic (see :mod:`lcl.core.io`) and leaves a provenance sidecar next to every file.
"""

from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcl.core import paths, provenance
from lcl.core.io import atomic_path, write_text
from lcl.study import sources


def output_dirs(tables_dir: str = "", figures_dir: str = "") -> tuple[Path, Path]:
    """Where a notebook writes: its ``tables_dir``/``figures_dir`` parameters, else the defaults.

    Only a run by :mod:`lcl.report.runner` (``make all``, ``lcl notebook run``, which set ``LCL_NOTEBOOK``)
    writes there. A notebook run by hand, e.g. "Run All" in JupyterLab on an executed notebook whose
    injected parameters name the build's folders, writes to :func:`lcl.core.paths.interactive_outputs`
    instead, so a reader's run never overwrites what a build made."""
    if not os.environ.get("LCL_NOTEBOOK"):
        scratch = paths.interactive_outputs(os.environ.get("LCL_PROFILE", "by-hand"))
        print(f"Run by hand: tables and figures go to {scratch} (make all writes tables/ and figures/).")
        return scratch / "tables", scratch / "figures"
    return (Path(tables_dir) if tables_dir else paths.tables(), Path(figures_dir) if figures_dir else paths.figures())


class Written(list[Path]):
    """The files an output writer wrote; shown in a notebook as one short line, not a list of paths."""

    def __repr__(self) -> str:
        shown = [str(p.relative_to(paths.root())) if p.is_relative_to(paths.root()) else str(p) for p in self]
        return "wrote " + ", ".join(shown)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def build_path(path: Path) -> Path:
    """Where a notebook writes a build output other than a table or figure (a pair file): ``path``
    under :mod:`lcl.report.runner`, else the same name under :func:`lcl.core.paths.interactive_outputs`, for the
    reason :func:`output_dirs` gives."""
    if os.environ.get("LCL_NOTEBOOK"):
        return path
    return paths.interactive_outputs(os.environ.get("LCL_PROFILE", "by-hand")) / Path(path).parent.name / Path(path).name


def save_table(frame: pd.DataFrame, name: str, *, profile: str, seed: int | None, title: str = "",
               notes: list[str] | None = None, inputs: dict[str, str] | None = None,
               directory: Path | None = None) -> list[Path]:
    """Write ``tables/<name>.csv`` and ``tables/<name>.md`` (title, table, notes) + sidecars."""
    directory = directory or paths.tables()
    csv_path, md_path = directory / f"{name}.csv", directory / f"{name}.md"
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)
    shown = frame.astype(object).where(frame.notna(), None)
    md = [f"# {title or name}", "", shown.to_markdown(index=False, floatfmt=".4g", missingval="—"), ""]
    if notes:
        md += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]
    write_text(md_path, "\n".join(md))
    for p in (csv_path, md_path):
        provenance.record(p, profile=profile, seed=seed, inputs=inputs)
    return Written([csv_path, md_path])


def save_skipped(names: list[str], reason: str, *, profile: str, seed: int | None, title: str,
                 directory: Path | None = None) -> list[Path]:
    """Each of ``names`` written as a one-cell table saying it was skipped and why, so a declared
    output exists when its source is not available."""
    skipped = pd.DataFrame({"status": [f"skipped: {reason}"]})
    return [path for name in names
            for path in save_table(skipped, name, profile=profile, seed=seed, directory=directory, title=title)]


def save_figure(fig: Any, name: str, *, profile: str, seed: int | None,
                inputs: dict[str, str] | None = None, directory: Path | None = None) -> list[Path]:
    """Write ``figures/<name>.png`` (200 dpi) and ``.pdf`` + sidecars; returns the paths. A panel
    with nothing drawn in it says so on the figure (see :func:`mark_empty_axes`)."""
    directory = directory or paths.figures()
    mark_empty_axes(fig)
    out = []
    for ext, kw in (("png", {"dpi": 200}), ("pdf", {})):
        path = directory / f"{name}.{ext}"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=ext, bbox_inches="tight", metadata=_fig_metadata(ext), **kw)
        provenance.record(path, profile=profile, seed=seed, inputs=inputs)
        out.append(path)
    return Written(out)


def _has_data(ax: Any) -> bool:
    """Whether a panel shows anything: finite points in a line or collection, a bar of finite
    height or another patch, an image or a text placed in it (titles, axis labels and reference
    lines such as ``axhline``, drawn across the panel whatever the data, do not count)."""
    for line in ax.lines:
        if line.get_transform() != ax.transData:  # axhline/axvline: placed in axes coordinates
            continue
        xy = np.asarray(line.get_xydata(), dtype=float)
        if xy.size and np.isfinite(xy).all(axis=1).any():
            return True
    from matplotlib.collections import PathCollection

    for coll in ax.collections:
        # a scatter's paths are its marker, its offsets the data; other collections (fill_between,
        # the error bars of an empty bar chart) are their paths, their offsets a default (0, 0)
        if isinstance(coll, PathCollection):
            offsets = np.asarray(coll.get_offsets(), dtype=float)
            if offsets.size and np.isfinite(offsets).all(axis=1).any():
                return True
        elif any(len(p.vertices) for p in coll.get_paths()):
            return True
    return any(map(_patch_shows, ax.patches)) or bool(ax.images or ax.texts or ax.tables)


def _patch_shows(patch: Any) -> bool:
    """A bar drawn for a missing value (NaN height) shows nothing; any other patch does."""
    from matplotlib.patches import Rectangle

    if isinstance(patch, Rectangle):
        return all(math.isfinite(v) for v in (*patch.get_xy(), patch.get_width(), patch.get_height()))
    return True


def mark_empty_axes(fig: Any) -> int:
    """Write "no data in this run" (with the data sources that were skipped) across every panel of
    ``fig`` that shows nothing, so an empty figure is never mistaken for a result; returns how many."""
    empty = [ax for ax in fig.axes if ax.get_visible() and ax.axison and not _has_data(ax)]
    if not empty:
        return 0

    skipped = sorted(sources.status().get("skipped", {}))
    why = f"(skipped: {', '.join(skipped)})" if skipped else ""
    for ax in empty:
        # Wrapped to the panel's own width: matplotlib's wrap=True wraps at the figure's edge, so
        # notes of neighbouring panels ran into each other. The ticks of a panel without data
        # come from matplotlib's default limits and would suggest a scale that was never measured.
        ax.set_xticks([])
        ax.set_yticks([])
        ax.minorticks_off()  # a log axis keeps minor ticks otherwise
        note = "\n".join(["no data in this run", *([_wrap_to_axes(why, ax, fig, _NOTE_FONTSIZE)] if why else [])])
        ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center",
                va="center", fontsize=_NOTE_FONTSIZE, color="#a40",
                bbox={"facecolor": "white", "edgecolor": "none"})  # over a reference line, still legible
    return len(empty)


_NOTE_FONTSIZE = 8


def _wrap_to_axes(text: str, ax: Any, fig: Any, fontsize: float) -> str:
    """``text`` wrapped to lines that fit the width of ``ax`` (a character is about 0.6 em wide)."""
    width_pt = ax.get_position().width * fig.get_figwidth() * 72
    return textwrap.fill(text, max(12, int(0.9 * width_pt / (0.6 * fontsize))))


def _fig_metadata(ext: str) -> dict[str, Any]:
    # Fixed metadata keeps PDF/PNG bytes reproducible across runs.
    if ext == "pdf":
        return {"CreationDate": None, "Creator": "lcl", "Producer": "lcl"}
    return {"Software": "lcl"}
