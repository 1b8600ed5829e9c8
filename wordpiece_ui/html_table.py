"""A table of numbers as plain HTML (st.html), for a page that must show its numbers at once: st.dataframe's grid
is a script of its own that a browser's first visit loads and starts, and a page's widgets wait for it (with the
chart's inline SVG, about 0.4 s of a first visit on this machine: benchmarks/HISTORY.md).

What it gives up against st.dataframe: sorting by a click on a header, resizing columns, searching; a page that shows
one offers a sort and a filter of its own, and the table's CSV. Every text is escaped (a tokenizer's name comes from a
file); each header says what its column means on hover (`title`).
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

# Light and dark: the header stays on top of the rows as they scroll, on the page's own background (Streamlit's
# themes': a browser test compares).
BACKGROUND = {False: "#FFFFFF", True: "#171614"}
ROWS_SHOWN = 12  # rows on screen before the box scrolls (its header stays)


def css(dark: bool) -> str:
    return ("<style>"
            f".wpl-table-box {{max-height: {1.9 * ROWS_SHOWN + 2.4:.1f}rem; overflow: auto; "
            "border: 1px solid rgba(128,128,128,.35); border-radius: .5rem}"
            ".wpl-table {border-collapse: separate; border-spacing: 0; width: 100%; font-size: .875rem; "
            "font-variant-numeric: tabular-nums; line-height: 1.35}"
            f".wpl-table th {{position: sticky; top: 0; z-index: 1; background: {BACKGROUND[dark]}; "
            "text-align: left; vertical-align: bottom; font-weight: 600; padding: .4rem .6rem; cursor: help; "
            "border-bottom: 1px solid rgba(128,128,128,.55)}"
            ".wpl-table td {padding: .3rem .6rem; border-bottom: 1px solid rgba(128,128,128,.18); "
            "white-space: nowrap; vertical-align: top}"
            ".wpl-table tr:last-child td {border-bottom: none}"
            ".wpl-table .wpl-num {text-align: right}"
            ".wpl-table td.wpl-wrap {white-space: normal; overflow-wrap: anywhere; min-width: 12rem; max-width: 20rem}"
            # a phone: the numbers come into view sooner; a long header on a few lines, not one word a line
            "@media (max-width: 640px) {.wpl-table {font-size: .8rem} .wpl-table th.wpl-num {min-width: 4.5rem} "
            ".wpl-table td.wpl-wrap {min-width: 7rem} .wpl-table td, .wpl-table th {padding: .3rem .4rem}}"
            "</style>")


def cell(value: object, digits: int = 2) -> str:
    """A value as the table writes it: a whole number with thousands separators, a real one to `digits` decimals,
    nothing for a missing value."""
    if value is None or value is pd.NA or (isinstance(value, numbers.Real) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, numbers.Integral):  # (numpy's integers too)
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return f"{float(value):,.{digits}f}"
    return str(value)


def table_html(frame: pd.DataFrame, helps: Mapping[str, str] | None = None, wrap: tuple[str, ...] = ()) -> str:
    """`frame` (its index left out) as an HTML table in a box that scrolls past ROWS_SHOWN rows: numeric columns
    right-aligned with two decimals (whole numbers with thousands separators), `helps` as the headers' hover text,
    the columns in `wrap` on several lines when long."""
    helps = helps or {}
    numeric = {c: pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns}

    def header(c: str) -> str:
        align = ' class="wpl-num"' if numeric[c] else ""
        hover = f' title="{html.escape(helps[c])}"' if c in helps else ""
        return f"<th{align}{hover}>{html.escape(str(c))}</th>"

    head = "".join(header(c) for c in frame.columns)
    classes = {c: ' class="wpl-num"' if numeric[c] else ' class="wpl-wrap"' if c in wrap else "" for c in frame.columns}
    rows = []
    for values in frame.itertuples(index=False, name=None):
        rows.append("<tr>" + "".join(f"<td{classes[c]}>{html.escape(cell(v))}</td>"
                                     for c, v in zip(frame.columns, values)) + "</tr>")
    return (f'<div class="wpl-table-box"><table class="wpl-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')
