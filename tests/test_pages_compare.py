"""pages/compare.py in AppTest: BPE against WordPiece on the same corpus; rendering, URL state,
bad input."""

import pytest

from helpers import app as page, markdown, metrics, shown

pytest.importorskip("streamlit.testing.v1")  # AppTest


def test_compare_toy_corpus_first_difference_and_overlap():
    at = page("pages/compare.py", corpus="course-toy")
    m = metrics(at)
    assert m["first different step"] == "1"  # BPE: u + g; WordPiece: ##g + ##s
    assert m["BPE merges"] == "7" and m["WordPiece merges"] == "9"
    timeline = at.dataframe[0].value
    assert timeline.loc[0, "BPE"] == "u + g → ug"
    assert timeline.loc[0, "WordPiece"] == "##g + ##s → ##gs"
    # BPE's step 3 makes hug; WordPiece made hug at its step 4 (hu + ##g), and the row says so
    assert timeline.loc[2, "BPE"] == "h + ug → hug"
    assert timeline.loc[2, "BPE token in WordPiece"] == "step 4"
    assert timeline.loc[0, "BPE token in WordPiece"] == "—"  # WordPiece never learns ##ug
    assert "Jaccard" in markdown(at)


def test_compare_queues_both_trainings_at_once_and_stop_cancels_both(monkeypatch):
    """A cold Compare page starts BPE and WordPiece together (at once, one worker per core; on a
    one-core machine the second waits in the queue), not the second after the first ends: one progress
    view shows both, and its Stop cancels both."""
    from wordpiece_ui import progress_view

    # BPE ends in about a second here (wordfreq-en has no more than 12,983 merges), about when the
    # page's first wait ends and the progress view's first wait begins (Stop is drawn after it): no
    # waits, so that the page shows both bars and its Stop comes before BPE ends, on any machine.
    monkeypatch.setattr(progress_view, "WAIT_SECONDS", 0.0)
    monkeypatch.setattr(progress_view, "POLL_WAIT_SECONDS", 0.0)
    at = page("pages/compare.py", corpus="wordfreq-en", vocab_size=19_990)
    bars = [b.proto.text for b in at.get("progress")]
    assert len(bars) == 2, bars
    assert bars[0].startswith("Training BPE") and bars[1].startswith("Training WordPiece")
    assert [b.label for b in at.button].count("Stop") == 1
    next(b for b in at.button if b.label == "Stop").click().run()
    assert not at.exception and not at.get("progress")
    assert any("You stopped the BPE and WordPiece trainings" in shown(i.value) for i in at.info)
    next(b for b in at.button if b.label == "Train again").click().run()
    assert len(at.get("progress")) == 2  # both start again
    next(b for b in at.button if b.label == "Stop").click().run()


@pytest.mark.slow
def test_compare_hf_variant_and_follow_are_in_the_url():
    at = page("pages/compare.py", corpus="course-toy")
    at.toggle(key="hf").set_value(True).run()
    assert not at.exception
    assert "HF WordPieceTrainer (BPE with ##)" in at.dataframe[0].value.columns
    assert at.query_params.get("hf") in ("1", ["1"])
    token = at.selectbox(key="follow").options[1]
    at.selectbox(key="follow").set_value(token).run()
    assert at.query_params.get("follow") in (token, [token])
    assert f"learned {token} at" in markdown(at)
    marks = at.dataframe[0].value[""]
    assert marks.str.contains("★").sum() >= 2  # the step in BPE and the step in WordPiece


def test_compare_opens_from_a_link_with_heldout_text():
    at = page("pages/compare.py", corpus="course-toy", heldout="hug mug", hf="1")
    assert at.text_area(key="heldout").value == "hug mug"
    assert at.toggle(key="hf").value is True
    rows = [d.value for d in at.dataframe if "tokenizer" in getattr(d.value, "columns", [])]
    assert rows, "metrics table missing"
    held = rows[0][rows[0]["on"] == "held-out text"]
    wp = held[held["tokenizer"] == "WordPiece"].iloc[0]
    assert wp["[UNK] words (%)"] == 50.0  # "mug": m is not in the toy alphabet


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["wordfreq-de", "english-paragraphs"])
def test_compare_real_corpora(corpus):
    at = page("pages/compare.py", corpus=corpus)
    assert int(metrics(at)["shared tokens"].replace(",", "")) > 10


