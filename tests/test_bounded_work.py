"""Work bounded by size: a long word or an absurd number in a file costs what the vocabulary allows."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpiece_core.errors import WordPieceError
from wordpiece_core.models import TRACED_CHARS, BPEModel, WordPieceModel


def _unbounded_scan(vocab, word, prefix="##"):
    """Longest match first, trying every end position (the definition)."""
    out, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                out.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abc#", min_size=1, max_size=6), min_size=1, max_size=15),
       st.text(alphabet="abc", min_size=1, max_size=30))
def test_the_wordpiece_scan_tries_no_piece_longer_than_the_vocabularys_longest(tokens, word):
    vocab = {t: i for i, t in enumerate(dict.fromkeys(["[UNK]", *tokens]))}
    model = WordPieceModel(vocab, max_input_chars_per_word=1000)
    assert list(model.tokenize(word).tokens) == _unbounded_scan(vocab, word)
    result = model.tokenize(word, trace=True)
    assert list(result.tokens) == _unbounded_scan(vocab, word)
    assert all(len(piece) <= model.longest for step in result.scan for piece in step.tried)


def test_a_long_word_is_traced_on_its_first_characters_and_encoded_whole():
    vocab = {t: i for i, t in enumerate(["[UNK]", "a", "##a", "aa", "##aa", "##aaaa"])}
    word = "a" * 20_000
    wp = WordPieceModel(vocab, max_input_chars_per_word=100_000).tokenize(word, trace=True)
    assert wp.traced_chars == TRACED_CHARS and len(wp.scan) <= TRACED_CHARS
    assert "".join(t.removeprefix("##") for t in wp.tokens) == word
    bpe_model = BPEModel({"a": 0, "aa": 1, "aaaa": 2}, [("a", "a"), ("aa", "aa")])
    bpe = bpe_model.tokenize(word, trace=True)
    assert bpe.traced_chars == TRACED_CHARS and len(bpe.merges) < TRACED_CHARS
    assert all(len(m.split_after) <= TRACED_CHARS for m in bpe.merges)
    assert bpe.tokens == bpe_model.tokenize(word).tokens == ("aaaa",) * 5000
    short = bpe_model.tokenize("a" * 8, trace=True)
    assert short.traced_chars == 0 and len(short.merges) == 6


def test_an_absurd_max_input_chars_per_word_is_refused_by_name():
    from wordpiece_core.loading import tokenizer_from_json

    doc = {"version": "1.0", "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]",
                                       "continuing_subword_prefix": "##", "max_input_chars_per_word": 10**9}}
    with pytest.raises(WordPieceError, match=r"max_input_chars_per_word is 1,000,000,000.*at most 100,000"):
        tokenizer_from_json(doc, "tokenizer.json")
