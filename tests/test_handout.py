"""wordpiece_ui/handout.py: a printable, self-contained handout of training steps i..j."""

import html
import re
from html.parser import HTMLParser

from helpers import TOY, shown
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