@pytest.mark.slow
def test_compare_huge_heldout_text_is_cut_with_a_message():
    at = page("pages/compare.py", corpus="course-toy")
    at.text_area(key="heldout").set_value("hug " * 250_000).run()
    assert not at.exception
    assert any("first 5,000 are encoded" in shown(w.value) for w in at.warning)


@pytest.mark.slow
def test_compare_hf_column_marks_its_ties_and_says_why_they_matter():
    at = page("pages/compare.py", corpus="course-toy")
    at.toggle(key="hf").set_value(True).run()
    column = at.dataframe[0].value["HF WordPieceTrainer (BPE with ##)"]
    assert any("⚖" in cell and "-way tie" in cell for cell in column)
    assert "⚖" not in " ".join(at.dataframe[0].value["WordPiece"])
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "tokenizers issue 1794" in captions and "hash-map order" in captions


@pytest.mark.slow
def test_an_uploaded_word_count_file_with_a_header_trains_and_says_so():
    at = page("pages/compare.py", corpus="upload")
    at.file_uploader(key="upload_file").set_value(
        ("counts.tsv", b"word\tcount\nhug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", "text/tab-separated-values")).run()
    assert not at.exception and not at.error
    assert any("was read as a header line and skipped" in i.value for i in at.sidebar.info)
    overlap = next(m.value for m in at.markdown if m.value.startswith("As learned:"))
    assert "BPE **19** tokens, WordPiece **21**" in overlap  # 14 and 16 as learned, plus the 5 special tokens


@pytest.mark.slow
def test_a_link_heldout_text_over_the_links_limit_is_cut_and_said():
    at = page("pages/compare.py", corpus="course-toy", heldout="hug " * 300)
    assert at.text_area(key="heldout").value == ("hug " * 300)[:1_000]
    assert [shown(w.value) for w in at.sidebar.warning] == [
        "Link: heldout has 1,200 characters; a link carries at most 1,000, so its first 1,000 are used"]
    at.text_area(key="heldout").set_value("hug " * 1_500).run()  # typed: kept; its first 5,000 characters encoded
    assert any("the first 5,000 are encoded" in w.value for w in at.warning)
    assert "Texts over 1,000 characters are not put in the shareable link." in [c.value for c in at.caption]
    assert "heldout" not in at.query_params


def test_no_empty_headings_before_held_out_text_is_typed():
    at = page("pages/compare.py", corpus="course-toy", heldout=" ")
    said = [m.value for m in at.markdown]
    assert "**BPE**" not in said and "**WordPiece**" not in said  # no headings over nothing
    assert any("Type some text above" in i.value for i in at.info)
    at.text_area(key="heldout").set_value("hug mug").run()
    said = [m.value for m in at.markdown]
    assert "**BPE**" in said and "**WordPiece**" in said


def test_a_vocabulary_that_stopped_short_of_the_size_asked_says_why():
    at = page("pages/compare.py", corpus="course-toy", algorithms="bpe,wordpiece,unigram", vocab_size="30")
    assert not at.exception
    said = [t for t in (shown(c.value) for c in at.caption) if "asked for:" in t]
    assert said[:2] == ["stopped early: 14 tokens for the 30 asked for: no pair is left to merge",  # BPE, WordPiece
                        "stopped early: 16 tokens for the 30 asked for: no pair is left to merge"]
    assert said[2].startswith("stopped early: 11 tokens for the 30 asked for: EM left 10 pieces")  # Unigram's
    assert said[2].count("asked for") == 1
