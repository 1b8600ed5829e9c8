"""AppTest for the Compare and Playground pages (issue 5): rendering, URL state, bad input."""

import json

import pytest

from helpers import app as page, markdown, metrics, shown

pytest.importorskip("streamlit.testing.v1")  # AppTest


# ---------------------------------------------------------------- compare


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
    from wordpiece_ui import trained

    # BPE ends in about a second here (wordfreq-en has no more than 12,983 merges), about when the
    # page's first wait ends and the progress view's first wait begins (Stop is drawn after it): no
    # waits, so that the page shows both bars and its Stop comes before BPE ends, on any machine.
    monkeypatch.setattr(trained, "WAIT_SECONDS", 0.0)
    monkeypatch.setattr(trained, "POLL_WAIT_SECONDS", 0.0)
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


@pytest.mark.parametrize("corpus", ["wordfreq-de", "english-paragraphs"])
def test_compare_real_corpora(corpus):
    at = page("pages/compare.py", corpus=corpus)
    assert int(metrics(at)["shared tokens"].replace(",", "")) > 10


def test_compare_huge_heldout_text_is_cut_with_a_message():
    at = page("pages/compare.py", corpus="course-toy")
    at.text_area(key="heldout").set_value("hug " * 250_000).run()
    assert not at.exception
    assert any("first 5,000 are encoded" in shown(w.value) for w in at.warning)


# ---------------------------------------------------------------- playground


def test_playground_encodes_from_the_url():
    at = page("pages/playground.py", corpus="course-toy", text="hugs bun", pair="pug")
    m = metrics(at)
    assert m["tokens"] == "3" and m["[UNK]"] == "0"  # hugs | bun | pug: whole words by now, no specials
    assert "**decoded:** hugs bun pug" in markdown(at)
    assert at.query_params.get("text") in ("hugs bun", ["hugs bun"])


def test_playground_special_tokens_toggle_and_pair_types():
    at = page("pages/playground.py", corpus="course-sentences", text="This is it", pair="Is it?")
    frame = at.dataframe[0].value
    assert frame["token"].iloc[0] == "[CLS]" and list(frame["token"]).count("[SEP]") == 2
    assert set(frame["sequence"]) == {"A", "B"}
    at.toggle(key="special").set_value(False).run()
    frame = at.dataframe[0].value
    assert "[CLS]" not in list(frame["token"])
    assert at.query_params.get("special") in ("0", ["0"])


def test_playground_word_trace_steps_through_words():
    at = page("pages/playground.py", corpus="course-toy", text="hugs bug mug")
    assert "Word 1 of 3" in markdown(at)
    scan = at.dataframe[1].value
    assert list(scan["tried"])[:1] == ["hugs"]
    at.slider(key="trace_word:slider").set_value(3).run()
    assert "mug became **[UNK]**" in markdown(at)


def test_playground_bpe_trace_lists_merges_in_order():
    at = page("pages/playground.py", corpus="course-toy", algorithm="bpe", text="hugs")
    merges = at.dataframe[1].value
    assert list(merges["merge"])[1:] == ["u + g → ug", "h + ug → hug", "hug + s → hugs"]  # the course's BPE merges


@pytest.mark.parametrize("text", ["", "   "])
def test_playground_empty_text_asks_for_text(text):
    at = page("pages/playground.py", corpus="course-toy", text="x")
    at.text_area(key="text").set_value(text).run()
    assert not at.exception
    assert any("Type or paste" in i.value for i in at.info)


def test_playground_one_megabyte_paste_is_kept_and_its_start_encoded():
    at = page("pages/playground.py", corpus="english-paragraphs")
    big = ("Tokenizers learn merges from counts. " * 30_000)[:1_000_000]
    at.text_area(key="text").set_value(big).run()
    assert not at.exception
    assert at.text_area(key="text").value == big
    assert any("first 20,000 are encoded" in w.value for w in at.warning)
    assert "text" not in at.query_params


