"""Unigram tokenizer.json files written by `tokenizers` encode here exactly as `tokenizers` encodes them: tokens,
ids, offsets and decoded text. The files come from tokenizers' own UnigramTrainer on the sample corpora,
under several normalizers and pre-tokenizers; the texts hold words the vocabulary lacks, characters it has
never seen (one unknown token for a run of them), accents and several scripts."""

from __future__ import annotations

import json
import os
import random
import re

import pytest

from helpers import ROOT
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import tokenizer_from_json
from wordpiece_core.unigram.model import UnigramModel

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

pytestmark = pytest.mark.slow


def _sentences() -> list[str]:
    with open(os.path.join(ROOT, "sample_corpora", "english-paragraphs.txt"), encoding="utf-8") as fh:
        return [s for s in re.split(r"(?<=[.!?])\s+", fh.read()) if s.strip()]


def _wordfreq(lang: str, rng: random.Random, lines: int) -> list[str]:
    with open(os.path.join(ROOT, "sample_corpora", f"wordfreq-{lang}.tsv"), encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if "\t" in line]
    words, weights = [w for w, _ in rows[:5000]], [int(c) for _, c in rows[:5000]]
    return [" ".join(rng.choices(words, weights, k=12)) for _ in range(lines)]


RNG = random.Random(37)
CORPORA = {
    "english": _sentences(),
    "wordfreq-en": _wordfreq("en", RNG, 600),
    "wordfreq-de": _wordfreq("de", RNG, 600),
    "wordfreq-fi": _wordfreq("fi", RNG, 600),
}
ODD = ["Ωmega ∑ xyz 日本語 ab", "  two  spaces ", "ÀÉÎ õ ÿ naïve café", "tab\tand\nnewline", "", "▁already ▁marked",
       "🙂🙂 emoji, then text", "ǅemal ﬁne ﬀ"]
SETUPS = [
    ("metaspace", lambda: pre_tokenizers.Metaspace(), None),
    ("metaspace, NFKC", lambda: pre_tokenizers.Metaspace(), lambda: normalizers.NFKC()),
    ("metaspace never", lambda: pre_tokenizers.Metaspace(prepend_scheme="never"), None),
    ("metaspace first", lambda: pre_tokenizers.Metaspace(prepend_scheme="first"), None),
    ("whitespace, lowercase", lambda: pre_tokenizers.Whitespace(), lambda: normalizers.Lowercase()),
    ("bert", lambda: pre_tokenizers.BertPreTokenizer(), lambda: normalizers.BertNormalizer()),
    ("whitespace-split", lambda: pre_tokenizers.WhitespaceSplit(), None),
]


def _same(theirs: Tokenizer, ours, text: str) -> None:
    e, o = theirs.encode(text), ours.encode(text)
    assert o.tokens == e.tokens, text
    assert o.ids == e.ids, text
    assert [tuple(x) for x in o.offsets] == [tuple(x) for x in e.offsets], text
    assert ours.decode(o.ids) == theirs.decode(e.ids), text


@pytest.mark.parametrize("corpus", list(CORPORA))
@pytest.mark.parametrize("setup", SETUPS, ids=[s[0] for s in SETUPS])
def test_a_unigram_file_trained_by_tokenizers_encodes_the_same(corpus, setup):
    _, pre, norm = setup
    lines = CORPORA[corpus]
    cut = len(lines) * 2 // 3
    theirs = Tokenizer(models.Unigram())
    theirs.pre_tokenizer = pre()
    if norm:
        theirs.normalizer = norm()
    if "metaspace" in setup[0]:
        theirs.decoder = decoders.Metaspace(prepend_scheme=theirs.pre_tokenizer.prepend_scheme)
    theirs.train_from_iterator(lines[:cut], trainers.UnigramTrainer(
        vocab_size=400, unk_token="<unk>", special_tokens=["<unk>", "<s>"], show_progress=False))
    ours = tokenizer_from_json(json.loads(theirs.to_str()), "tokenizer.json")
    for text in lines[cut:] + ODD + ["<s> a special token <s>"]:
        _same(theirs, ours, text)


def test_byte_fallback_spells_an_unknown_run_in_its_bytes():
    pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -2.5), ("▁", -1.5)]
    pieces += [(f"<0x{b:02X}>", -9.0) for b in range(256)]
    theirs = Tokenizer(models.Unigram(pieces, unk_id=0, byte_fallback=True))
    theirs.pre_tokenizer = pre_tokenizers.Metaspace()
    theirs.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
    ours = tokenizer_from_json(json.loads(theirs.to_str()), "tokenizer.json")
    for text in ["abé ab", "xyz", "日本 ab", "a"]:
        _same(theirs, ours, text)


def test_ties_keep_the_split_found_first_and_unknown_characters_fuse():
    # "ab" + "c" and "a" + "bc" score the same: the path found first (the one whose last piece starts first) stays
    model = UnigramModel([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("c", -1.0), ("ab", -1.5), ("bc", -1.5)], 0)
    theirs = Tokenizer(models.Unigram(model.pieces, unk_id=0))
    for word in ["abc", "abcab", "xxabyy", "ax", "xyz"]:
        result = model.tokenize(word, trace=True)
        assert list(result.tokens) == theirs.encode(word).tokens, word
    result = model.tokenize("xxab", trace=True)
    assert result.tokens == ("xx", "ab") and result.spans == ((0, 2), (2, 4))
    best = [(e.start, e.end, e.piece) for e in result.lattice if e.best]
    assert best == [(0, 1, "<unk>"), (1, 2, "<unk>"), (2, 4, "ab")]
    assert {(e.start, e.end) for e in result.lattice} == {(0, 1), (1, 2), (2, 3), (2, 4), (3, 4)}


