"""Issue 13: the app explains itself. The introduction, the glossary, sources named by title
(no file numbers on screen), the plain algorithm with the step's values, notes computed
from the step, "why is this word split like this", the handout and the fertility note."""

import re

import pytest

from helpers import TOY, app, everything
from wordpiece_core.engine import train
from wordpiece_core.config import TrainerConfig
from wordpiece_ui import algorithm_code, compare, glossary, handout, state

pytest.importorskip("streamlit.testing.v1")  # AppTest
FILE_NUMBER = re.compile(r"\bseeds? 0\d\d", re.IGNORECASE)


def test_the_introduction_shows_once_and_is_dismissed_for_the_session():
    at = app(corpus="course-toy", algorithm="wordpiece", step=1)
    body = everything(at)
    assert "New here?" in body and "h ##u ##g ##s" in body and "5 / (20 × 5) = 1/20" in body
    next(b for b in at.button if b.label == "Got it").click().run()
    assert "New here?" not in everything(at)
    at.session_state["step_value"] = 2
    at.run()
    assert "New here?" not in everything(at)  # remembered


def test_no_source_is_named_by_its_file_number_on_any_page():
    screens = [app(corpus="course-toy", algorithm="wordpiece", step=s) for s in (1, 3)]
    screens.append(app(corpus="low-lower-newest-widest", algorithm="wordpiece", step=1))
    screens += [app("pages/compare.py", corpus="course-toy"), app("pages/playground.py", corpus="course-toy"),
                app("pages/corpora.py", corpus="course-toy")]
    for at in screens:
        body = everything(at)
        assert body.strip()
        assert not FILE_NUMBER.search(body), FILE_NUMBER.search(body)
    corpora = everything(screens[-1])
    assert "WordPiece Tokenization: BERT's Subword Algorithm Explained" in corpora  # by title …
    assert "https://huggingface.co/learn/llm-course/chapter6/6" in "\n".join(m.value for m in screens[-1].markdown)  # … linked
    for term in ("fertility", "count(ab)", "Δ log-likelihood", "##", "|V|"):
        assert f"**{term}**" in "\n".join(m.value for m in screens[-1].markdown)  # the glossary section


def test_the_code_expander_shows_the_plain_trainer_with_this_steps_values():
    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    assert not any("def train(" in c.value for c in at.code)  # drawn only when opened
    at.session_state[state.CODE_OPEN] = True  # the expander opened
    at.run()
    code = next(c.value for c in at.code if "def train(" in c.value)
    assert "# ← step 2: count(h ##u) = 15, count(h) = 15, count(##u) = 36" in code
    assert "# ← step 2: 15 / (15 × 36) = 1/36 ≈ 0.0278" in code
    assert "tie_break = 'first': 6 pairs tied at 1/36" in code
    assert "new = 'hu'" in code


def test_every_anchor_of_the_code_view_is_a_line_of_the_reference_trainer():
    lines = algorithm_code.source().splitlines()
    for name, anchor in algorithm_code.ANCHORS.items():
        assert sum(anchor in line for line in lines) == 1, name


def test_notes_fit_the_toy_steps():
    first = everything(app(corpus="course-toy", algorithm="wordpiece", step=1))
    assert "Why ##g + ##s and not h + ##u? 5 / (20 × 5) = 1/20 = 0.05 against 15 / (15 × 36) = 1/36" in first
    assert "its second part is rarer on its own: count(b) 5 against 36" in first
    assert "BPE would merge ##u + ##g here (count(ab) = 20" in first
    second = everything(app(corpus="course-toy", algorithm="wordpiece", step=2))
    assert "A tie decided this step: 6 pairs score 1/36" in second
    assert "smallest ids (Hugging Face's tokenizers), would merge ##u + ##g instead" in second  # ids 3, 0
    third = everything(app(corpus="course-toy", algorithm="wordpiece", step=3))
    assert "A whole word becomes one token: hugs (×5)" in third
    assert "The course's step 3" in third
    hf = everything(app(corpus="course-toy", algorithm="wordpiece", step=2, tie_break="hf"))
    assert "first seen (the course), would merge h + ##u instead" in hf
    bpe = everything(app(corpus="course-toy", algorithm="bpe", step=1))
    assert "Why u + g? It occurs 20 times" in bpe


def test_the_playground_links_each_token_to_the_step_that_made_it():
    at = app("pages/playground.py", corpus="course-toy", algorithm="wordpiece", text="hugs bun")
    body = "\n".join(m.value for m in at.markdown)
    link = re.search(r"`hugs` was learned at \[step 3\]\(([^)]+)\)", body)
    assert link and "step=3" in link.group(1) and "corpus=course-toy" in link.group(1)


def test_the_handout_of_the_toy_steps_1_to_3():
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10))
    page = handout.as_html(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    for number in ("5 / (20 × 5) = 1/20", "15 / (15 × 36) = 1/36", "5 / (15 × 5) = 1/15"):
        assert number in page
    assert page.count("<h2") == 3 and "<script" not in page and "http" not in page.split("<body>")[0].replace(
        "http://localhost:8501/?step=1", "")  # nothing loaded from anywhere
    assert "<code>h ##u ##g ##s</code>" in page  # the corpus as split before step 1
    md = handout.as_markdown(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    assert "## Step 3: hu + ##gs → hugs" in md and "1/15" in md and "| **`##g + ##s`** | 5 | 20 | 5 |" in md
    assert handout.as_html(t, "course-toy", "t", 1, 500, "x").count("<h2") == len(t.steps)  # clamped to the training


def test_the_compare_page_explains_fertility_with_a_frequent_word():
    words = {"the": 500, "then": 40, "them": 30, "there": 30, "cat": 5, "hat": 5, "eat": 8, "tea": 6, "ten": 9}
    bpe = train(words, TrainerConfig(algorithm="bpe", vocab_size=22, top_k=0))
    wp = train(words, TrainerConfig(algorithm="wordpiece", vocab_size=22, top_k=0))
    note = compare.fertility_example(bpe, wp)
    assert note is not None and "`the`" in note and "Frequent parts are penalised" in note


def test_the_glossary_defines_every_term_the_tables_use():
    for column in ("rank", "count(ab)", "count(a)", "score", "score × |V|", "Δ log-likelihood", "BPE rank"):
        assert column in glossary.candidate_columns()
