"""How a report card (:mod:`lcl.report.report_card`) is written: ``card.json`` (every number), ``card.md``,
``card.html`` (one page, the intervals drawn in an embedded figure), a provenance sidecar, and
a row per metric in the cumulative leaderboard (:func:`lcl.core.paths.leaderboard`).

The pages show each section as a table with one row per metric (the four CEMs, then the metric
under test, marked) and one column per quantity, values as ``0.41 [0.38, 0.44]`` (95 % CI) or
``0.51 ± 0.03`` (mean ± std over RQ2's repetitions), as the notebooks show them."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from lcl.core import paths, provenance
from lcl.core.cache import file_digest
from lcl.core.io import atomic_path, write_json, write_text
from lcl.engine.stats import number, with_ci
from lcl.study import sources

from .report_card import CEM_LABELS, SECTIONS, Card

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: the leaderboard's columns: who, where, and the headline number of every section
LEADERBOARD_KEYS = ["metric", "spec", "version", "profile", "seed"]
#: column -> (section, quantity); quantity None: the largest absolute value over the section's quantities
LEADERBOARD_COLUMNS: dict[str, tuple[str, str | None]] = {
    "MAE LoCaL": ("table5", "MAE on LoCaL"),
    "MAE LoCaL_mut": ("table5", "MAE on LoCaL_mut"),
    "MAE LoCaL_opt": ("table5", "MAE on LoCaL_opt"),
    "MAE CodeScore_test": ("table5", "MAE on CodeScore_test"),
    "rho SurfaceSim (RQ1)": ("rq1", "rho with SurfaceSim"),
    "d ds_orig (RQ2)": ("rq2", "d on ds_orig"),
    "d ds_replaced (RQ2)": ("rq2", "d on ds_replaced"),
    "SFD badly wrong % (paper thresholds)": ("rq3", "SFD %, paper's thresholds"),
    "DFS badly wrong % (paper thresholds)": ("rq3", "DFS %, paper's thresholds"),
    "largest |shift| (X2)": ("x2", None),
    "AUROC (X3)": ("x3", "AUROC within groups"),
    "ECE LoCaL (X4)": ("x4", "ECE on LoCaL"),
}


def slug(text: str) -> str:
    """A folder name for a metric (``examples.toy_metric:score`` -> ``examples.toy_metric_score``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "metric"


def default_dir(card: Card) -> Path:
    return paths.evaluations() / slug(card.candidate.spec) / card.profile


def cell(row: pd.Series) -> str:
    """One value as the notebooks show it: with its CI, or ± its std over repetitions."""
    std = row.get("std")
    if std is not None and isinstance(std, float) and not math.isnan(std):
        return f"{number(row['value'])} ± {number(std)}"
    return with_ci(row["value"], row.get("ci_low"), row.get("ci_high"))


#: sections with more quantities than metrics, shown with a row per quantity
TALL = ("x2",)


def wide(card: Card, section: str) -> pd.DataFrame:
    """One section as metric rows x quantity columns (the metric under test marked, last), or,
    for :data:`TALL` sections, quantity rows x metric columns."""
    t = card.table[card.table.section == section]
    if t.empty:
        return pd.DataFrame()
    t = t.assign(shown=[cell(r) for _, r in t.iterrows()])
    if section in TALL:
        out = t.pivot_table(index="quantity", columns="metric", values="shown", aggfunc="first", sort=False)
        out = out[[m for m in card.columns if m in out.columns]]
        out.columns = [_marked(card, m) for m in out.columns]
        out.index.name = "perturbation (kind, side: edit)"
        return out.reset_index().fillna("—")
    out = t.pivot_table(index="metric", columns="quantity", values="shown", aggfunc="first", sort=False)
    order = [m for m in [*card.columns, *sorted(set(out.index) - set(card.columns))] if m in out.index]
    out = out.reindex(order)
    out.index = [_marked(card, m) for m in out.index]
    out.index.name = "metric"
    out.columns.name = None
    return out.reset_index().fillna("—")


def _marked(card: Card, metric: str) -> str:
    return f"{metric} (under test)" if metric == card.candidate.column and metric not in CEM_LABELS else metric


def _n_note(card: Card, section: str) -> str:
    t = card.table[card.table.section == section]
    if t.empty:
        return ""
    ns = t.groupby("quantity", sort=False)["n"].max()
    unit = {"x3": "matched groups", "rq2": "equivalent pairs per repetition", "rq3": "pairs in the region"}
    return "n: " + ", ".join(f"{q} {int(v)}" for q, v in ns.items() if v == v) + f" ({unit.get(section, 'pairs')})"


# ----------------------------------------------------------------------------- Markdown
def markdown(card: Card) -> str:
    c = card.candidate
    lines = [f"# Report card: {c.label}", "", f"**Verdict.** {card.verdict}", "",
             f"Metric `{c.spec}` (version {c.version}); profile `{card.profile}`, seed {card.seed}. "
             f"{_failure_text(card)}", "",
             "CodeBERTScore[MiniLM] and CodeScore-style (retrained) are substitutes for the paper's CodeBERTScore "
             "and CodeScore. 95% CIs in brackets (bootstrap over pairs, Wilson for shares, cluster bootstrap over "
             "groups for AUROC); RQ2 shows mean ± std over repetitions.", ""]
    for section, title in SECTIONS.items():
        w = wide(card, section)
        if w.empty:
            continue
        lines += [f"## {title}", "", w.to_markdown(index=False), "", _n_note(card, section), ""]
    if card.not_run:
        lines += ["## Not run", ""] + [f"- **{k}**: {v}" for k, v in card.not_run.items()] + [""]
    if card.failures:
        lines += ["## Pairs the metric failed on", ""]
        lines += [f"- `{f['pair']}`: {f['error']}" for f in card.failures[:20]]
        lines += ([f"- ... and {len(card.failures) - 20} more (card.json lists them all)"]
                  if len(card.failures) > 20 else []) + [""]
    th = card.thresholds
    lines += ["## RQ3's thresholds", "", f"- paper: {_th(th.get('paper'))}",
              f"- ours: {_th(th.get('ours'))} ({th.get('ours_source')})", "",
              "Badly wrong: an SFD pair (df_score <= y_lo) scored >= y_hi, or a DFS pair (df_score >= y_hi) scored "
              "<= y_lo.", ""]
    return "\n".join(lines)


def _th(t: dict[str, float | str] | None) -> str:
    if not t:
        return "none (Algorithm 2 found no tuple)"
    return ", ".join(f"{k} = {t[k]:g}" for k in ("x_lo", "x_hi", "y_lo", "y_hi"))


def _failure_text(card: Card) -> str:
    parts = (["Scored with the four CEMs, as the notebooks score it (their score cache)."]
             if card.candidate.column in CEM_LABELS else [f"{card.scored_pairs} distinct pairs scored."])
    if card.failures:
        parts.append(f"The metric raised on {len(card.failures)} pairs; they are left out of every statistic.")
    if card.missing:
        parts.append(f"{card.missing} pairs have no score in the external file; they are left out.")
    if not card.candidate.java:
        parts.append("Java (ShareCode_java) not scored: the metric does not declare Java "
                     "(`languages = (\"python\", \"java\")` in its module).")
    return " ".join(parts)


# ----------------------------------------------------------------------------- figure
#: the figure's panels: section, y-axis label
PANELS = (("table5", "MAE (lower is better)"), ("rq1", "Spearman rho (0 is ideal)"),
          ("rq2", "d, mean ± std (higher is better)"), ("rq3", "% badly wrong (lower is better)"),
          ("x3", "AUROC (0.5 is chance)"), ("x4", "ECE (lower is better)"), ("x2", "mean score shift (0 is robust)"))


def figure_png(card: Card) -> bytes:
    """One panel per section: each quantity a group, each metric a point with its 95 % CI (RQ2:
    ± std over repetitions); the metric under test in black. X2, with a group per perturbation,
    takes a row of its own."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(s, y) for s, y in PANELS if (card.table.section == s).any()]
    small = [p for p in panels if p[0] not in TALL]
    tall = [p for p in panels if p[0] in TALL]
    ncol = min(3, max(1, len(small)))
    rows = math.ceil(len(small) / ncol) + len(tall)
    fig = plt.figure(figsize=(4.2 * ncol, 3.3 * rows + 0.6))
    grid = fig.add_gridspec(max(1, rows), ncol)
    axes = [fig.add_subplot(grid[i // ncol, i % ncol]) for i in range(len(small))]
    axes += [fig.add_subplot(grid[math.ceil(len(small) / ncol) + k, :]) for k in range(len(tall))]
    metrics = [*card.columns, "constant score (trivial)"]
    colours = {m: f"C{i}" for i, m in enumerate(CEM_LABELS)}
    colours[card.candidate.column] = "black"
    colours["constant score (trivial)"] = "0.6"
    for ax, (section, ylabel) in zip(axes, [*small, *tall], strict=True):
        t = card.table[card.table.section == section]
        _panel(ax, t[~t.quantity.str.startswith("drop")], metrics, colours)  # a % beside d's would flatten them
        ax.set_title(SECTIONS[section].split(":")[0], fontsize=10)
        ax.set_ylabel(ylabel, fontsize=8)
    handles = [plt.Line2D([], [], marker="o", ls="", color=colours[m], label=m) for m in metrics
               if (card.table.metric == m).any()]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def _bar(r: pd.DataFrame, v: float) -> list[list[float]] | None:
    """The error bar of one point: its CI, or ± its std (RQ2); values are rounded to 3 decimals and
    CIs to 4, so a bar never reaches past its point."""
    std = float(r["std"].iloc[0]) if "std" in r and r["std"].iloc[0] is not None else float("nan")
    if math.isfinite(std):
        return [[std], [std]]
    lo, hi = float(r["ci_low"].iloc[0]), float(r["ci_high"].iloc[0])
    return [[max(0.0, v - lo)], [max(0.0, hi - v)]] if math.isfinite(lo) and math.isfinite(hi) else None


def _panel(ax: Axes, t: pd.DataFrame, metrics: list[str], colours: dict[str, str]) -> None:
    quantities = list(dict.fromkeys(t["quantity"]))
    shown = [m for m in metrics if (t.metric == m).any()]
    w = 0.8 / max(1, len(shown))
    for j, m in enumerate(shown):
        for i, q in enumerate(quantities):
            r = t[(t.quantity == q) & (t.metric == m)]
            if r.empty or not math.isfinite(float(r["value"].iloc[0])):
                continue
            v = float(r["value"].iloc[0])
            ax.errorbar(i + (j - (len(shown) - 1) / 2) * w, v, yerr=_bar(r, v), fmt="o", ms=4, capsize=2,
                        color=colours.get(m, "C9"))
    labels = [re.sub(r"^(MAE on |ECE on |d on )", "", q).replace(", paper's thresholds", "\n(paper th.)")
              .replace(", our thresholds", "\n(our th.)") for q in quantities]
    if len(quantities) > 6:
        ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xticks(range(len(quantities)), labels, rotation=20 if len(quantities) > 2 else 0,
                  ha="right" if len(quantities) > 2 else "center", fontsize=8)
    ax.set_xlim(-0.6, len(quantities) - 0.4)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="y", alpha=0.3)


# ----------------------------------------------------------------------------- HTML
_CSS = """body{font-family:system-ui,sans-serif;max-width:1180px;margin:1.5em auto;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.05em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
.verdict{background:#f4f6fa;border-left:4px solid #345;padding:.7em 1em;font-size:1.05em}
table{border-collapse:collapse;font-size:.85em} td,th{border:1px solid #ddd;padding:.25em .5em}
td{white-space:nowrap} th{background:#f2f2f2;max-width:14em;font-weight:600} table.wrap td{white-space:normal}
tr.test td,td.test,th.test{font-weight:600;background:#fffbe6} .note{color:#555;font-size:.85em}
img{max-width:100%}"""


def html_page(card: Card) -> str:
    c = card.candidate
    png = base64.b64encode(figure_png(card)).decode()
    body = [f"<h1>Report card: {html.escape(c.label)}</h1>",
            f"<p class='note'>metric <code>{html.escape(c.spec)}</code> (version {html.escape(c.version)}) · "
            f"profile <code>{card.profile}</code> · seed {card.seed} · {html.escape(_failure_text(card))}</p>",
            f"<p class='verdict'><b>Verdict.</b> {html.escape(card.verdict)}</p>",
            f"<img alt='every interval of the card' src='data:image/png;base64,{png}'>",
            "<p class='note'>Points: values; bars: 95% CIs. The metric under test is black. CodeBERTScore[MiniLM] "
            "and CodeScore-style (retrained) are substitutes for the paper's models.</p>"]
    for section, title in SECTIONS.items():
        w = wide(card, section)
        if w.empty:
            continue
        body += [f"<h2>{html.escape(title)}</h2>", _html_table(w),
                 f"<p class='note'>{html.escape(_n_note(card, section))}</p>"]
    if card.not_run:
        body += ["<h2>Not run</h2><ul>"] + [f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>"
                                            for k, v in card.not_run.items()] + ["</ul>"]
    if card.failures:
        body += [f"<h2>Pairs the metric failed on ({len(card.failures)})</h2><ul>"]
        body += [f"<li><code>{html.escape(f['pair'])}</code>: {html.escape(f['error'])}</li>" for f in card.failures[:20]]
        body += ["</ul>"]
    th = card.thresholds
    body += ["<h2>RQ3's thresholds</h2>",
             f"<p class='note'>paper: {html.escape(_th(th.get('paper')))}; ours: {html.escape(_th(th.get('ours')))} "
             f"({html.escape(str(th.get('ours_source')))}). Badly wrong: an SFD pair (df_score &le; y_lo) scored "
             "&ge; y_hi, or a DFS pair (df_score &ge; y_hi) scored &le; y_lo.</p>"]
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Report card: {html.escape(c.label)}</title>"
            f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>")


def _html_table(w: pd.DataFrame) -> str:
    """A section's table; the row (or, in a tall table, the column) of the metric under test stands out."""
    test_cols = {i for i, c in enumerate(w.columns) if str(c).endswith("(under test)")}
    mark = " class='test'"

    def cells(tag: str, values: list[object]) -> str:
        return "".join(f"<{tag}{mark if i in test_cols else ''}>{html.escape(str(v))}</{tag}>"
                       for i, v in enumerate(values))

    rows = [f"<tr{mark if str(r.iloc[0]).endswith('(under test)') else ''}>{cells('td', list(r))}</tr>"
            for _, r in w.iterrows()]
    kind = " class='wrap'" if test_cols or len(w.columns) > 5 else ""  # wide tables wrap "value [low, high]"
    return f"<table{kind}><thead><tr>{cells('th', list(w.columns))}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


# ----------------------------------------------------------------------------- files
def data_versions(profile: str) -> dict[str, str]:
    """Digests of the built pair files a card reads, and the raw sources present."""
    out = {}
    for p in (paths.local_pairs(profile), paths.codescore_base_record(profile)):
        if p.exists():
            out[str(p.relative_to(paths.root()) if p.is_relative_to(paths.root()) else p)] = file_digest(p)
    st = sources.status()
    out["raw sources skipped"] = ", ".join(sorted(st.get("skipped", {}) or [])) or "none"
    return out


def write(card: Card, out: Path | None = None) -> list[Path]:
    """card.json, card.md, card.html and card.json's provenance sidecar in ``out`` (default
    :func:`default_dir`), and the card's rows in the leaderboard."""
    out = out or default_dir(card)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "card.json", out / "card.md", out / "card.html"]
    write_json(written[0], card.to_json())
    write_text(written[1], markdown(card))
    write_text(written[2], html_page(card))
    extra = {"metric": {"spec": card.candidate.spec, "label": card.candidate.label,
                        "version": card.candidate.version}}
    for p in written:
        provenance.record(p, profile=card.profile, seed=card.seed, notebook="lcl evaluate",
                          inputs=data_versions(card.profile), extra=extra)
    written.append(update_leaderboard(card))
    return written


def leaderboard_rows(card: Card) -> pd.DataFrame:
    """One row per metric of the card (the four CEMs too): its headline numbers."""
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    rows = []
    for m in card.columns:
        test = m == card.candidate.column
        row: dict[str, str | float] = {"metric": m, "spec": card.candidate.spec if test else m,
                                       "version": card.candidate.version if test else "as the notebooks score it",
                                       "profile": card.profile, "seed": card.seed}
        for name, (section, quantity) in LEADERBOARD_COLUMNS.items():
            t = card.table[(card.table.section == section) & (card.table.metric == m)]
            if quantity is None:
                row[name] = float(t["value"].abs().max()) if len(t) else float("nan")
                continue
            r = t[t.quantity == quantity]
            row[name] = float(r["value"].iloc[0]) if len(r) else float("nan")
        row["failed pairs"] = len(card.failures) if test else 0
        row["evaluated (UTC)"] = now
        rows.append(row)
    return pd.DataFrame(rows)


def update_leaderboard(card: Card, path: Path | None = None) -> Path:
    """Add the card's rows to the leaderboard, replacing earlier rows of the same metric,
    version and profile."""
    path = path or paths.leaderboard()
    new = leaderboard_rows(card)
    old = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=new.columns)
    key = ["metric", "version", "profile"]
    old = old[~old[key].astype(str).apply(tuple, axis=1).isin(set(new[key].astype(str).apply(tuple, axis=1)))]
    both = pd.concat([old, new], ignore_index=True) if len(old) else new
    both = both.sort_values(["profile", "MAE LoCaL", "metric"], na_position="last").reset_index(drop=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        both.to_csv(tmp, index=False)
    return path
