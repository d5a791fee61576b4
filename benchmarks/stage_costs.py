#!/usr/bin/env python
"""Where a ``make all`` run's time went: each executed notebook's wall time and its costliest
cells, read from the per-cell durations papermill records in ``build/notebooks/<profile>/``.

Prints one Markdown table: notebook, wall time, share of the notebooks' total, and the cells
that took at least ``--min-share`` of that notebook (the section heading above the cell, its
first code line, seconds). It measures nothing itself, so it can run beside other work; the
numbers are those of whatever run last wrote the notebooks.

    python benchmarks/stage_costs.py                    # full profile
    python benchmarks/stage_costs.py --profile quick --min-share 0.2
    python benchmarks/stage_costs.py --bars             # and the seconds behind each progress bar
    python benchmarks/stage_costs.py --plot docs/full_timing.svg --title "..."   # and a picture
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

from lcl.core import paths
from lcl.report.runner import LOG_CELL_HEADER


def _heading(cells: list[dict], index: int) -> str:
    """The nearest Markdown heading above cell ``index`` (without its hashes)."""
    for cell in reversed(cells[:index]):
        if cell["cell_type"] != "markdown":
            continue
        for line in "".join(cell["source"]).splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip()
    return ""


def _first_code_line(cell: dict) -> str:
    for line in "".join(cell["source"]).splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()[:70]
    return ""


def cell_costs(notebook: Path) -> tuple[float, list[tuple[str, str, float]]]:
    """Total seconds of the code cells of ``notebook`` and, per cell, (heading, first line, seconds)."""
    cells = json.loads(notebook.read_text())["cells"]
    rows = []
    for i, cell in enumerate(cells):
        seconds = (cell.get("metadata", {}).get("papermill", {}) or {}).get("duration")
        if cell["cell_type"] == "code" and seconds is not None:
            rows.append((_heading(cells, i), _first_code_line(cell), float(seconds)))
    return sum(r[2] for r in rows), rows


BAR = re.compile(r"^\s*(?P<label>[^:|]+?):\s+(?P<pct>\d+)%\|.*?\|\s*\d+/\d+\s+\[(?P<elapsed>[\d:]+)<")


def _seconds(clock: str) -> int:
    out = 0
    for part in clock.split(":"):
        out = out * 60 + int(part)
    return out


def _log_sections(notebook: Path) -> dict[int, str]:
    """Cell index -> the stderr text that the runner moved from ``notebook`` to its ``.stderr.log``."""
    log = notebook.with_name(f"{notebook.stem}.stderr.log")
    if not log.exists():
        return {}
    header = re.compile("^" + re.escape(LOG_CELL_HEADER).replace(r"\{index\}", r"(\d+)").replace(
        r"\{count\}", r"[^)]*") + "$", re.M)
    text = log.read_text()
    marks = list(header.finditer(text))
    return {int(m.group(1)): text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)]
            for i, m in enumerate(marks)}


def bar_seconds(notebook: Path) -> dict[str, int]:
    """Seconds per progress-bar label (``CodeBERTScore[MiniLM]``, ``fuzz pairs``...) summed over the
    bars the notebook printed: each bar's last elapsed time, read from tqdm's text in the cell's
    outputs and in the notebook's ``.stderr.log`` (where the runner moves stderr); a bar closed
    before 100% counts with its last printed time, so this is a lower bound."""
    totals: dict[str, int] = {}
    logged = _log_sections(notebook)
    for index, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        texts = [o.get("text", "") for o in cell.get("outputs", [])] + [logged.get(index, "")]
        current: dict[str, int] = {}  # a bar's updates are spread over many outputs of its cell
        for text in texts:
            for line in re.split(r"[\r\n]", "".join(text) if isinstance(text, list) else text):
                m = BAR.match(line)
                if not m:
                    continue
                label, seconds = m["label"].strip(), _seconds(m["elapsed"])
                if seconds < current.get(label, 0):  # a new bar with the same label
                    totals[label] = totals.get(label, 0) + current[label]
                current[label] = seconds
        for label, seconds in current.items():
            totals[label] = totals.get(label, 0) + seconds
    return totals


def plot(costs: dict[str, float], bars: dict[str, dict[str, int]], out: Path, title: str) -> None:
    """One horizontal bar per notebook, split into its largest progress bars and the rest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    totals: dict[str, int] = {}
    for per_nb in bars.values():
        for label, seconds in per_nb.items():
            totals[label] = totals.get(label, 0) + seconds
    shown = [label for label, seconds in sorted(totals.items(), key=lambda kv: -kv[1]) if seconds >= 60][:6]
    names = list(costs)[::-1]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(names) + 1.2))
    left = [0.0] * len(names)
    for label in [*shown, "rest of the notebook"]:
        widths = [float(bars[n].get(label, 0)) if label in shown
                  else max(costs[n] - sum(bars[n].get(x, 0) for x in shown), 0.0) for n in names]
        ax.barh(names, widths, left=left, label=label, color=None if label in shown else "0.8")
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_xlabel("seconds (2 cores)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="full")
    ap.add_argument("--min-share", type=float, default=0.10,
                    help="list the cells that took at least this share of their notebook (default 0.10)")
    ap.add_argument("--bars", action="store_true",
                    help="also print, per notebook, the seconds of each progress bar (per metric, fuzzing...)")
    ap.add_argument("--plot", type=Path, metavar="FILE",
                    help="also draw the notebooks' times, split by their largest progress bars, to FILE (.svg, .png)")
    ap.add_argument("--title", default="", help="the plot's title")
    args = ap.parse_args()

    folder = paths.executed_notebooks() / args.profile
    notebooks = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        sys.exit(f"stage_costs: no executed notebooks in {folder}; run `make all PROFILE={args.profile}` first")
    costs = {nb.stem: cell_costs(nb) for nb in notebooks}
    grand = sum(total for total, _ in costs.values()) or 1.0
    print("| notebook | s | share | costliest cells (section: first line, s) |\n|---|---:|---:|---|")
    for name, (total, rows) in costs.items():
        big = sorted((r for r in rows if r[2] >= args.min_share * max(total, 1e-9)), key=lambda r: -r[2])
        cells = "; ".join(f"{h or '(top)'}: `{line}` {s:.0f}" for h, line, s in big)
        print(f"| {name} | {total:.0f} | {total / grand:.0%} | {cells} |")
    print(f"| all notebooks | {grand:.0f} | 100% | |")
    if args.bars:
        print("\n| notebook | seconds per progress bar (at least 5 s) |\n|---|---|")
        for nb in notebooks:
            bars = sorted(bar_seconds(nb).items(), key=lambda kv: -kv[1])
            print(f"| {nb.stem} | " + "; ".join(f"{k} {v}" for k, v in bars if v >= 5) + " |")
    if args.plot:
        plot({name: total for name, (total, _) in costs.items()}, {nb.stem: bar_seconds(nb) for nb in notebooks},
             args.plot, args.title)


if __name__ == "__main__":
    main()
