"""wordpiece_core/models.py: how one pre-tokenized word becomes tokens, with a trace of how.

Seed 000: after three WordPiece merges on the toy corpus the vocabulary holds
##gs, hu and hugs (our arithmetic; the course's prose has hug instead, see
test_golden). "bugs": b is the longest prefix in the vocabulary, then ##u, then
##gs. "mug": no piece starts with m, so the whole word is [UNK]; "bum": b, ##u,
then nothing matches ##m, so again the WHOLE word is [UNK].
Seed 002: BPE after u+g, u+n, h+ug: "thug" → t is unknown → [UNK], then u+g and
h+ug give hug.
The work is bounded by size: the WordPiece scan tries no piece longer than the vocabulary's longest
token, and a long word is traced on its first characters (and encoded whole).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import COURSE, TOY, examples, train_bpe, train_wordpiece
from wordpiece_core import TextSettings, count_words
from wordpiece_core.loading import tokenizer_from_training
from wordpiece_core.models import TRACED_CHARS, BPEModel, WordPieceModel


def test_toy_wordpiece_after_three_merges():
    t = train_wordpiece(TOY, 11, special_tokens=["[UNK]"])
    model = tokenizer_from_training(t, "none", "whitespace").model
    assert [model.tokenize(w).tokens for w in ["hugs", "bugs", "mug", "bum", "pugs"]] == [
        ("hugs",), ("b", "##u", "##gs"), ("[UNK]",), ("[UNK]",), ("p", "##u", "##gs")]
    scan = model.tokenize("bum", trace=True).scan
    assert [s.found for s in scan] == ["b", "##u", None]
    assert scan[0].tried == ("bum", "bu", "b")
    assert model.tokenize("x" * 101).tokens == ("[UNK]",)


def test_toy_bpe_after_three_merges():
    t = train_bpe(TOY, 11, special_tokens=["[UNK]"])
    model = tokenizer_from_training(t, "none", "whitespace").model
    assert [model.tokenize(w).tokens for w in ["bug", "mug", "thug", "unhug"]] == [
        ("b", "ug"), ("[UNK]", "ug"), ("[UNK]", "hug"), ("un", "hug")]
    steps = model.tokenize("thug", trace=True).merges
    assert [(m.left, m.right, m.split_after) for m in steps] == [("u", "g", ("[UNK]", "h", "ug")),
                                                                  ("h", "ug", ("[UNK]", "hug"))]


def test_rank_order_and_learned_order_differ_only_for_hand_made_merges():
    model = BPEModel({"a": 0, "b": 1, "c": 2, "bc": 3, "abc": 4}, [("a", "bc"), ("b", "c")])
    assert model.tokenize("abc").tokens == ("abc",)
    assert model.apply_in_order("abc") == ["a", "bc"]
    t = train_bpe(count_words(COURSE, TextSettings("none", "whitespace")), 120)
    tok = tokenizer_from_training(t, "none", "whitespace")
    for word in t.words:
        assert list(tok.model.tokenize(word).tokens) == tok.model.apply_in_order(word)


def test_an_unknown_word_names_the_character_counted_from_one():
    model = WordPieceModel({"[UNK]": 0, "hug": 1, "##g": 2})
    result = model.tokenize("hugger", trace=True)
    assert result.unknown and "from character 5 ('e') on" in result.reason


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


@examples(300, fast=30)
def test_the_wordpiece_scan_tries_no_piece_longer_than_the_vocabularys_longest(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(st.lists(st.text(alphabet="abc#", min_size=1, max_size=6), min_size=1, max_size=15),
           st.text(alphabet="abc", min_size=1, max_size=30))
    def check(tokens, word):
        vocab = {t: i for i, t in enumerate(dict.fromkeys(["[UNK]", *tokens]))}
        model = WordPieceModel(vocab, max_input_chars_per_word=1000)
        assert list(model.tokenize(word).tokens) == _unbounded_scan(vocab, word)
        result = model.tokenize(word, trace=True)
        assert list(result.tokens) == _unbounded_scan(vocab, word)
        assert all(len(piece) <= model.longest for step in result.scan for piece in step.tried)

    check()


@pytest.mark.slow
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


def test_the_word_cache_is_bounded_by_characters_whatever_is_typed():
    """Only words of at most CACHE_WORD_CHARS are kept, CACHE_CHARS characters of them in all (before: 100,000
    words of any length, about 2 GB of 201-letter words); words past the bound are still encoded."""
    from wordpiece_core.models import CACHE_CHARS, CACHE_WORD_CHARS

    model = BPEModel({c: i for i, c in enumerate("ab")}, [])
    long = "ab" * CACHE_WORD_CHARS
    assert model.tokenize(long).tokens == tuple(long) and long not in model.cached_words
    words = [format(i, "b").zfill(CACHE_WORD_CHARS).replace("0", "a").replace("1", "b")
             for i in range(CACHE_CHARS // CACHE_WORD_CHARS + 50)]
    for word in words:
        assert model.tokenize(word).tokens == tuple(word)
    assert sum(map(len, model.cached_words)) == model.cached_chars <= CACHE_CHARS
    assert len(model.cached_words) == CACHE_CHARS // CACHE_WORD_CHARS and words[-1] not in model.cached_words


def test_where_linmaxmatch_stops_is_found_within_a_bound_and_said_less_exactly_past_it(monkeypatch):
    """A word that cannot be cut: where the taught scan stops is found by walking the tries again from the last cut,
    at most wordpiece_match.STUCK_STEPS steps a character (a crafted file could make each walk read 1,000
    characters); past the bound, the reason says where the cut pieces end instead."""
    from wordpiece_core import wordpiece_match

    model = WordPieceModel({"[UNK]": 0, "x": 1, "xyq": 2}, max_input_chars_per_word=100)
    model.linear = True
    assert model.tokenize("xyz").reason == "nothing in the vocabulary matches from character 2 ('y') on"
    monkeypatch.setattr(wordpiece_match, "STUCK_STEPS", 0)
    monkeypatch.setattr(wordpiece_match, "STUCK_SLACK", 0)
    assert model.tokenize("xyw").reason == "the vocabulary's pieces do not cover it"
    assert model.tokenize("xyw").tokens == ("[UNK]",)


def test_an_empty_token_matches_nothing_and_never_stops_the_scan():
    """A vocab.txt with a blank line holds "": the scan tried a piece of 0 characters and never moved on."""
    model = WordPieceModel({"[UNK]": 0, "": 1, "a": 2, "##b": 3}, max_input_chars_per_word=100)
    assert model.tokenize("ab").tokens == ("a", "##b") and model.tokenize("ac").tokens == ("[UNK]",)