@pytest.mark.parametrize("text", ["I ❤️ tokenizers 🤗👩‍👩‍👧", "東京で日本語を勉強します", "שלום עולם", "مرحبا بالعالم", "e\u0301te\u0301 Ｆｕｌｌ"])
def test_playground_odd_unicode(text):
    at = page("pages/playground.py", corpus="english-paragraphs", text=text)
    assert int(metrics(at)["tokens"]) > 0


def upload_tokenizer(at, name, data):
    at.segmented_control(key="source").set_value("file").run()
    at.file_uploader(key="tokenizer_file").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception
    return at


@pytest.mark.parametrize("name,data,message", [
    ("tokenizer.json", b"{not json", "not valid JSON"),
    ("tokenizer.json", json.dumps({"model": {"type": "Unigram", "vocab": []}}).encode(), "Unigram"),
    ("vocab.txt", b"\x00\x01\x00\x02" * 100, "binary"),
    ("vocab.txt", b"", "empty"),
])
def test_playground_bad_tokenizer_files_give_a_message(name, data, message):
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hug"), name, data)
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_playground_loads_a_trained_tokenizer_json():
    from helpers import train_wordpiece
    from wordpiece_core.formats import tokenizer_json
    from helpers import BERT_SPECIALS, TOY

    doc = tokenizer_json(train_wordpiece(TOY, 30, special_tokens=BERT_SPECIALS), "none", "whitespace")
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hugs bun"),
                          "tokenizer.json", json.dumps(doc).encode())
    frame = at.dataframe[0].value
    assert list(frame["token"]) == ["[CLS]", "hugs", "bun", "[SEP]"]


def test_playground_loads_a_bert_vocab_txt():
    vocab = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "a", "##ff"]).encode()
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="unaffable"), "vocab.txt", vocab)
    assert list(at.dataframe[0].value["token"]) == ["[CLS]", "un", "##aff", "##able", "[SEP]"]


@pytest.mark.parametrize("path", ["pages/compare.py", "pages/playground.py", "pages/corpora.py"])
def test_a_bad_upload_gives_a_message_on_every_page(path):
    at = page(path, corpus="upload")
    at.file_uploader(key="upload_file").set_value(("notes.txt", b"\xff\xfe\x00\x00" * 3000, "text/plain")).run()
    assert not at.exception
    if path != "pages/corpora.py":  # the corpora page does not train
        assert any("Cannot use this corpus" in e.value for e in at.error), [e.value for e in at.error]


@pytest.mark.parametrize("params,message", [
    ({"min_frequency": "1000000"}, "no pair occurs at least 1000000 times"),
    ({"vocab_size": "3"}, "already fill the vocabulary size"),
])
def test_settings_that_allow_no_merge_explain_why(params, message):
    at = page("pages/train.py", corpus="course-toy", **params)
    assert any(message in w.value for w in at.warning), [w.value for w in at.warning]


def test_the_share_box_holds_the_current_link():
    at = page("pages/train.py", corpus="course-toy", algorithm="wordpiece", step="2")
    assert not at.code  # the Share popover is drawn only while open
    at.session_state["share_open "] = True  # opened
    at.run()
    link = at.code[0].value
    assert "corpus=course-toy" in link and "algorithm=wordpiece" in link and "step=2" in link


def test_playground_vocab_txt_cased_or_uncased_is_a_visible_choice():
    vocab = b"[PAD]\n[UNK]\n[CLS]\n[SEP]\nhug\n##s\nh\n##u\n##g\n"
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="HUGS"), "vocab.txt", vocab)
    choice = at.radio(key="cased vocab.txt")
    assert choice.value == "uncased"  # guessed: no token starts with a capital
    assert "hug" in tokens_shown(at)
    choice.set_value("cased").run()
    assert not at.exception and "hug" not in tokens_shown(at) and "[UNK]" in tokens_shown(at)


def tokens_shown(at):
    return " ".join(m.value for m in at.markdown if "wpl-chip" in m.value)


@pytest.mark.parametrize("case", ["added_tokens holding ints", "normalizer a string", "100,000 levels of nesting"])
def test_playground_malformed_tokenizer_json_gives_a_message(case):
    from helpers import CASES

    text, words = CASES[case]
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hug"), "tokenizer.json", text.encode())
    assert any(words in shown(e.value) for e in at.error), [e.value for e in at.error]


