"""The code views in AppTest: the Train page's panel *The algorithm in code* (a merge step, merges_view.py) and a
Unigram round's *The algorithm in code* (rounds_view.code_box) draw the functions in play as HTML, their
highlighted lines with the step's values under them (algorithm_code.py holds what they draw)."""

import html
import re

import pytest

from helpers import app
from wordpiece_ui import state

pytest.importorskip("streamlit.testing.v1")  # AppTest


def code_view(at) -> str:
    """The text of the page's code view (its one Markdown block of code lines), as a reader sees it."""
    (block,) = [m.value for m in at.markdown if "wpl-code-src" in m.value]
    return html.unescape(re.sub(r"<style>.*?</style>|<[^<>]+>", " ", block, flags=re.S)).replace("\u200b", "")


def test_the_merge_panel_shows_the_loop_with_step_2s_lines_and_values():
    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    assert not any("wpl-code" in m.value for m in at.markdown)  # drawn only when opened
    at.session_state[state.CODE_OPEN] = True  # the expander opened
    at.run()
    assert not at.exception
    (block,) = [m.value for m in at.markdown if "wpl-code-src" in m.value]
    assert block.count('class="wpl-code-line wpl-code-hot"') >= 10  # highlighted lines, not comments
    text = code_view(at)
    assert text.index("def train(") < text.index("def count(") < text.index("def tie_key(")  # the loop first
    for value in ("count(h ##u) = 15, count(h) = 15, count(##u) = 36", "top = 15 / (15 × 36) = 1/36 ≈ 0.0278",
                  "new = 'hu'", "ties = 6", "(0,) for h + ##u", "first[('h', '##u')] = 0"):
        assert value in text, value
    assert "# ←" not in text  # the values are beside the code, not comments in it
    assert any("Highlighted" in c.value or "highlighted" in c.value for c in at.caption)


def test_a_unigram_round_shows_the_course_loop_with_its_numbers():
    at = app(corpus="course-toy", algorithm="unigram", unigram_rule="course", step=1)
    assert not at.exception
    text = code_view(at)
    assert "def train(" in text and "def removal_scores(" in text
    for value in ("len(counts) = 15 > vocab_size = 11", "n = max(1, int(15 × 10 / 100)) = 1", "removed = ['ug']"):
        assert value in text, value


def test_a_tokenizers_last_round_shows_why_nothing_is_pruned():
    at = app(corpus="course-toy", algorithm="unigram", unigram_rule="tokenizers", step=1)
    assert not at.exception
    text = code_view(at)
    assert "if len(pieces) <= desired:" in text and "no pruning" in text and "def m_step(" in text
