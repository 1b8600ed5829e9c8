"""html_table: a frame as an HTML table (the fairness page's numbers): every text escaped, numbers written as prose
writes them, each header's meaning on hover; read back, the same table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import html_tables
from wordpiece_ui.html_table import cell, css, table_html


def test_a_name_from_a_file_stays_text_and_numbers_read_as_prose_writes_them():
    hostile = "<b>x</b> & y\n</td><script>alert('1')</script>"
    frame = pd.DataFrame({"tokenizer": [hostile, "gpt2"], "premium": [7.456, np.nan], "tokens": [12345, 7]})
    made = table_html(frame, {"premium": 'tokens over "English"'}, wrap=("tokenizer",))
    assert "<script" not in made and "<b>" not in made and "&lt;b&gt;x&lt;/b&gt; &amp; y" in made
    assert '<th class="wpl-num" title="tokens over &quot;English&quot;">premium</th>' in made
    assert '<td class="wpl-num">7.46</td>' in made and '<td class="wpl-num">12,345</td>' in made
    assert '<td class="wpl-num"></td>' in made  # a missing value: an empty cell, never "nan" or "None"
    assert '<td class="wpl-wrap">' in made and made.startswith('<div class="wpl-table-box">')
    (back,) = html_tables(made)
    assert list(back.columns) == ["tokenizer", "premium", "tokens"] and back.at[0, "tokenizer"] == hostile
    assert back["tokens"].tolist() == [12345, 7] and back.at[0, "premium"] == 7.46 and math.isnan(back.at[1, "premium"])


def test_cells():
    assert [cell(v) for v in (None, float("nan"), pd.NA, np.int64(1234567), 3, True, 2.0, np.float32(0.125))] == \
           ["", "", "", "1,234,567", "3", "True", "2.00", "0.12"]
    assert cell(1234.5678, 1) == "1,234.6" and cell("a<b") == "a<b"  # (escaped by table_html)


def test_the_header_stays_on_the_themes_background():
    assert "#FFFFFF" in css(False) and "#171614" in css(True) and "position: sticky" in css(True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=12).filter(lambda t: t.strip() == t and "," not in t),
                          st.integers(-10**9, 10**9),
                          st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: round(f, 2))),
                min_size=1, max_size=8))
def test_read_back_it_is_the_same_table(rows):
    """Any text (markup, quotes, Unicode) comes back as it was, and every number too (to its decimals)."""
    frame = pd.DataFrame(rows, columns=["name", "count", "share"])
    (back,) = html_tables(table_html(frame))
    assert back["count"].tolist() == frame["count"].tolist()
    assert np.allclose(back["share"].astype(float), frame["share"], atol=0.0051)
    texts = back["name"].astype(str).tolist()
    numeric_looking = pd.to_numeric(frame["name"].str.replace(",", ""), errors="coerce").notna().all()
    if not numeric_looking:
        assert texts == frame["name"].tolist()
