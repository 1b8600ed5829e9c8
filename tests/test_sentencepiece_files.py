"""SentencePiece models' files (T5, ALBERT, XLNet, mBART, XLM-R and any `SentencePieceUnigramTokenizer.from_spm`
file) and added tokens matched in the normalized text encode exactly as `tokenizers` does.

The files are made here as their users make them: `sentencepiece` trains a small Unigram model under each of its
normalization rules (its `precompiled_charsmap` is the rule's full map, as in T5's or ALBERT's file), and
tokenizers' own `SentencePieceUnigramTokenizer.from_spm` converts it. Texts: every script, capitals, runs of
spaces, full-width forms, ligatures, stacked marks, emoji sequences, controls and texts of any code point.
"""

from __future__ import annotations

import base64
import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_tokenizer_files import TEXTS, _compare, _differing_texts, _every_code_point_texts, _random_texts
from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import tokenizer_from_json
from wordpiece_core.precompiled import Precompiled

tokenizers = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")

RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
ODD = ["Ａ\u0301b ＡＢＣ ﬁ ™\x1eg ½ ① ｶﾞ ｶ\u3099 가 각 \u1100\u1161 \u0915\u094d\u0937 e\u0301\u0301\u0301\u0301x",
       "🇫🇷🇩🇪 👨‍👩‍👧 \r\n \t  a   b", "\x00a\x1f\u200b\u00ad x", "Ｈｅｌｌｏ　ｗｏｒｌｄ", "\u2581 ▁▁ x",
       "İstanbul ǅ ß ﬀ Σσς", "ệ ê\u0323 Å Å", "", "   ", "x" * 300]


@pytest.fixture(scope="module")
def spm_files(tmp_path_factory) -> dict[str, dict]:
    """Each rule's model, converted by tokenizers' from_spm, as the tokenizer.json it saves."""
    from sentencepiece import sentencepiece_model_pb2

    from wordpiece_core.sampling import sample_lines

    folder = tmp_path_factory.mktemp("spm")
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(sample_lines("en", 3000, top_n=3000, seed=2) + TEXTS + ODD), encoding="utf-8")
    sys.modules.setdefault("sentencepiece_model_pb2", sentencepiece_model_pb2)  # what from_spm imports
    docs = {}
    for rule in RULES:
        prefix = str(folder / rule)
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=prefix, vocab_size=400, minloglevel=2,
                                       normalization_rule_name=rule, character_coverage=1.0)
        docs[rule] = json.loads(tokenizers.SentencePieceUnigramTokenizer.from_spm(prefix + ".model").to_str())
    return docs


def _texts(seed: int) -> list[str]:
    return TEXTS + ODD + _every_code_point_texts(80, seed=seed) + _differing_texts() + _random_texts(80, seed=seed)


def _exact(doc: dict, seed: int = 1) -> list:
    ours = tokenizer_from_json(doc, "tokenizer.json")
    hf = tokenizers.Tokenizer.from_str(json.dumps(doc))
    return [(text[:40], why) for text in _texts(seed) for pair in (None, " A  second ｏｎｅ ")
            if (why := _compare(ours, hf, text, pair)) is not None]


@pytest.mark.parametrize("rule", RULES)
def test_a_sentencepiece_models_map_normalizes_exactly_as_tokenizers(spm_files, rule):
    """The Precompiled normalizer (the whole grapheme cluster replaced by its shortest key's replacement, as
    tokenizers does: Ａ + U+0301 becomes A), then Replace(" {2,}", " "), then Metaspace: tokens, ids, offsets,
    decoded text, with and without a pair."""
    bad = _exact(spm_files[rule], seed=len(rule))
    assert not bad, bad[:3]


def test_the_map_changes_what_it_should(spm_files):
    """A check that the map is used at all: full-width letters, ligatures and the ideographic space become their
    plain forms, and a cluster whose first character is a key loses its marks (tokenizers' quirk)."""
    ours = tokenizer_from_json(spm_files["nmt_nfkc"], "tokenizer.json")
    assert "".join(ours.encode("Ｈｅｌｌｏ　ﬁ").tokens) == "▁Hello▁fi"
    assert "".join(ours.encode("Ａ\u0301").tokens) == "▁A"
    assert "".join(ours.encode("A\u0301").tokens) != "▁A"  # not a key: kept, then composed by nothing
    assert ours.encode("Ｈｅｌｌｏ").offsets[-1][1] == 5


@pytest.mark.parametrize("pre", [
    [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                                   "split": True}],  # T5's (transformers before 4.40)
    [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first",
                                   "split": True}],
    [{"type": "Punctuation", "behavior": "Isolated"}, {"type": "Metaspace", "replacement": "▁",
                                                       "prepend_scheme": "always", "split": False}],
])
def test_a_sequence_ending_in_metaspace_encodes_exactly_as_tokenizers(spm_files, pre):
    doc = dict(spm_files["nmt_nfkc"], pre_tokenizer={"type": "Sequence", "pretokenizers": pre})
    bad = _exact(doc)
    assert not bad, bad[:3]


