"""Differential tests against Hugging Face `tokenizers`, where the algorithms coincide.

- BPE with tie-break "hf" must learn exactly BpeTrainer's merges, for each
  pre-tokenizer and on real prose (a few thousand merges).
- Our normalizers and pre-tokenizers must equal BertNormalizer, Lowercase,
  BertPreTokenizer, Whitespace, WhitespaceSplit and ByteLevel on random text.
- The tokenizer.json files we write encode and decode in `tokenizers` as with
  our own pipeline (tokens, ids, offsets; decoding, also of a character split
  across byte-level tokens).
"""

import json
import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import BERT_SPECIALS, COURSE, TOY, examples, train_bpe, train_wordpiece
from wordpiece_core import TextSettings, count_words
from wordpiece_core.formats import output_files, write_outputs
from wordpiece_core.loading import load_tokenizer
from wordpiece_core.normalizers import normalize
from wordpiece_core.pre_tokenizers import pre_tokenize
from wordpiece_core.sampling import sample_lines

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers  # noqa: E402

# Characters safe for differential tests against Hugging Face `tokenizers`.
#
# The Rust library's Unicode tables are older than Python's (Unicode 14 here).
# We keep the code points whose data did not change: assigned in Unicode 3.2
# with the same category and decomposition today, plus the emoji blocks of
# Unicode 6–7. That leaves out everything whose Unicode data changed after
# Unicode 8 (and, conservatively, the characters added in 4.0–8.0 outside those
# emoji blocks, since the standard library cannot tell a character's age).
_old = unicodedata.ucd_3_2_0


def _stable(cp: int) -> bool:
    ch = chr(cp)
    cat = unicodedata.category(ch)
    if cat in ("Cs", "Cn", "Co"):
        return False
    return _old.category(ch) == cat and _old.decomposition(ch) == unicodedata.decomposition(ch)


STABLE = [chr(cp) for cp in range(sys.maxunicode + 1) if _stable(cp)]
EMOJI = [chr(cp) for cp in list(range(0x1F300, 0x1F5FF)) + list(range(0x1F600, 0x1F64F))]
SPECIAL = list(
    " \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2003\u200a\u2028\u2029\u202f\u205f\u3000"  # spaces
    "\u200b\u200c\u200d\u200e\u202e\u2066\ufeff\x00\x01\x7f\ufffd"  # zero-width, bidi, control
    "\u0301\u0308\u0323\u0327\u20dd"  # combining marks
    "ΣσςΟΔΪİıßẞﬁﬀÅǅ"  # casing oddities, ligatures
    "éñüçøÆ野口里佳中文한국어カタナ"  # accents, CJK
    "!?.,;:'\"-_()[]{}<>@#$%^&*+=/\\|~`¡¿«»–—…‘’“”"  # punctuation
    "0123456789٣४"  # digits
    "שלוםمرحبا"  # right-to-left
)

unicode_text = st.text(
    alphabet=st.one_of(st.sampled_from(SPECIAL), st.sampled_from(STABLE), st.sampled_from(EMOJI),
                       st.sampled_from(list("abcdefghij  "))),
    max_size=60,
)

HF_NORMALIZERS = {
    "none": None,
    "lowercase": normalizers.Lowercase(),
    "bert": normalizers.BertNormalizer(),
    "bert-cased": normalizers.BertNormalizer(lowercase=False),
}
HF_PRE = {
    "whitespace": pre_tokenizers.Whitespace(),
    "whitespace-split": pre_tokenizers.WhitespaceSplit(),
    "bert": pre_tokenizers.BertPreTokenizer(),
    "byte-level": pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
}



