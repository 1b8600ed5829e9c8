"""wordpiece_ui/state.py's shared sidebar, drawn by app.py on every page (AppTest): its settings survive
a page switch, a bad upload gives a message on every page, and its byte-level options are in the link."""

import pytest

from helpers import app, shown

pytest.importorskip("streamlit.testing.v1")  # AppTest


def test_sidebar_settings_survive_a_page_switch():
    at = app(corpus="course-toy", algorithm="bpe", vocab_size=20)
    at.switch_page("pages/corpora.py").run()
    assert not at.exception
    assert at.radio(key="s_algorithm").value == "bpe"
    assert at.number_input(key="s_vocab_size").value == 20
    at.switch_page("pages/train.py").run()
    assert not at.exception
    assert "u + g → ug" in shown(at.header[0].value)


@pytest.mark.parametrize("path", ["pages/compare.py", "pages/playground.py", "pages/corpora.py"])
def test_a_bad_upload_gives_a_message_on_every_page(path):
    at = app(path, corpus="upload")
    at.file_uploader(key="upload_file").set_value(("notes.txt", b"\xff\xfe\x00\x00" * 3000, "text/plain")).run()
    assert not at.exception
    if path != "pages/corpora.py":  # the corpora page does not train
        assert any("Cannot use this corpus" in e.value for e in at.error), [e.value for e in at.error]


@pytest.mark.slow
def test_byte_level_options_are_in_the_sidebar_and_the_link():
    at = app("pages/train.py", corpus="english-paragraphs", algorithm="bpe", pre_tokenizer="byte-level",
             specials="endoftext", vocab_size=300)
    labels = [c.label for c in at.sidebar.checkbox]
    assert labels == ["All 256 bytes in the alphabet", "Add a prefix space"]
    assert at.query_params.get("byte_alphabet") in ("0", ["0"])
    small = next(c.value for c in at.caption if "start:" in c.value)
    at.sidebar.checkbox[0].check().run()  # every byte value in the starting alphabet
    assert not at.exception and at.query_params.get("byte_alphabet") in ("1", ["1"])
    large = next(c.value for c in at.caption if "start:" in c.value)
    assert "start: 257 tokens (1 special)" in shown(large) and "start: 257" not in shown(small)
    at = app("pages/playground.py", corpus="english-paragraphs", algorithm="bpe", pre_tokenizer="byte-level",
             specials="endoftext", vocab_size=300, byte_alphabet=1, prefix_space=1, text="Hello 😀 東京")
    dropped = next(m.value for m in at.metric if m.label == "dropped characters")
    assert dropped == "0"  # with all 256 bytes, any text can be spelled
    assert app("pages/train.py", corpus="course-toy").sidebar.checkbox.len == 0  # only for byte-level


# Every link parameter at once, each hostile: too long, out of range, not a choice, Markdown, HTML, a NUL.
HOSTILE_LINK = {"corpus": "course-toy", "vocab_size": "9" * 5_000, "min_frequency": "-1", "step": "1e9",
                "algorithm": "\x00", "normalizer": "<img src=x>", "tie_break": "www.e.x", "specials": ":red[x] $x$",
                "byte_alphabet": "2", "text": "hug\n\n![x](http://e.x/a.png)\n\n# H" * 40, "pair": "`",
                "heldout": "[x](www.e.x) " * 100, "follow": "x" * 3_000, "source": "nope", "special": "maybe",
                "hf": "2", "quiz": "x", "present": "0"}


@pytest.mark.slow
@pytest.mark.parametrize("path", ["pages/train.py", "pages/compare.py", "pages/playground.py", "pages/corpora.py"])
def test_a_hostile_link_gives_human_lines_on_every_page_never_an_error(path):
    at = app(path, **HOSTILE_LINK)
    assert not at.exception
    warnings = [shown(w.value) for w in at.sidebar.warning]
    assert len(warnings) >= 6 and all(w.startswith("Link: ") and "\n" not in w and len(w) < 250 for w in warnings), warnings


def test_a_links_problems_are_said_on_the_page_it_opened_not_again_on_every_page_after_it():
    """Each rerun of the link's page keeps its lines; the next page of the app is not the link's to speak for (the
    lines came back on every page the student moved to: said twice and more)."""
    at = app(corpus="course-toy", vocab_size="abc", step="-5")
    said = lambda: [shown(w.value) for w in at.sidebar.warning if shown(w.value).startswith("Link: ")]  # noqa: E731
    first = said()
    assert len(first) == 2 and "vocab_size='abc'" in first[0] and "step='-5'" in first[1]
    at.run()
    assert said() == first
    at.switch_page("pages/playground.py").run()
    assert not at.exception and said() == []
    at.switch_page("pages/train.py").run()
    assert said() == first


def test_every_text_a_link_fills_in_is_cut_at_the_links_limit():
    at = app(corpus="paste", paste_text="hug pug " * 250)  # the sidebar's pasted corpus, in a hand-made link
    assert at.text_area(key="paste_text").value == ("hug pug " * 250)[:1_000]
    assert [shown(w.value) for w in at.sidebar.warning] == [
        "Link: paste_text has 2,000 characters; a link carries at most 1,000, so its first 1,000 are used"]
