"""Writers for the compendium's outputs: tables (CSV + Markdown) and figures (PNG + PDF).

Each writer is atomic (see :mod:`lcl.io`) and leaves a provenance sidecar next to every file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from . import paths, provenance
from .io import atomic_path, write_text


def output_dirs(tables_dir: str = "", figures_dir: str = "") -> tuple[Path, Path]:
    """Where a notebook writes: its ``tables_dir``/``figures_dir`` parameters, else the defaults."""
    return (Path(tables_dir) if tables_dir else paths.tables(), Path(figures_dir) if figures_dir else paths.figures())


def save_table(df: pd.DataFrame, name: str, *, profile: str, seed: int | None, title: str = "",
               notes: list[str] | None = None, inputs: dict[str, str] | None = None,
               directory: Path | None = None) -> list[Path]:
    """Write ``tables/<name>.csv`` and ``tables/<name>.md`` (title, table, notes) + sidecars."""
    directory = directory or paths.tables()
    csv_path, md_path = directory / f"{name}.csv", directory / f"{name}.md"
    with atomic_path(csv_path) as tmp:
        df.to_csv(tmp, index=False)
    shown = df.astype(object).where(df.notna(), None)
    md = [f"# {title or name}", "", shown.to_markdown(index=False, floatfmt=".4g", missingval="—"), ""]
    if notes:
        md += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]
    write_text(md_path, "\n".join(md))
    for p in (csv_path, md_path):
        provenance.record(p, profile=profile, seed=seed, inputs=inputs)
    return [csv_path, md_path]


def save_figure(fig: Any, name: str, *, profile: str, seed: int | None,
                inputs: dict[str, str] | None = None, directory: Path | None = None) -> list[Path]:
    """Write ``figures/<name>.png`` (200 dpi) and ``.pdf`` + sidecars; returns the paths."""
    directory = directory or paths.figures()
    out = []
    for ext, kw in (("png", {"dpi": 200}), ("pdf", {})):
        path = directory / f"{name}.{ext}"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=ext, bbox_inches="tight", metadata=_fig_metadata(ext), **kw)
        provenance.record(path, profile=profile, seed=seed, inputs=inputs)
        out.append(path)
    return out


def _fig_metadata(ext: str) -> dict[str, Any]:
    # Fixed metadata keeps PDF/PNG bytes reproducible across runs.
    if ext == "pdf":
        return {"CreationDate": None, "Creator": "lcl", "Producer": "lcl"}
    return {"Software": "lcl"}
