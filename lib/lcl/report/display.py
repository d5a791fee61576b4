"""How a notebook shows a table to a reader: rounded numbers, each 95% CI beside its value as
``0.77 [0.76, 0.78]``, the status column first, and paper columns named after the paper's metric.

Display only: the saved tables (:func:`lcl.report.outputs.save_table`) keep every column as computed, so
``make verify`` and the claims read the same numbers as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

from lcl.engine.stats import number, with_ci

#: pairs of columns holding a 95% CI: (low, high) name patterns, ``{v}`` the value column's name
CI_PATTERNS = (("{v} CI low", "{v} CI high"), ("{v} ci_low", "{v} ci_high"), ("{v}_ci_low", "{v}_ci_high"),
               ("{v} low", "{v} high"))
#: a table with one value and one CI (e.g. Table 3's ``rho``, ``CI low``, ``CI high``)
LONE_CI = (("CI low", "CI high"), ("ci_low", "ci_high"))
#: columns shown first, in this order, when present
LEADING = ("status", "Status")
#: substitute labels -> the metric the paper ran (for "(paper)" columns only)
_SUBSTITUTE = re.compile(r"\[[^\]]*\]|-style(?: \(retrained\))?|_base")
PAPER_SUFFIX = " (paper)"


def paper_name(column: str) -> str:
    """``CodeBERTScore[MiniLM] (paper)`` -> ``CodeBERTScore (paper)``: the paper ran the original."""
    if not column.endswith(PAPER_SUFFIX):
        return column
    return _SUBSTITUTE.sub("", column[: -len(PAPER_SUFFIX)]).strip() + PAPER_SUFFIX


def _ci_columns(columns: list[str]) -> dict[str, tuple[str, str]]:
    """value column -> (low, high) columns found beside it."""
    found: dict[str, tuple[str, str]] = {}
    for v in columns:
        for lo, hi in CI_PATTERNS:
            pair = (lo.format(v=v), hi.format(v=v))
            if pair[0] in columns and pair[1] in columns:
                found[v] = pair
                break
    used = {c for pair in found.values() for c in pair}
    for lo, hi in LONE_CI:
        if lo in columns and hi in columns and lo not in used:
            left = [c for c in columns[: columns.index(lo)] if c not in used and c not in found]
            # the CI's value: the nearest column with a paper counterpart, else the nearest that is
            # not a p-value or a count (Table 3: rho, rho (paper), p-value, CI low, CI high)
            paired = [c for c in left if c + PAPER_SUFFIX in columns]
            plain = [c for c in left if not c.endswith(PAPER_SUFFIX) and not re.match(r"(?i)p[- ]?value|n$|pairs$", c)]
            if paired or plain:
                found[(paired or plain)[-1]] = (lo, hi)
    return found


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as text for reading (see the module's docstring); the index is kept."""
    cols = [str(c) for c in table.columns]
    frame = table.copy()
    frame.columns = cols
    cis = _ci_columns(cols)
    out = pd.DataFrame(index=frame.index)
    dropped = {c for pair in cis.values() for c in pair}
    for c in cols:
        if c in dropped:
            continue
        if c in cis:
            lo, hi = cis[c]
            out[f"{c} [95% CI]"] = [with_ci(v, a, b) for v, a, b in zip(frame[c], frame[lo], frame[hi], strict=True)]
        elif pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]):
            out[paper_name(c)] = [number(v) for v in frame[c]]
        else:
            out[paper_name(c)] = frame[c].astype(object).where(frame[c].notna(), "—")
    lead = [c for c in LEADING if c in out.columns]
    return out[lead + [c for c in out.columns if c not in lead]]


def show(*objects: Any) -> None:
    """``IPython.display.display`` with each DataFrame made :func:`readable` (wide tables wrap)."""
    from IPython.display import display

    for obj in objects:
        if isinstance(obj, pd.DataFrame):
            shown = readable(obj)
            styled = shown.style.set_table_styles(
                [{"selector": "td, th", "props": [("white-space", "normal"), ("max-width", "22em")]}])
            cis = [c for c in shown.columns if c.endswith("[95% CI]")]
            if cis:  # "0.77 [0.76, 0.78]" reads as one value only on one line
                styled = styled.set_properties(subset=cis, **{"white-space": "nowrap"})
            if isinstance(obj.index, pd.RangeIndex):  # row numbers say nothing to a reader
                styled = styled.hide(axis="index")
            display(styled)
        else:
            display(obj)


def bullets(lines: Iterable[str]) -> Any:
    """``lines`` as a Markdown bullet list for a notebook to show (``- line`` each)."""
    from IPython.display import Markdown

    return Markdown("\n".join(f"- {line}" for line in lines))
