"""wordpiece_core/loading.py (with the checks of tokenizer_schema.py): reading tokenizer files.

A BERT vocab.txt loads; malformed tokenizer files get one sentence naming the problem, never a
traceback, through the playground's loader (wordpiece_ui/encodings.py); a null field is refused or
read as absent. (The same from `encode --tokenizer`: test_encode_cli.py.)"""

import pytest

from helpers import BPE, CASES, WP, changed
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import load_tokenizer
from wordpiece_ui.encodings import load_uploaded_tokenizer



@pytest.mark.parametrize("case", sorted(CASES))
def test_the_playground_loader_names_the_field(case):
    text, words = CASES[case]
    with pytest.raises(WordPieceError) as err:
        load_uploaded_tokenizer("tokenizer.json", text.encode())
    assert words in str(err.value)


NULLS = {
    "added_tokens": (WP, ["added_tokens"]),
    "model.merges": (BPE, ["model", "merges"]),
    "model.max_input_chars_per_word": (WP, ["model", "max_input_chars_per_word"]),
    "model.unk_token": (WP, ["model", "unk_token"]),
    "normalizer.normalizers": (WP, ["normalizer"], {"type": "Sequence", "normalizers": None}),
    "pre_tokenizer.pretokenizers": (WP, ["pre_tokenizer"], {"type": "Sequence", "pretokenizers": None}),
    "post_processor.processors": (WP, ["post_processor"], {"type": "Sequence", "processors": None}),
    "post_processor.single": (WP, ["post_processor", "single"]),
    "type_id": (WP, ["post_processor", "single"], [{"SpecialToken": {"id": "[CLS]", "type_id": None}},
                                                     {"Sequence": {"id": "A", "type_id": None}}]),
}


@pytest.mark.parametrize("field", sorted(NULLS))
def test_a_null_field_is_refused_or_read_as_absent_never_a_traceback(field):
    doc, path, *value = NULLS[field]
    text = changed(doc, path, value[0] if value else None)
    try:
        tok = load_uploaded_tokenizer("tokenizer.json", text.encode())
    except WordPieceError:
        return  # refused with a sentence: fine
    enc = tok.encode("hug hugs")
    assert enc.tokens and all(isinstance(t, str) for t in enc.tokens)
    assert all(isinstance(i, int) for i in enc.type_ids)


def test_bert_vocab_txt_loads(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", "##s", "w"]) + "\n")
    tok = load_tokenizer(str(p))
    assert tok.encode("Hello worlds!").tokens == ["[CLS]", "hello", "world", "##s", "!", "[SEP]"]


def test_a_vocab_txt_with_capitals_that_have_no_lower_case_reads_as_uncased(tmp_path):
    """bert-base-uncased holds ℝ and ℕ (isupper() is true for them): it loaded as cased, and Hello became [UNK]."""
    from wordpiece_core.loading import case_guess

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "ℝ", "ℕ"]
    words += [f"w{i}" for i in range(3000)]
    p = tmp_path / "vocab.txt"
    p.write_text("\n".join(words) + "\n")
    assert load_tokenizer(str(p)).encode("Hello", add_special_tokens=False).tokens == ["hello"]
    uncased, why = case_guess(words)
    assert uncased and why.startswith("uncased: 0 of its 3,005 tokens start with a capital letter")
    cased = words + [f"Name{i}" for i in range(50)]  # bert-base-cased: thousands of capitalised tokens
    assert case_guess(cased) == (False, "cased: 50 of its 3,055 tokens start with a capital letter, so its model "
                                        "sees text as typed")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "vocab.txt").write_text("\n".join(cased + ["Hello"]) + "\n")
    assert load_tokenizer(str(tmp_path / "c" / "vocab.txt")).encode("Hello", add_special_tokens=False).tokens == ["Hello"]


def test_an_absurd_max_input_chars_per_word_is_refused_by_name():
    from wordpiece_core.loading import tokenizer_from_json

    doc = {"version": "1.0", "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]",
                                       "continuing_subword_prefix": "##", "max_input_chars_per_word": 10**9}}
    with pytest.raises(WordPieceError, match=r"max_input_chars_per_word should be a whole number of at most 100,000 .*not the number 1,000,000,000$"):
        tokenizer_from_json(doc, "tokenizer.json")


def test_the_playground_loader_writes_no_temporary_file(monkeypatch, tmp_path):
    """A full temporary disk failed a tokenizer upload with OSError: [Errno 28]: the file is read from memory."""
    import json
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing" / "tmp"))  # any temporary file would fail
    tok = load_uploaded_tokenizer("tokenizer.json", json.dumps(WP).encode())
    assert "hug" in tok.encode("hug").tokens


def test_an_unsupported_type_is_named_on_its_first_characters():
    doc = changed(WP, ["normalizer"], {"type": "Strip" + "x" * 100_000})
    with pytest.raises(WordPieceError) as e:
        load_uploaded_tokenizer("tokenizer.json", doc.encode())
    assert str(e.value).startswith("tokenizer.json: the normalizer 'Stripxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… is not supported")
    assert len(str(e.value)) < 300  # one line, not the file's 100,000 characters


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-8-sig"])
def test_a_vocab_txt_saved_as_utf16_loads_as_its_utf8_twin(tmp_path, codec):
    """A vocab.txt re-saved by a Windows editor (UTF-16, with or without a byte order mark)."""
    vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhug\n##s\np\n##ug\ncafé\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "vocab.txt").write_text(vocab, encoding="utf-8")
    (tmp_path / "b" / "vocab.txt").write_bytes(vocab.encode(codec))
    utf8, wide = (load_tokenizer(str(tmp_path / d / "vocab.txt")) for d in "ab")
    assert wide.model.vocab == utf8.model.vocab
    assert wide.encode("hugs pug café").tokens == utf8.encode("hugs pug café").tokens


def test_an_uploaded_utf16_vocab_txt_is_read_as_a_vocabulary():
    """The playground's upload: once named "not a vocabulary: line 1 holds several words" and garbage."""
    vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhug\n##s\np\n##ug\n"
    tokenizer = load_uploaded_tokenizer("vocab.txt", vocab.encode("utf-16"))
    assert tokenizer.encode("hugs").tokens == ["[CLS]", "hug", "##s", "[SEP]"]
