"""wordpiece_ui/encodings.py: the playground's tables and sentences about an encoding stay small, and say
what they leave out (the tokenizer files it loads: test_loading.py)."""

from wordpiece_core.models import WordPieceModel
from wordpiece_core.pipeline import Tokenizer
from wordpiece_ui import encodings


def test_a_long_words_scan_table_is_cut_and_says_so():
    # A token of 150 characters makes the scan try up to 150 pieces at each of the 200 traced positions.
    vocab = {"a": 0, "##a": 1, "b" * 150: 2}
    word = Tokenizer(WordPieceModel(vocab, max_input_chars_per_word=10_000)).encode("a" * 1_000, add_special_tokens=False, trace=True).words[0]
    table, said = encodings.trace_frame(word, "wordpiece")
    assert len(table) == encodings.TRACE_ROWS == 200
    rows = sum(len(step.tried) for step in word.result.scan)
    assert said == (f"The trace covers the first 200 of 1,000 characters (the tokens above are the whole word's). "
                    f"The table shows the first 200 of its {rows:,} rows.")
    sentence = encodings.word_sentence(word, "wordpiece")
    assert sentence.count("`") == 2 * (2 + encodings.SHOWN_TOKENS)  # the word, the first 40 of its 1,000 tokens, ##
    assert "… and 960 more (1,000 tokens; the first 40 are shown)" in sentence
    assert "(1,000 characters)" in sentence  # the word itself, shortened


def test_a_short_words_tables_are_whole():
    word = Tokenizer(WordPieceModel({"a": 0, "##a": 1})).encode("aaa", add_special_tokens=False, trace=True).words[0]
    table, said = encodings.trace_frame(word, "wordpiece")
    assert said is None and list(table["tried"]) == ["aaa", "aa", "a", "##a", "##a"]


def test_a_tiny_probability_reads_as_a_power_of_ten_not_zero():
    from wordpiece_ui.encodings import probability_text

    assert probability_text(0.005442) == "0.005442"  # the course's unhug, as before
    assert probability_text(2.4e-13) == "2.4 × 10⁻¹³"  # (before: 0.000000)
    assert probability_text(0.00099) == "9.9 × 10⁻⁴"


def test_where_a_words_tokens_come_from_says_the_starting_alphabet_once():
    vocab = {"h": 0, "##u": 1, "##g": 2, "##s": 3, "hu": 4, "##gs": 5}
    sentence = encodings.origins_sentence(
        Tokenizer(WordPieceModel(vocab)).encode("hugs", add_special_tokens=False, trace=True).words[0],
        {"h": 0, "##u": 0, "##gs": 0, "hu": 3}, lambda n: f"?step={n}")
    assert sentence == ("Where its tokens come from: `##gs` was in the vocabulary from the start; `hu` was learned at "
                        "[step 3](?step=3).")
    sentence = encodings.origins_sentence(
        Tokenizer(WordPieceModel({"h": 0, "##u": 1, "##g": 2})).encode("hug", add_special_tokens=False, trace=True).words[0],
        {"h": 0, "##u": 0}, lambda n: f"?step={n}")
    assert sentence.count("from the start") == 1
    assert sentence.startswith("Where its tokens come from: `h` and `##u` were in the vocabulary from the start; `##g` is not")


def test_a_files_pipeline_stages_are_named_by_kind_not_by_digest():
    assert encodings.stage_names("split:3fa0c1d2e3f4a5b6+bytes") == "Split + ByteLevel"
    assert encodings.stage_names("prepend#00aa+replace#11bb") == "Prepend + Replace"
    assert encodings.stage_names("bert") == "bert"
