"""wordpiece_ui/handout.py: a printable, self-contained handout of training steps i..j."""

import ast
import html
import re
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from helpers import TOY, html_table_rows, shown
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train
from wordpiece_ui import handout, safe, sources


def test_the_handout_of_the_toy_steps_1_to_3():
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10))
    page = handout.as_html(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    for number in ("5 / (20 × 5) = 1/20", "15 / (15 × 36) = 1/36", "5 / (15 × 5) = 1/15"):
        assert number in page
    assert page.count("<h2") == 3 and "<script" not in page and "http" not in page.split("<body>")[0].replace(
        "http://localhost:8501/?step=1", "")  # nothing loaded from anywhere
    assert "<code>h ##u ##g ##s</code>" in page  # the corpus as split before step 1
    md = handout.as_markdown(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    assert "## Step 3: hu + \\#\\#gs → hugs" in md and "1/15" in md and "| **`##g + ##s`** | 5 | 20 | 5 |" in md
    assert handout.as_html(t, "course-toy", "t", 1, 500, "x").count("<h2") == len(t.steps)  # clamped to the training


class _Tags(HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


HOSTILE = '[x](https://e.x/"onmouseover="alert(1)")'


def test_a_corpus_word_in_the_html_handout_is_text_not_a_link_or_an_attribute():
    t = train({HOSTILE: 5, "**b**": 3}, TrainerConfig(algorithm="bpe", vocab_size=200, top_k=10))
    link = "http://localhost:8501/?step=1"
    page = handout.as_html(t, "paste", "<b>my corpus</b>", len(t.steps) - 10, len(t.steps), link)
    assert "A whole word becomes one token" in page  # the note that names the word
    tags = _Tags()
    tags.feed(page)
    ours = {link} | {s.url for s in sources.ALL}  # the page's own link, and the notes' links to the sources
    assert {href for tag, attrs in tags.tags if tag == "a" for name, href in attrs} <= ours
    assert not [(tag, name) for tag, attrs in tags.tags for name, _ in attrs if name.startswith("on")]
    assert {"b", "img", "script"}.isdisjoint(tag for tag, _ in tags.tags)
    text = "".join(tags.text)
    assert HOSTILE in text and "<b>my corpus</b>" in text and "**b**" in text


def test_notes_keep_their_links_bold_and_code_in_the_html_handout(monkeypatch):
    from wordpiece_ui import notes

    note = f"**Why {safe.code('a`b + [c](https://e.x)')}?** See {sources.COURSE_WORDPIECE.md()} and [y](https://e.x), {safe.md('*z*')}."
    monkeypatch.setattr(notes, "for_step", lambda *args: [note])  # the step's one note
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10))
    page = handout.as_html(t, "course-toy", "Course toy words", 1, 1, "http://localhost:8501/?step=1")
    assert page.count("<p><strong>Why ") == 1 and (
        "<p><strong>Why <code>a`b + [c](https://e.x)</code>?</strong> See "
        f"<a href=\"{sources.COURSE_WORDPIECE.url}\">{html.escape(sources.COURSE_WORDPIECE.title, quote=False)}</a> "
        "and [y](https://e.x), *z*.</p>") in page


def test_a_corpus_word_in_the_markdown_handout_is_text():
    t = train({HOSTILE: 5, "<img src=x>": 4, "www.e.x": 3}, TrainerConfig(algorithm="bpe", vocab_size=200, top_k=10))
    md = handout.as_markdown(t, "paste", "[t](https://e.x)", 1, 40, "http://localhost:8501/?step=1")
    outside_code = re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", md)  # code spans show their text as it is
    for raw in (HOSTILE, "<img src=x>", "www.e.x", "](https://e.x", "[t]"):
        assert raw not in outside_code  # escaped wherever it is not code
    assert HOSTILE in shown(md) and "[t](https://e.x)" in shown(md)


def test_the_span_says_what_it_changed():
    """The handout once silently fell back to steps 1-5 when asked for step 10 of 9."""
    assert handout.span(9, 1, 5) == (1, 5, None)
    assert handout.span(9, 1, 10) == (1, 9, "Steps 1 to 9 (this training has 9 steps).")
    assert handout.span(9, 10, 12) == (9, 9, "Steps 9 to 9 (this training has 9 steps).")
    assert handout.span(9, 5, 2) == (2, 5, "Steps 2 to 5 (the range was given backwards).")
    assert handout.span(500, 1, 200) == (1, 50, "Steps 1 to 50 (a handout holds at most 50 steps).")


def test_the_worksheet_has_the_counts_and_no_answer():
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10))
    for make in (handout.as_html, handout.as_markdown):
        sheet = make(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1", False)
        full = make(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
        assert "Worksheet" in sheet and "which pair merges?" in sheet
        assert "1/20" in full and "1/20" not in sheet and "1/36" not in sheet  # no score
        assert "→ ##gs" in full.replace("\\#", "#") and "→" not in sheet  # no merge
        assert "h ##u ##g ##s" in sheet.replace("\\#", "#")  # the corpus before step 1
        assert sheet.count("Merged:") == 3
    sheet = handout.as_html(t, "course-toy", "t", 1, 1, "x", False)
    rows = re.findall(r"<tr><td><code>([^<]+)</code></td><td class='n'>([0-9,]+)</td>", sheet)
    assert [pair for pair, _ in rows] == sorted(pair for pair, _ in rows)  # alphabetical: the order gives nothing away
    assert ("##g + ##s", "5") in [(html.unescape(p), c) for p, c in rows] and "winner" not in sheet.split("<body>")[1]


# ----- a tie on paper: the worksheet prints the order its tie rule needs ---------------------------------------


def _candidates(sheet: str) -> list[dict[str, str]]:
    """The worksheet's one table of candidates, as rows of column → text."""
    (table,) = [t for t in html_table_rows(sheet) if t[0][:2] == ["pair", "count(ab)"]]
    return [dict(zip(table[0], row)) for row in table[1:]]


def _solved_on_paper(rows: list[dict[str, str]], tie_break: str) -> tuple[str, list[str]]:
    """What a student works out from the worksheet's table alone: each WordPiece score from the counts, the best,
    and among the pairs that share it the tie rule's pick by the printed order; and the pairs that tie."""
    def score(r):
        return Fraction(int(r["count(ab)"].replace(",", "")),
                        int(r["count(a)"].replace(",", "")) * int(r["count(b)"].replace(",", "")))

    best = max(score(r) for r in rows)
    tied = [r for r in rows if score(r) == best]
    if len(tied) == 1:
        return tied[0]["pair"], [tied[0]["pair"]]
    if tie_break == "first":
        pick = min(tied, key=lambda r: int(r["met first"].replace(",", "")))
    else:
        pick = min(tied, key=lambda r: ast.literal_eval(r["ids"]))
    return pick["pair"], sorted(r["pair"] for r in tied)


def _english_paragraphs():
    """english-paragraphs trained as the app trains it by default (WordPiece, its suggested settings)."""
    from wordpiece_core import train as train_any
    from wordpiece_ui import trained
    from wordpiece_ui.corpora import load_sample
    from wordpiece_ui.corpus_loading import text_settings
    from wordpiece_ui.settings import defaults_for

    settings = defaults_for("english-paragraphs", "wordpiece")
    return train_any(load_sample("english-paragraphs", text_settings(settings)).counts, trained.config_for(settings))


def test_step_1s_q_tie_on_english_paragraphs_is_solved_from_the_worksheet_alone():
    """Issue 47: q + ##u and ##q + ##u both score 2 / (2 × 31); only the order the course's rule scans the words in
    tells them apart, and the worksheet printed nothing of it."""
    t = _english_paragraphs()
    assert t.config.tie_break == "first" and (t.steps[0].left, t.steps[0].right) == ("q", "##u")
    sheet = handout.as_html(t, "english-paragraphs", "English paragraphs", 1, 1, "http://x", answers=False)
    rows = _candidates(sheet)
    pick, tied = _solved_on_paper(rows, "first")
    assert tied == ["##q + ##u", "q + ##u"] and pick == "q + ##u"
    met = {r["pair"]: (r["met first"], r["in the word"]) for r in rows}
    assert met["q + ##u"] == ("105", "quickly") and met["##q + ##u"] == ("191", "frequent")
    assert "the one met first" in sheet and "1/31" not in sheet  # how to read it, and still no score
    md = handout.as_markdown(t, "english-paragraphs", "English paragraphs", 1, 1, "http://x", answers=False)
    assert "| score | met first | in the word |" in md and "| `q + ##u` | 2 | 2 | 31 |  | 105 | `quickly` |" in md


@pytest.mark.parametrize("tie_break", ["first", "hf"])
def test_every_tied_step_of_the_toy_is_solved_from_the_worksheet_alone(tie_break):
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10, tie_break=tie_break))
    tied_steps = [s.step for s in t.steps if s.ties > 1]
    assert tied_steps  # step 2: six pairs at 1/36
    sheet = handout.as_html(t, "course-toy", "Course toy words", 1, len(t.steps), "http://x", answers=False)
    pages = sheet.split("<h2")[1:]
    for s in t.steps:
        rows = _candidates(pages[s.step - 1])
        pick, tied = _solved_on_paper(rows, tie_break)
        assert pick == f"{s.left} + {s.right}", (s.step, tied)
        column = "met first" if tie_break == "first" else "ids"
        assert (column in rows[0]) == (s.ties > 1)  # printed where the rule needs it, and only there
    answers = handout.as_markdown(t, "course-toy", "Course toy words", 2, 2, "http://x")
    assert ("| **`##u + ##g`** | 15 | 36 | 15 | 15 / (36 × 15) = 1/36 ≈ 0.0278 | (3, 0) |" in answers if tie_break == "hf"
            else "| **`h + ##u`** | 15 | 15 | 36 | 15 / (15 × 36) = 1/36 ≈ 0.0278 | 1 | `hug` |" in answers)


def test_the_tie_keys_are_the_trainers():
    """handout.tie_keys recounts the corpus as split before the step: the winner's key is the smallest of the tied."""
    for tie_break in ("first", "hf"):
        t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=50, tie_break=tie_break))
        for s in t.steps:
            tied = [(c.left, c.right) for c in s.candidates if c.score == s.score]
            keys = handout.tie_keys(t, s.step, tied)
            assert min(keys, key=keys.__getitem__) == (s.left, s.right)