def test_an_albert_style_chain_around_the_map_encodes_exactly_as_tokenizers(spm_files):
    """ALBERT's normalizer: Replace `` and '' by ", NFKD, StripAccents, Lowercase, the map, then Replace."""
    doc = spm_files["nmt_nfkc_cf"]
    precompiled = doc["normalizer"]["normalizers"][0]
    chain = [{"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
             {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
             {"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"}, precompiled,
             {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]
    bad = _exact(dict(doc, normalizer={"type": "Sequence", "normalizers": chain}))
    assert not bad, bad[:3]


def _with_added(doc: dict, entries: list[dict]) -> dict:
    doc = json.loads(json.dumps(doc))
    vocab = doc["model"]["vocab"]
    for entry in entries:
        entry = {"single_word": False, "lstrip": False, "rstrip": False, "special": False, **entry, "id": len(vocab)}
        vocab.append([entry["content"], 0.0])
        doc["added_tokens"].append(entry)
    return doc


ADDED = {
    "a special token matched in the normalized text": [{"content": "</s>X", "special": True, "normalized": True}],
    "normalized forms that differ from the content": [
        {"content": "[DAY]", "special": True, "normalized": True},
        {"content": "Ｙesterday", "normalized": True}],
    "mixed flags: the non-normalized matched first": [
        {"content": "<s>", "special": True, "normalized": False},
        {"content": "<s>Hey", "normalized": True},
        {"content": "ＡＢ", "normalized": True, "lstrip": True, "rstrip": True}],
    "a single word matched in the normalized text": [{"content": "Ｂook", "normalized": True, "single_word": True}],
}
ADDED_TEXTS = ["I read a book Yesterday [DAY] [day] <s>Hey</s>X ＡＢ ab  AB  x", "<s>Hey <s>hey Book book ｂｏｏｋ ",
               "ＡＢ", "[DAY]", "yesterday,ｙesterday", "  </s>X</s>x"]


@pytest.mark.parametrize("case", ADDED)
@pytest.mark.parametrize("rule", ["nmt_nfkc", "nmt_nfkc_cf"])
def test_added_tokens_with_normalized_true_match_as_tokenizers_does(spm_files, rule, case):
    """tokenizers matches the added tokens with normalized false in the text, then normalizes each piece between
    them and matches the others there by their normalized form; that form is the token's text, and decode
    gives it (a special one whose form differs is kept when decoding, as tokenizers keeps it)."""
    doc = _with_added(spm_files[rule], ADDED[case])
    ours = tokenizer_from_json(doc, "tokenizer.json")
    hf = tokenizers.Tokenizer.from_str(json.dumps(doc))
    bad = [(text[:40], why) for text in ADDED_TEXTS + TEXTS + _random_texts(40)
           for pair in (None, "a ＡＢ pair Yesterday") if (why := _compare(ours, hf, text, pair)) is not None]
    assert not bad, bad[:3]


def test_a_lowercased_special_token_is_found_in_lowercased_text(spm_files):
    doc = _with_added(spm_files["nmt_nfkc_cf"], ADDED["normalized forms that differ from the content"])
    ours = tokenizer_from_json(doc, "tokenizer.json")
    encoding = ours.encode("it was [Day] ｙesterday")
    assert "[day]" in encoding.tokens and "ｙesterday" not in encoding.tokens
    assert "yesterday" in encoding.tokens


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), text=st.text(max_size=30))
def test_a_malformed_map_is_refused_in_one_line_never_a_crash(data, text):
    """Any bytes as a map: refused by name at load or on the text that reaches a broken entry, or used; never an
    IndexError (tokenizers itself panics on some of these)."""
    doc = {"version": "1.0", "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]]},
           "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(data).decode()},
           "pre_tokenizer": None, "added_tokens": []}
    try:
        ours = tokenizer_from_json(doc, "tokenizer.json")
        ours.encode(text)
    except WordPieceError as error:
        assert "\n" not in str(error) and "Precompiled" in str(error)


def test_a_map_with_a_trie_larger_than_itself_is_refused_naming_the_sizes():
    with pytest.raises(WordPieceError, match="says its trie holds 400 bytes"):
        Precompiled((400).to_bytes(4, "little") + b"\0" * 8)


@pytest.mark.parametrize("scheme", ["always", "first"])
def test_a_sequence_ending_in_metaspace_without_a_normalizer_gives_tokenizers_offsets(spm_files, scheme):
    """(Review: with no normalizer the fast path took the chain's prepended ▁ for a character: every end one too
    far.)"""
    pre = [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": scheme,
                                         "split": True}]
    doc = dict(spm_files["nmt_nfkc"], normalizer=None, pre_tokenizer={"type": "Sequence", "pretokenizers": pre})
    bad = _exact(doc)
    assert not bad, bad[:3]


def test_metaspace_first_asks_where_the_text_starts_in_the_original_as_tokenizers_does(spm_files):
    """A Strip normalizer drops the leading spaces: tokenizers then prepends no ▁ under prepend_scheme first (the
    piece does not start the original text)."""
    for pre in ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
                {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {
                    "type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}]}):
        doc = dict(spm_files["nmt_nfkc"], normalizer={"type": "Strip", "strip_left": True, "strip_right": True},
                   pre_tokenizer=pre)
        ours = tokenizer_from_json(doc, "tokenizer.json")
        hf = tokenizers.Tokenizer.from_str(json.dumps(doc))
        for text in (" ab cd ", "ab cd", "  x"):
            assert _compare(ours, hf, text, None) is None, text


def test_a_normalizer_with_more_than_two_maps_is_refused_before_any_is_read(spm_files):
    precompiled = spm_files["nmt_nfkc"]["normalizer"]["normalizers"][0]
    doc = dict(spm_files["nmt_nfkc"], normalizer={"type": "Sequence", "normalizers": [precompiled] * 3})
    with pytest.raises(WordPieceError, match="more than 2 Precompiled maps"):
        tokenizer_from_json(doc, "tokenizer.json")
