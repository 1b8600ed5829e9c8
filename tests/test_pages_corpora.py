"""pages/corpora.py in AppTest: the sample corpora and notes."""

import pytest

from helpers import app

pytest.importorskip("streamlit.testing.v1")  # AppTest


def test_corpora_page_lists_every_sample():
    at = app()
    at.switch_page("pages/corpora.py").run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert {"course-toy", "course-sentences", "low-lower-newest-widest", "wordfreq-fi"} <= set(frame["id"])
