"""pages/playground.py in AppTest: encoding typed text with the tokenizer trained in the sidebar
or with an uploaded tokenizer file; rendering, URL state, bad input."""

import json
import re

import pytest

from helpers import app as page, markdown, metrics, shown

pytest.importorskip("streamlit.testing.v1")  # AppTest


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


@pytest.mark.slow
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
    ("tokenizer.json", json.dumps({"model": {"type": "Unigram", "vocab": []}}).encode(), "score"),
    ("vocab.txt", b"\x00\x01\x00\x02" * 100, "binary"),
    ("vocab.txt", b"", "empty"),
])
def test_playground_bad_tokenizer_files_give_a_message(name, data, message):
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hug"), name, data)
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_a_text_the_uploaded_tokenizer_cannot_encode_here_gets_one_line_and_stays_in_its_box():
    """A Unigram file of runs of every length (a, aa, …) and a long run typed: refused in one line (unigram/model.py's
    bound on the lattice's walks), no traceback, the text kept."""
    pieces = [["<unk>", 0.0]] + [["a" * k, -1.0 * k] for k in range(1, 1000)]
    doc = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
           "post_processor": None, "decoder": None, "model": {"type": "Unigram", "unk_id": 0, "vocab": pieces}}
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="aaa"), "tokenizer.json",
                          json.dumps(doc).encode())
    run = "a" * 5000
    at.text_area(key="text").set_value(run).run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith("Cannot encode this text: the word") and "holds more pieces of this vocabulary" in error
    assert at.text_area(key="text").value == run


def test_playground_loads_a_trained_tokenizer_json():
    from helpers import train_wordpiece
    from wordpiece_core.formats import tokenizer_json
    from helpers import BERT_SPECIALS, TOY

    doc = tokenizer_json(train_wordpiece(TOY, 30, special_tokens=BERT_SPECIALS), "none", "whitespace")
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="hugs bun"),
                          "tokenizer.json", json.dumps(doc).encode())
    frame = at.dataframe[0].value
    assert list(frame["token"]) == ["[CLS]", "hugs", "bun", "[SEP]"]


def test_playground_shows_a_unigram_words_lattice_with_the_best_path():
    from wordpiece_core.unigram import files as unigram_files, reference as U

    toy = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    pieces = unigram_files.final_pieces(U.seed(toy, whole_words=False), ("<unk>",))
    doc = unigram_files.tokenizer_json(pieces, ("<unk>",), "none", "whitespace")
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="unhug zz"),
                          "tokenizer.json", json.dumps(doc).encode())
    assert list(at.dataframe[0].value["token"]) == ["un", "hug", "zz"]  # zz: one unknown token, its own text
    lattice = at.dataframe[1].value
    assert list(lattice.columns) == ["start", "end", "piece", "text", "log p", "best path"]
    assert [p for p, b in zip(lattice["piece"], lattice["best path"]) if b] == ["un", "hug"]
    assert list(zip(lattice["start"], lattice["piece"])) == [(0, "u"), (0, "un"), (1, "n"), (2, "h"), (2, "hu"),
                                                             (2, "hug"), (3, "u"), (3, "ug"), (4, "g")]
    assert any("add up highest (−5.2136: a probability of 0.005442)" in m.value for m in at.markdown)  # the course's


def test_playground_loads_a_bert_vocab_txt():
    vocab = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "a", "##ff"]).encode()
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="unaffable"), "vocab.txt", vocab)
    assert list(at.dataframe[0].value["token"]) == ["[CLS]", "un", "##aff", "##able", "[SEP]"]


@pytest.mark.slow
def test_playground_vocab_txt_cased_or_uncased_is_a_visible_choice():
    vocab = b"[PAD]\n[UNK]\n[CLS]\n[SEP]\nhug\n##s\nh\n##u\n##g\n"
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="HUGS"), "vocab.txt", vocab)
    choice = at.radio(key="cased vocab.txt")
    assert choice.value == "uncased"  # guessed: no token starts with a capital
    assert "hug" in tokens_shown(at)
    choice.set_value("cased").run()
    assert not at.exception and "hug" not in tokens_shown(at) and "[UNK]" in tokens_shown(at)


def tokens_shown(at):
    """The chips' HTML, its character references read (safe.html writes [UNK] as &#91;UNK&#93;)."""
    import html

    return html.unescape(" ".join(m.value for m in at.markdown if "wpl-chip" in m.value))


@pytest.mark.slow
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


def test_the_playground_links_each_token_to_the_step_that_made_it():
    at = page("pages/playground.py", corpus="course-toy", algorithm="wordpiece", text="hugs bun")
    body = "\n".join(m.value for m in at.markdown)
    link = re.search(r"`hugs` was learned at \[step 3\]\(([^)]+)\)", body)
    assert link and "step=3" in link.group(1) and "corpus=course-toy" in link.group(1)


def test_a_link_text_over_the_links_limit_is_cut_and_said():
    at = page("pages/playground.py", corpus="course-toy", text="hug " * 400, pair="bun " * 300)
    assert at.text_area(key="text").value == ("hug " * 400)[:1_000]
    assert at.text_area(key="pair").value == ("bun " * 300)[:1_000]
    warnings = [shown(w.value) for w in at.sidebar.warning]
    assert warnings == ["Link: text has 1,600 characters; a link carries at most 1,000, so its first 1,000 are used",
                        "Link: pair has 1,200 characters; a link carries at most 1,000, so its first 1,000 are used"]