def hf_merges(lines, normalizer, pre, vocab_size, specials, min_frequency=0):
    tok = Tokenizer(models.BPE())
    if HF_NORMALIZERS[normalizer] is not None:
        tok.normalizer = HF_NORMALIZERS[normalizer]
    tok.pre_tokenizer = HF_PRE[pre]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=list(specials), show_progress=False)
    tok.train_from_iterator(lines, trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return merges, model["vocab"]


def ours(lines, normalizer, pre, vocab_size, specials, min_frequency=0):
    counts = count_words(lines, TextSettings(normalizer, pre))
    t = train_bpe(counts, vocab_size, special_tokens=specials, min_frequency=min_frequency, tie_break="hf", top_k=0)
    return [(s.left, s.right) for s in t.steps], {tok: i for i, tok in enumerate(t.vocab)}


@pytest.mark.parametrize("pre", sorted(HF_PRE))
@pytest.mark.parametrize("normalizer", ["none", "bert"])
def test_course_sentences_match_bpe_trainer(pre, normalizer):
    assert ours(COURSE, normalizer, pre, 80, ["<|endoftext|>"]) == hf_merges(COURSE, normalizer, pre, 80, ["<|endoftext|>"])


@pytest.fixture(scope="module")
def prose():
    return sample_lines("en", 60_000, top_n=20_000, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("pre", sorted(HF_PRE))
def test_real_prose_thousands_of_merges_match_bpe_trainer(prose, pre):
    a_merges, a_vocab = ours(prose, "none", pre, 3000, ["[UNK]"])
    b_merges, b_vocab = hf_merges(prose, "none", pre, 3000, ["[UNK]"])
    assert len(a_merges) > 2000
    assert a_merges == b_merges
    assert a_vocab == b_vocab


def test_min_frequency_matches_bpe_trainer():
    lines = sample_lines("en", 6_000, top_n=20_000, seed=7)  # the prose's first 300 lines, without drawing the rest
    assert ours(lines, "lowercase", "whitespace", 5000, [], 3) == hf_merges(lines, "lowercase", "whitespace", 5000, [], 3)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(unicode_text)
@example("\U0002f800")  # a CJK compatibility ideograph: spaces around it, then NFD makes it U+4E3D (found by hypothesis)
@example("\uf900x \uf91d")  # CJK compatibility ideographs in the BMP
@example("Héllo 中文 ΣΑΣ")  # accents, CJK, a final sigma
def test_normalizers_match(text):
    for name, hf in HF_NORMALIZERS.items():
        if hf is not None:
            assert normalize(text, name) == hf.normalize_str(text), name


@examples(300, fast=30)
def test_pre_tokenizers_match(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(unicode_text)
    def check(text):
        for name, hf in HF_PRE.items():
            expected = [(w, tuple(o)) for w, o in hf.pre_tokenize_str(text)]
            assert pre_tokenize(text, name) == expected, name

    check()


# The code points where BertNormalizer and ours differ: none (U+11938, whose decomposition Python 3.11's tables do
# not know, takes tokenizers' from unicode_tables). docs/unicode.md.
BERT_KNOWN_DIFFERENT: frozenset[int] = frozenset()  # (U+11938, whose NFD Python 3.11 lacks: unicode_tables now)
any_code_point = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=("Cs",)).filter(
    lambda ch: ord(ch) not in BERT_KNOWN_DIFFERENT)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=any_code_point, max_size=40))
def test_bert_normalizer_matches_over_every_code_point(text):
    """Any code point, assigned or not in either library's tables (except the list above)."""
    for name in ("bert", "bert-cased", "lowercase"):
        assert normalize(text, name) == HF_NORMALIZERS[name].normalize_str(text), name


def test_bert_normalizer_keeps_unassigned_code_points_and_drops_private_use():
    text = "I \U0001FA77 you \U0001FABF\U0001FAE8 \ue000x\u0890 \ua7cb"  # newer emoji, private use, format, capital
    for name in ("bert", "bert-cased"):
        assert normalize(text, name) == HF_NORMALIZERS[name].normalize_str(text)
    assert "\U0001FA77" in normalize(text, "bert") and "\ue000" not in normalize(text, "bert")


@pytest.mark.slow
def test_bert_normalizer_differs_only_where_the_readme_says():
    """Every code point, one by one: the differences are exactly the documented ones (none since unicode_tables
    holds tokenizers' NFD where Python's differs)."""
    differing = set()
    for name in ("bert", "bert-cased", "lowercase"):
        hf = HF_NORMALIZERS[name]
        for start in range(0, 0x110000, 0x1000):
            for cp in range(start, start + 0x1000):
                if 0xD800 <= cp <= 0xDFFF:
                    continue
                ch = chr(cp)
                if normalize(ch, name) != hf.normalize_str(ch):
                    differing.add(cp)
    assert differing == BERT_KNOWN_DIFFERENT


