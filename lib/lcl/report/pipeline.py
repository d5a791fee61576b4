"""Figure 3 of the paper (the LoCaL construction pipeline), drawn from the Makefile's own
dependency graph so it cannot drift from the code.

``make -pnq all`` prints Make's database; every explicit rule ``target: prerequisites`` is
read from it, and files are collapsed into readable groups (the library, the constraint
specs, each notebook's tables and figures). The layered drawing puts every group one column
right of its deepest prerequisite.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.study.overview import unavailable_figure


def make_rules(profile: str = "quick") -> dict[str, list[str]]:
    """target -> prerequisites, from ``make -pnq all PROFILE=profile`` (nothing is built)."""
    proc = subprocess.run(["make", "-pnq", "all", f"PROFILE={profile}"], cwd=paths.root(), capture_output=True,
                          text=True, check=False)
    rules: dict[str, list[str]] = {}
    in_files = False
    for line in proc.stdout.splitlines():
        if line.startswith("# Files"):
            in_files = True
        elif line.startswith("# Finished Make data base"):
            break
        elif in_files and line and not line.startswith(("#", "\t", " ")) and ":" in line and "=" not in line.split(":")[0]:
            target, _, prereqs = line.partition(":")
            if target.startswith(".") or "%" in target:
                continue
            rules[target.strip()] = prereqs.replace("|", " ").split()
    # -q exits 1 when something is out of date and 2 on an error; a missing prerequisite (a scratch
    # root without the lock file) still prints the rules, an error while reading the Makefile does not
    if proc.returncode == 2 and not any(t.startswith("build/notebooks/") for t in rules) and "***" in proc.stderr:
        raise UserError(f"{paths.root() / 'Makefile'}: {proc.stderr.strip().splitlines()[-1]}")
    return rules


def group(path: str) -> str | None:
    """The node a file belongs to in Figure 3 (None: leave it out)."""
    if path.startswith(("lib/", "build/deps/")):  # a notebook reads lib/ through its digest of what it imports
        return "lib/lcl (library)"
    if path.startswith("data/constraints/"):
        return "data/constraints (input specs)"
    if path == "data/raw/.verified" or path == "data/sources.toml":
        return "raw sources (registry, mirror)"
    if path.startswith("data/reference/"):
        return "paper numbers"
    if m := re.match(r"build/notebooks/[^/]+/(\w+)\.ipynb$", path):
        return f"notebook {m.group(1)}"
    if path.startswith("build/report/"):
        return "HTML report"
    if path.startswith(("tables/", "figures/")):
        return None  # attached to their notebook below
    return None


def collapsed_graph(rules: dict[str, list[str]]) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """Edges between groups and, per notebook, the outputs it declares."""
    edges: dict[str, set[str]] = defaultdict(set)
    outputs: dict[str, list[str]] = defaultdict(list)
    for target, prereqs in rules.items():
        t = group(target)
        if target.startswith(("tables/", "figures/")):
            src = next((f"notebook {p.split('/')[-1].split('.')[0]}" for p in prereqs if p.startswith("notebooks/")), None)
            if src:
                outputs[src].append(target)
            continue
        if t is None:
            continue
        for p in prereqs:
            g = group(p)
            if g and g != t:
                edges[g].add(t)
    return edges, outputs


def figure3(profile: str = "quick"):
    """Draw the collapsed dependency graph (matplotlib Figure)."""
    import matplotlib.pyplot as plt

    edges, outputs = collapsed_graph(make_rules(profile))
    if not edges:
        return unavailable_figure("Figure 3: construction pipeline", "no Makefile rules found at the project root")
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for nb, outs in outputs.items():
        label = f"{nb.split()[-1]} outputs\n({sum(o.startswith('tables/') for o in outs)} tables, " \
                f"{sum(o.startswith('figures/') for o in outs)} figures)"
        edges[nb].add(label)
        nodes |= {nb, label}
    preds: dict[str, set[str]] = defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            preds[b].add(a)
    depth: dict[str, int] = {}

    def d(n: str, seen: frozenset[str] = frozenset()) -> int:
        if n not in depth:
            depth[n] = 0 if not preds[n] or n in seen else 1 + max(d(p, seen | {n}) for p in preds[n])
        return depth[n]

    for n in nodes:
        d(n)
    cols: dict[int, list[str]] = defaultdict(list)
    for n in sorted(nodes):
        cols[depth[n]].append(n)
    pos = {}
    for c, ns in cols.items():
        for i, n in enumerate(ns):
            pos[n] = (c * 3.2, -(i - (len(ns) - 1) / 2) * 1.3)
    fig, ax = plt.subplots(figsize=(3.2 * len(cols) + 1, 1.3 * max(len(v) for v in cols.values()) + 1.2))
    boxes = {}
    for n, (x, y) in pos.items():
        color = "#dbe9f6" if n.startswith("notebook") else "#f3e3c3" if "outputs" in n else "#e6e6e6"
        boxes[n] = ax.text(x, y, n, ha="center", va="center", fontsize=8,
                           bbox={"boxstyle": "round,pad=0.4", "fc": color, "ec": "#555", "lw": 0.6})
    for a, bs in edges.items():
        for b in bs:  # arrows from the right edge of a's box to the left edge of b's box
            ax.annotate("", xy=(0, 0.5), xycoords=boxes[b], xytext=(1, 0.5), textcoords=boxes[a],
                        arrowprops={"arrowstyle": "->", "color": "#777", "lw": 0.8, "shrinkA": 4, "shrinkB": 4})
    ax.set_xlim(-1.6, 3.2 * (len(cols) - 1) + 1.6)
    ys = [y for _, y in pos.values()]
    ax.set_ylim(min(ys) - 1, max(ys) + 1)
    ax.axis("off")
    ax.set_title("Figure 3. The construction pipeline, from the Makefile's dependency graph", fontsize=10)
    fig.tight_layout()
    return fig