def test_playground_vocabulary_without_unk_names_what_it_cannot_encode():
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hug zzz"), "vocab.txt",
                          b"hug\nh\n##u\n##g\n")
    warning = " ".join(shown(w.value) for w in at.warning)
    assert "no [UNK] token" in warning and "'zzz'" in warning
    assert "hug" in tokens_shown(at)


def test_compare_hf_column_marks_its_ties_and_says_why_they_matter():
    at = page("pages/compare.py", corpus="course-toy")
    at.toggle(key="hf").set_value(True).run()
    column = at.dataframe[0].value["HF WordPieceTrainer (BPE with ##)"]
    assert any("⚖" in cell and "-way tie" in cell for cell in column)
    assert "⚖" not in " ".join(at.dataframe[0].value["WordPiece"])
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "tokenizers issue 1794" in captions and "hash-map order" in captions


def test_an_uploaded_word_count_file_with_a_header_trains_and_says_so():
    at = page("pages/compare.py", corpus="upload")
    at.file_uploader(key="upload_file").set_value(
        ("counts.tsv", b"word\tcount\nhug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", "text/tab-separated-values")).run()
    assert not at.exception and not at.error
    assert any("was read as a header line and skipped" in i.value for i in at.sidebar.info)
    overlap = next(m.value for m in at.markdown if m.value.startswith("As learned:"))
    assert "BPE **19** tokens, WordPiece **21**" in overlap  # 14 and 16 as learned, plus the 5 special tokens


@pytest.mark.parametrize("name,data,message", [
    ("merges.txt", b"#version: 0.2\nu g\nh ug\n", "is a merges.txt"),
    ("notes.txt", b"Tokenizers learn a vocabulary.\nThis is prose, not tokens.\n", "is not a vocabulary"),
    ("vocab.json", b'{"a": 0, "b": 1}', "is a vocab.json"),
    ("thing.json", b'{"name": "not a tokenizer"}', "neither a tokenizer.json nor a vocab.json"),
])
def test_the_playground_recognises_tokenizer_files_by_content(name, data, message):
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hugs"), name, data)
    assert not at.exception
    assert any(message in shown(e.value) for e in at.error), [e.value for e in at.error]


def test_a_tokenizer_json_under_another_name_is_still_read_as_one(tmp_path):
    from helpers import train_wordpiece
    from wordpiece_core.formats import tokenizer_json
    import json
    doc = tokenizer_json(train_wordpiece({"hug": 10, "hugs": 5}, 20), "none", "whitespace")
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hugs"), "my-tokenizer.txt",
                          json.dumps(doc).encode())
    assert not at.exception and not at.error
    assert "hugs" in list(at.dataframe[0].value["token"])


def test_byte_level_options_are_in_the_sidebar_and_the_link():
    at = page("pages/train.py", corpus="english-paragraphs", algorithm="bpe", pre_tokenizer="byte-level",
              specials="endoftext", vocab_size=300)
    labels = [c.label for c in at.sidebar.checkbox]
    assert labels == ["All 256 bytes in the alphabet", "Add a prefix space"]
    assert at.query_params.get("byte_alphabet") in ("0", ["0"])
    small = next(c.value for c in at.caption if "start:" in c.value)
    at.sidebar.checkbox[0].check().run()  # every byte value in the starting alphabet
    assert not at.exception and at.query_params.get("byte_alphabet") in ("1", ["1"])
    large = next(c.value for c in at.caption if "start:" in c.value)
    assert "start: 257 tokens (1 special)" in shown(large) and "start: 257" not in shown(small)
    at = page("pages/playground.py", corpus="english-paragraphs", algorithm="bpe", pre_tokenizer="byte-level",
              specials="endoftext", vocab_size=300, byte_alphabet=1, prefix_space=1, text="Hello 😀 東京")
    dropped = next(m.value for m in at.metric if m.label == "dropped characters")
    assert dropped == "0"  # with all 256 bytes, any text can be spelled
    assert page("pages/train.py", corpus="course-toy").sidebar.checkbox.len == 0  # only for byte-level
