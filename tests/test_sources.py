"""wordpiece_ui/sources.py, on every page (AppTest): the app names a source by its title, linked,
never by a file number, and the glossary section defines the terms."""

import re

import pytest

from helpers import app, everything

pytest.importorskip("streamlit.testing.v1")  # AppTest


FILE_NUMBER = re.compile(r"\bseeds? 0\d\d", re.IGNORECASE)


@pytest.mark.slow
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
