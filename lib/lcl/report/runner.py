"""Execute the numbered notebooks with papermill (``lcl notebook run NAME``).

Sources are jupytext ``notebooks/NN_name.py`` files; ``notebooks/NN_name.ipynb`` is built
from them (``make`` does it with a pattern rule; the runner does it when missing). Each run
injects the parameters ``profile``, ``seed``, ``jobs``, ``tables_dir`` and ``figures_dir``
into the cell tagged ``parameters`` and writes the executed notebook atomically to
``build/notebooks/<profile>/NN_name.ipynb``: an interrupted run leaves no half-written
notebook, so Make reruns it. Wall times are appended to ``build/notebooks/<profile>/timings.json``.

The kernel draws figures with matplotlib's inline backend, so each figure a notebook makes is
shown in the executed notebook (its files are written by :func:`lcl.report.outputs.save_figure` as
before). What a notebook prints to stderr (progress bars, warnings) is moved from the executed
notebook to ``NN_name.stderr.log`` beside it, cell by cell: a red block in a rendered notebook then
means an error, and nothing printed is lost.

Each run records which library content produced it: the digest of the ``lcl`` modules the notebook
reads (:func:`lcl.core.deps.notebook_digest`, the one Make compares) is the executed notebook's
``metadata.lcl.lib_digest`` and, through ``LCL_LIB_DIGEST``, every provenance sidecar's ``lib_digest``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from lcl.core import deps, paths, profiles
from lcl.core.errors import UserError
from lcl.core.io import atomic_path, temporary_environ, write_json, write_text

#: the kernel's matplotlib backend: inline, so figures appear in the executed notebooks
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
#: how each cell's stderr starts in the log (benchmarks/stage_costs.py reads it back)
LOG_CELL_HEADER = "----- cell {index} (execution count {count}) -----"


def available_notebooks() -> list[str]:
    return sorted(p.stem for p in paths.notebooks().glob("[0-9][0-9]_*.py"))


def ensure_ipynb(name: str) -> Path:
    """Build ``notebooks/<name>.ipynb`` from its jupytext source when missing or older."""
    src = paths.notebook_source(name)
    dst = paths.notebook_ipynb(name)
    if not src.exists():
        raise UserError(f"no notebook source {src}; available: {', '.join(available_notebooks())}")
    if not dst.exists() or dst.stat().st_mtime < src.stat().st_mtime:
        import jupytext

        nb = jupytext.read(src)
        with atomic_path(dst) as tmp:
            jupytext.write(nb, tmp, fmt="ipynb")
    return dst


def run(name: str, *, profile: str = "full", seed: int = 20250101, jobs: int = 2,
        tables_dir: Path | None = None, figures_dir: Path | None = None,
        output: Path | None = None, progress: bool = True) -> Path:
    """Execute one notebook with papermill; return the executed notebook's path."""
    import papermill as pm

    profiles.get(profile)  # validate early
    source = ensure_ipynb(name)
    output = output or paths.executed_notebook(profile, name)
    params = {
        "profile": profile, "seed": seed, "jobs": jobs,
        "tables_dir": str(tables_dir or paths.tables()),
        "figures_dir": str(figures_dir or paths.figures()),
    }
    start = time.perf_counter()
    failed = output.with_name(f"{output.stem}.failed.ipynb")
    failed.unlink(missing_ok=True)
    digest = lib_digest(name, profile)
    with temporary_environ({"LCL_NOTEBOOK": name, "LCL_LIB_DIGEST": digest, "MPLBACKEND": INLINE_BACKEND,
                            "PYTHONHASHSEED": "0"}):
        try:
            with atomic_path(output) as tmp:
                try:
                    pm.execute_notebook(str(source), str(tmp), parameters=params, kernel_name="python3",
                                        cwd=str(paths.notebooks()), progress_bar=progress, log_output=False)
                except pm.PapermillExecutionError:
                    if Path(tmp).exists():  # papermill saved it with the traceback: keep it to read
                        shutil.copyfile(tmp, failed)
                    raise
                move_stderr_to_log(Path(tmp), output.with_name(f"{output.stem}.stderr.log"))
                record_lib_digest(Path(tmp), digest)
        except pm.PapermillExecutionError as exc:
            where = f"; executed up to the error, with its traceback: {failed}" if failed.exists() else ""
            raise UserError(f"notebook {name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}{where}") from exc
    _record_timing(output.parent / "timings.json", name, time.perf_counter() - start)
    return output


def lib_digest(name: str, profile: str) -> str:
    """The digest of the library content notebook ``name`` reads (``unknown`` when it cannot be
    computed); Make's scan cache for ``profile`` makes it a few milliseconds."""
    cache = paths.root() / "build" / "deps" / profile / ".scan.json"
    try:
        return deps.notebook_digest(paths.notebook_source(name), cache=cache)
    except (OSError, SyntaxError, KeyError, UnicodeDecodeError):
        return "unknown"


def record_lib_digest(notebook: Path, digest: str) -> None:
    """Write ``digest`` into the executed ``notebook``'s metadata as ``lcl.lib_digest``."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    nb.metadata.setdefault("lcl", {})["lib_digest"] = digest
    nbformat.write(nb, notebook)


def move_stderr_to_log(notebook: Path, log: Path) -> int:
    """Move every stderr stream output of ``notebook`` to ``log`` (rewritten), one section per cell;
    return how many outputs moved. stdout, results, figures and errors stay in the notebook."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    sections, moved = [], 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        kept, text = [], []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text.append(out.get("text", ""))
                moved += 1
            else:
                kept.append(out)
        if text:
            cell.outputs = kept
            sections.append(LOG_CELL_HEADER.format(index=index, count=cell.get("execution_count")))
            sections.append("".join(text).rstrip("\n"))
    write_text(log, "\n".join(sections) + ("\n" if sections else ""))
    if moved:
        nbformat.write(nb, notebook)
    return moved


def _record_timing(path: Path, name: str, seconds: float) -> None:
    timings = json.loads(path.read_text()) if path.exists() else {}
    timings[name] = round(seconds, 1)
    write_json(path, timings)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(subprocess.call([sys.executable, "-m", "lcl.cli", *sys.argv[1:]]))