def test_a_long_word_says_how_much_of_it_is_traced():
    at = page("pages/playground.py", corpus="course-toy", algorithm="bpe", text="hug" * 333)
    assert "Word 1 of 1" in markdown(at)
    captions = [c.value for c in at.caption]
    assert "The trace covers the first 200 of 999 characters (the tokens above are the whole word's)." in captions
    assert "applied 132 times in its first 200 characters" in markdown(at)
    assert "… and 293 more (333 tokens; the first 40 are shown)" in markdown(at)


def test_a_text_lowercased_by_its_normalizer_is_not_called_a_list_of_lower_case_words():
    """english-paragraphs is prose (the BERT normalizer lowercases it): a capital or a letter it lacks is not
    blamed on 'a list of lower-case words'."""
    at = page("pages/playground.py", corpus="english-paragraphs", algorithm="wordpiece",
              text="Die Straße ist schön. İstanbul'da")
    said = " ".join(shown(m.value) for m in at.markdown)
    assert not at.exception and "list of lower-case words" not in said


@pytest.mark.slow
def test_a_lowercase_word_list_says_why_capitals_and_punctuation_are_unk_and_offers_the_fix():
    at = page("pages/playground.py", corpus="wordfreq-en", text="Hello, World.")
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "is a list of lower-case words" in said and "no capital letters (H W)" in said and "none of , ." in said
    at.button[[b.label for b in at.button].index("Train with the lowercase normalizer")].click().run()
    assert not at.exception
    assert at.selectbox(key="s_normalizer").value == "lowercase"
    said = " ".join(shown(m.value) for m in at.markdown)
    assert "no capital letters" not in said and "none of , ." in said  # capitals fixed; punctuation explained
    assert not [b for b in at.button if b.label == "Train with the lowercase normalizer"]


def test_plain_bpe_says_why_its_decoded_text_has_spaces_between_tokens():
    at = page("pages/playground.py", corpus="course-toy", algorithm="bpe", text="hugs")
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Why spaces between the tokens?") for c in captions)
    at = page("pages/playground.py", corpus="course-toy", text="hugs")  # WordPiece writes the words back
    assert not any(c.value.startswith("Why spaces between") for c in at.caption)


def test_the_course_toy_lattice_says_where_the_courses_unhug_table_is():
    at = page("pages/playground.py", corpus="course-toy", algorithm="unigram", unigram_rule="course", text="unhug")
    note = [m.value for m in at.markdown if "table of `unhug`" in m.value]
    assert note and "size 16" in note[0]
    at.button[[b.label for b in at.button].index("Use the course's vocabulary (16)")].click().run()
    assert not any("table of `unhug`" in m.value for m in at.markdown)
    assert any("a probability of 0.005442" in m.value for m in at.markdown)  # the course's number, now on screen


def test_an_uploaded_vocab_txt_says_whether_it_reads_as_cased_and_why():
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "ℝ"] + [f"w{i}" for i in range(2000)]
    at = upload_tokenizer(page("pages/playground.py", corpus="course-toy", text="Hello"), "vocab.txt",
                          "\n".join(words).encode())
    assert at.radio[0].value == "uncased"  # ℝ has no lower-case form: it does not make the vocabulary cased
    assert any(c.value.startswith("Read as uncased: 0 of its 2,002 tokens start with a capital letter")
               for c in at.caption)
    assert list(at.dataframe[0].value["token"]) == ["[CLS]", "hello", "[SEP]"]
    at.radio[0].set_value("cased").run()
    assert any(c.value.startswith("You chose cased; the file alone reads as uncased") for c in at.caption)


def test_the_shelf_opens_gpt4os_encoding_from_a_link_with_tiktokens_ids():
    at = page("pages/playground.py", corpus="course-toy", source="shelf", shelf="o200k_base", text="Hello, world! 東京",
              special="0")
    frame = at.dataframe[0].value
    assert list(frame["id"]) == [13225, 11, 2375, 0, 185244]  # tiktoken's o200k_base ids
    assert any("o200k_base (GPT-4o" in c.value for c in at.caption)
    assert at.query_params.get("shelf") in ("o200k_base", ["o200k_base"])
    at = page("pages/playground.py", corpus="course-toy", source="shelf", shelf="<b>nope</b>", text="Hello")
    assert not at.exception and at.selectbox(key="shelf").value == "o200k_base"  # an unknown name: the default


def test_a_real_tokenizer_side_by_side_with_the_sidebars_from_a_link():
    at = page("pages/playground.py", corpus="course-toy", text="hugs", compare_with="o200k_base", special="0")
    assert at.selectbox(key="compare_with").value == "o200k_base"
    shown = [m.value for m in at.markdown]
    assert "**1 token**" in shown  # o200k_base: hugs is one token (as the sidebar's training has it)
    assert at.query_params.get("compare_with") in ("o200k_base", ["o200k_base"])
    at = page("pages/playground.py", corpus="course-toy", text="hugs", compare_with="<i>x</i>")
    assert not at.exception and at.selectbox(key="compare_with").value == "none"