# ----- our tokenizer.json in Hugging Face tokenizers: encoding ----------------------------------


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    lines = sample_lines("en", 20_000, top_n=5000, seed=3) + COURSE + ["café naïve Ωμέγα ΣΟΦΙΑ 東京 😀 👍🏽 مرحبا"]
    out = {}
    for name, algo, norm, pre, vocab in [
        ("wordpiece-bert", "wordpiece", "bert", "bert", 600),
        ("bpe-byte-level", "bpe", "none", "byte-level", 600),
        ("bpe-chars", "bpe", "none", "whitespace", 500),
        ("wordpiece-cased", "wordpiece", "none", "whitespace", 500),
    ]:
        counts = count_words(lines, TextSettings(norm, pre))
        specials = BERT_SPECIALS if algo == "wordpiece" else (["<|endoftext|>"] if pre == "byte-level" else ["[UNK]"])
        t = train_bpe(counts, vocab, special_tokens=specials, top_k=0, full_byte_alphabet=pre == "byte-level") \
            if algo == "bpe" else \
            train_wordpiece(counts, vocab, special_tokens=specials, top_k=0)
        d = tmp_path_factory.mktemp(name)
        write_outputs(str(d), output_files(t, norm, pre))
        path = str(d / "tokenizer.json")
        out[name] = (load_tokenizer(path), tokenizers.Tokenizer.from_file(path))
    return out


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(text=unicode_text, name=st.sampled_from(["wordpiece-bert", "bpe-byte-level", "bpe-chars", "wordpiece-cased"]))
def test_exported_tokenizer_encodes_like_hf(exported, text, name):
    ours, hf = exported[name]
    a = ours.encode(text)
    b = hf.encode(text)
    assert a.tokens == b.tokens
    assert a.ids == b.ids
    assert a.offsets == [tuple(o) for o in b.offsets]


@examples(100, fast=20)
def test_decoding_round_trips_and_offsets_slice(exported, max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.!?'", max_size=60))
    def check(text):
        ours, hf = exported["bpe-byte-level"]
        enc = ours.encode(text)
        assert ours.decode(enc.ids) == text
        for tok, (s, e) in zip(enc.tokens, enc.offsets):
            assert text[s:e] == ours.decode([ours.vocab[tok]]).strip(" ")  # offsets leave the spaces out
        wp, hf_wp = exported["wordpiece-bert"]
        enc = wp.encode(text)
        assert wp.decode(enc.ids) == hf_wp.decode(hf_wp.encode(text).ids)
        for tok, (s, e) in zip(enc.tokens, enc.offsets):
            if tok not in ("[CLS]", "[SEP]", "[UNK]"):
                assert text[s:e].lower() == tok.removeprefix("##")

    check()


# ----- decoding, as tokenizers decodes ----------------------------------------------


def _byte_level_pair():
    import json

    from tokenizers import Tokenizer as HFTokenizer

    from wordpiece_core.corpus import TextSettings, count_words
    from wordpiece_core.formats import tokenizer_json
    from wordpiece_core.loading import tokenizer_from_json

    counts = count_words(["мир мир привет", "hello world", "日本語 テキスト 🙂 hello"], TextSettings("none", "byte-level"))
    t = train_bpe(counts, 320, special_tokens=("<|endoftext|>",), full_byte_alphabet=True)
    doc = tokenizer_json(t, "none", "byte-level")
    return tokenizer_from_json(doc, "test"), HFTokenizer.from_str(json.dumps(doc)), len(t.vocab)


BYTE_LEVEL = None


def byte_level():
    global BYTE_LEVEL
    if BYTE_LEVEL is None:
        BYTE_LEVEL = _byte_level_pair()
    return BYTE_LEVEL


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30))
def test_byte_level_encode_then_decode_gives_back_any_text(text):
    """With the 256-byte alphabet every text's bytes are in the vocabulary: decode(encode(x)) == x."""
    ours, _, _ = byte_level()
    assert ours.decode(ours.encode(text, add_special_tokens=False).ids) == text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 319), max_size=12))
def test_byte_level_decode_equals_tokenizers_even_for_characters_split_across_tokens(ids):
    ours, hf, _ = byte_level()
    assert ours.decode(ids) == hf.decode(ids)
    assert ours.decode(ids, skip_special_tokens=False) == hf.decode(ids, skip_special_tokens=False)


def test_a_character_split_across_tokens_decodes_whole():
    ours, hf, _ = byte_level()
    ids = ours.encode("мир", add_special_tokens=False).ids
    assert ours.decode(ids) == hf.decode(ids) == "мир"


def test_wordpiece_decoder_keeps_the_prefix_of_a_first_token_as_tokenizers_does():
    import json

    from tokenizers import Tokenizer as HFTokenizer

    from wordpiece_core.formats import tokenizer_json
    from wordpiece_core.loading import tokenizer_from_json

    t = train_wordpiece(TOY, 30, special_tokens=("[UNK]", "[CLS]", "[SEP]"))
    doc = tokenizer_json(t, "bert", "bert")
    ours, hf = tokenizer_from_json(doc, "test"), HFTokenizer.from_str(json.dumps(doc))
    vocab = {tok: i for i, tok in enumerate(t.vocab)}
    ids = [vocab["##s"], vocab["hug"], vocab["##s"], vocab["pun"]]
    assert ours.decode(ids) == hf.decode(ids) == "##s hugs pun"