@pytest.mark.parametrize("model, problem", [
    ({"type": "Unigram", "vocab": {"a": 0}, "unk_id": 0}, "model.vocab should be a non-empty list of [piece, score] pairs"),
    ({"type": "Unigram", "vocab": [["a", "x"]], "unk_id": 0}, "model.vocab[0] should be a [piece, score] pair"),
    ({"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": 3}, "model.unk_id should be null or the index of a piece"),
    ({"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": True}, "model.unk_id should be null or the index"),
])
def test_a_malformed_unigram_file_is_refused_by_name(model, problem):
    doc = {"version": "1.0", "model": model, "normalizer": None, "pre_tokenizer": None, "post_processor": None,
           "decoder": None, "added_tokens": []}
    with pytest.raises(WordPieceError, match=re.escape(problem)):
        tokenizer_from_json(doc, "t.json")


def test_a_word_no_piece_covers_without_an_unknown_piece_says_so():
    doc = {"version": "1.0", "model": {"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": None},
           "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None, "added_tokens": []}
    tok = tokenizer_from_json(doc, "t.json")
    assert tok.encode("aaa").tokens == ["a", "a", "a"]
    with pytest.raises(WordPieceError, match="no unk_id"):
        tok.encode("ab")


@pytest.mark.parametrize("pieces, unk_id, text", [
    ([("a", -1.0), ("<unk>", -0.1), ("b", -20.0)], 1, "<unk>x"),  # the unknown piece itself fuses with a run
    ([("a", -1.0), ("b", -2.0)], 0, "aab"),  # a vocabulary whose unknown piece is "a": aa is one token
    ([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -3.0), ("a", -10.0)], 0, "ab"),  # a repeat: the last copy
    ([("<unk>", 0.0), ("q", -15.0), ("xa", -15.0), ("a", -15.0), ("b", -15.0), ("ab", -1.0)], 0, "xab"),
])
def test_edge_cases_of_tokenizers_unigram(pieces, unk_id, text):
    """Cases a review found (each was different here before): tokenizers' own answers."""
    theirs = Tokenizer(models.Unigram(pieces, unk_id=unk_id))
    ours = tokenizer_from_json(json.loads(theirs.to_str()), "tokenizer.json")
    _same(theirs, ours, text)


def test_without_an_unknown_piece_any_uncovered_character_stops_the_word():
    """tokenizers fails as soon as a character no single piece covers is met, even off the best path."""
    theirs = Tokenizer(models.Unigram([("ab", -1.0), ("b", -1.0)], unk_id=None))
    with pytest.raises(Exception):
        theirs.encode("ab")
    ours = tokenizer_from_json(json.loads(theirs.to_str()), "tokenizer.json")
    with pytest.raises(WordPieceError, match="no unk_id"):
        ours.encode("ab")


@pytest.mark.parametrize("field, value, says", [
    ("pre_tokenizer", "Whitespace", "pre_tokenizer should be"),
    ("added_tokens", [5], "added_tokens[0] should be"),
    ("padding", [1], "padding should be"),
    ("decoder", "x", "decoder should be"),
])
def test_the_rest_of_a_unigram_file_is_checked_too(field, value, says):
    doc = {"version": "1.0", "model": {"type": "Unigram", "vocab": [["<unk>", 0.0], ["a", -1.0]], "unk_id": 0},
           "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None, "added_tokens": [],
           field: value}
    with pytest.raises(WordPieceError, match=re.escape(says)):
        tokenizer_from_json(doc, "t.json")


def test_a_score_too_large_for_a_float_is_refused():
    doc = {"version": "1.0", "model": {"type": "Unigram", "vocab": [["a", 10 ** 400]], "unk_id": None}}
    with pytest.raises(WordPieceError, match="finite score"):
        tokenizer_from_json(doc, "t.json")


# ----- property: any vocabulary, any text ---------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

_ALPHABET = "abcé▁😀"  # a few letters, an accent, Metaspace's mark, an emoji (outside the BMP)
_pieces = hs.lists(hs.tuples(hs.text(_ALPHABET, min_size=1, max_size=4),
                             hs.sampled_from([-0.5, -1.0, -1.5, -2.0, -3.0, -7.25])), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(_pieces, hs.text(_ALPHABET + "xy", max_size=14), hs.booleans())
def test_any_unigram_vocabulary_splits_any_text_as_tokenizers_does(pieces, text, byte_fallback):
    """Random vocabularies (repeats, ties of equal scores, pieces longer than the text) with an unknown piece, and
    random texts with characters no piece covers: tokens, ids and offsets as tokenizers gives them."""
    vocab = [("<unk>", 0.0)] + pieces
    if byte_fallback:
        vocab += [(f"<0x{b:02X}>", -9.0) for b in range(256)]
    theirs = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=byte_fallback))
    ours = tokenizer_from_json(json.loads(theirs.to_str()), "tokenizer.json")
    e, o = theirs.encode(text), ours.encode(text)
    assert (o.tokens, o.ids, [tuple(x) for x in o.offsets]) == (e.tokens, e.ids, [tuple(x) for x in e.offsets])
