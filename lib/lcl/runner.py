"""Execute the numbered notebooks with papermill (``lcl notebook run NAME``).

Sources are jupytext ``notebooks/NN_name.py`` files; ``notebooks/NN_name.ipynb`` is built
from them (``make`` does it with a pattern rule; the runner does it when missing). Each run
injects the parameters ``profile``, ``seed``, ``jobs``, ``tables_dir`` and ``figures_dir``
into the cell tagged ``parameters`` and writes the executed notebook atomically to
``build/notebooks/<profile>/NN_name.ipynb``: an interrupted run leaves no half-written
notebook, so Make reruns it. Wall times are appended to ``build/notebooks/<profile>/timings.json``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import paths, profiles
from .errors import UserError
from .io import atomic_path, temporary_environ, write_json


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
    with temporary_environ({"LCL_NOTEBOOK": name, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}):
        try:
            with atomic_path(output) as tmp:
                try:
                    pm.execute_notebook(str(source), str(tmp), parameters=params, kernel_name="python3",
                                        cwd=str(paths.notebooks()), progress_bar=progress, log_output=False)
                except pm.PapermillExecutionError:
                    if Path(tmp).exists():  # papermill saved it with the traceback: keep it to read
                        shutil.copyfile(tmp, failed)
                    raise
        except pm.PapermillExecutionError as exc:
            where = f"; executed up to the error, with its traceback: {failed}" if failed.exists() else ""
            raise UserError(f"notebook {name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}{where}") from exc
    _record_timing(output.parent / "timings.json", name, time.perf_counter() - start)
    return output


def _record_timing(path: Path, name: str, seconds: float) -> None:
    timings = json.loads(path.read_text()) if path.exists() else {}
    timings[name] = round(seconds, 1)
    write_json(path, timings)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(subprocess.call([sys.executable, "-m", "lcl.cli", *sys.argv[1:]]))
