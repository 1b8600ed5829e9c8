"""pages/corpora.py in AppTest: the sample corpora and notes."""

import pytest

from helpers import app

pytest.importorskip("streamlit.testing.v1")  # AppTest


def test_corpora_page_lists_every_sample():
    at = app()
    at.switch_page("pages/corpora.py").run()
    assert not at.exception
    table = next(m.value for m in at.markdown if "| corpus | distinct words |" in m.value)
    for corpus in ("course-toy", "course-sentences", "low-lower-newest-widest", "wordfreq-fi"):
        assert f"corpus={corpus}&" in table  # its link to the Train page
    assert "| 10,000 |" in table  # thousands separators (wordfreq's 10,000 words)
    assert "Words are lower-case, as wordfreq lists them." in table  # whole descriptions


def test_the_disagreements_list_the_unigram_sections_errata_by_its_title():
    at = app()
    at.switch_page("pages/corpora.py").run()
    unigram = next(m.value for m in at.markdown if m.value.startswith("**Unigram**"))
    assert "Hugging Face course's “Unigram tokenization”" in unigram
    for topic in ("pug", "start", "ties", "seed", "round", "seed size"):
        assert f"- **{topic}**: " in unigram
    assert "stops at 98 tokens for a target of 100" in unigram and "seed 00" not in unigram.lower()
