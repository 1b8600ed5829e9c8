"""Encoders, the pipeline and file interop (issue 3).

Seed 000: after three WordPiece merges on the toy corpus the vocabulary holds
##gs, hu and hugs (our arithmetic; the course's prose has hug instead, see
test_golden). "bugs": b is the longest prefix in the vocabulary, then ##u, then
##gs. "mug": no piece starts with m, so the whole word is [UNK]; "bum": b, ##u,
then nothing matches ##m, so again the WHOLE word is [UNK].
Seed 002: BPE after u+g, u+n, h+ug: "thug" → t is unknown → [UNK], then u+g and
h+ug give hug.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import BERT_SPECIALS, COURSE, TOY, run_cli, train_bpe, train_wordpiece
from test_hf_differential import unicode_text
from wordpiece_core import TextSettings, count_words
from wordpiece_core.formats import output_files, write_outputs
from wordpiece_core.loading import load_tokenizer, tokenizer_from_training
from wordpiece_core.models import BPEModel, WordPieceModel
from wordpiece_core.sampling import sample_lines


def course_wordpiece():
    t = train_wordpiece(count_words(COURSE, TextSettings("none", "bert")), 70, special_tokens=BERT_SPECIALS)
    return tokenizer_from_training(t, "none", "bert")


def test_course_wordpiece_examples():
    tok = course_wordpiece()
    model = tok.model
    assert model.tokenize("Hugging").tokens == ("Hugg", "##i", "##n", "##g")
    assert model.tokenize("HOgging").tokens == ("[UNK]",)
    enc = tok.encode("This is the Hugging Face course!", add_special_tokens=False)
    assert enc.tokens == ["Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e", "c",
                          "##o", "##u", "##r", "##s", "##e", "[UNK]"]


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


def test_course_byte_level_bpe_example():
    t = train_bpe(count_words(COURSE, TextSettings("none", "byte-level")), 50, special_tokens=["<|endoftext|>"])
    tok = tokenizer_from_training(t, "none", "byte-level")
    assert tok.encode("This is not a token.").tokens == ["This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", "."]


def test_rank_order_and_learned_order_differ_only_for_hand_made_merges():
    model = BPEModel({"a": 0, "b": 1, "c": 2, "bc": 3, "abc": 4}, [("a", "bc"), ("b", "c")])
    assert model.tokenize("abc").tokens == ("abc",)
    assert model.apply_in_order("abc") == ["a", "bc"]
    t = train_bpe(count_words(COURSE, TextSettings("none", "whitespace")), 120)
    tok = tokenizer_from_training(t, "none", "whitespace")
    for word in t.words:
        assert list(tok.model.tokenize(word).tokens) == tok.model.apply_in_order(word)


def test_pair_encoding_and_masks():
    tok = course_wordpiece()
    enc = tok.encode("This is", pair="the course")
    assert enc.tokens[0] == "[CLS]" and enc.tokens.count("[SEP]") == 2
    sep = enc.tokens.index("[SEP]")
    assert set(enc.type_ids[: sep + 1]) == {0} and set(enc.type_ids[sep + 1 :]) == {1}
    assert enc.special_tokens_mask == [1 if t in ("[CLS]", "[SEP]") else 0 for t in enc.tokens]
    assert enc.attention_mask == [1] * len(enc.tokens)
    assert enc.offsets[0] == (0, 0)


def test_offsets_survive_lowercasing_and_accent_stripping():
    t = train_wordpiece(count_words(["café naïve İstanbul ΣΟΦΙΑ"], TextSettings("bert", "bert")), 60,
                        special_tokens=BERT_SPECIALS)
    tok = tokenizer_from_training(t, "bert", "bert")
    text = "Café  NAÏVE, İstanbul ΣΟΦΙΑ!"
    enc = tok.encode(text, add_special_tokens=False)
    # Each word's tokens, joined by their offsets, give back the word as it was typed: the
    # capitals, the accents, the dotted İ (two characters once lowercased) and the Greek.
    spans: dict[int, tuple[int, int]] = {}
    for (s, e), w in zip(enc.offsets, enc.word_ids):
        first, last = spans.get(w, (s, e))
        spans[w] = (min(first, s), max(last, e))
    assert [text[s:e] for _, (s, e) in sorted(spans.items())] == ["Café", "NAÏVE", ",", "İstanbul", "ΣΟΦΙΑ", "!"]


# ----- differential: our tokenizer.json in Hugging Face tokenizers ---------------------------

tokenizers = pytest.importorskip("tokenizers")


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


@settings(max_examples=250, deadline=None)
@given(text=unicode_text, name=st.sampled_from(["wordpiece-bert", "bpe-byte-level", "bpe-chars", "wordpiece-cased"]))
def test_exported_tokenizer_encodes_like_hf(exported, text, name):
    ours, hf = exported[name]
    a = ours.encode(text)
    b = hf.encode(text)
    assert a.tokens == b.tokens
    assert a.ids == b.ids
    assert a.offsets == [tuple(o) for o in b.offsets]


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.!?'", max_size=60))
def test_decoding_round_trips_and_offsets_slice(exported, text):
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


def test_bert_vocab_txt_loads(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", "##s", "w"]) + "\n")
    tok = load_tokenizer(str(p))
    assert tok.encode("Hello worlds!").tokens == ["[CLS]", "hello", "world", "##s", "!", "[SEP]"]


def test_encode_cli(tmp_path):
    t = train_wordpiece(count_words(COURSE, TextSettings("none", "bert")), 70, special_tokens=BERT_SPECIALS)
    write_outputs(str(tmp_path), output_files(t, "none", "bert"))
    path = str(tmp_path / "tokenizer.json")
    proc = run_cli("encode", "--tokenizer", path, "Hugging", "HOgging")
    assert proc.returncode == 0, proc.stderr
    first, second = [json.loads(line) for line in proc.stdout.splitlines()]
    assert first["tokens"] == ["[CLS]", "Hugg", "##i", "##n", "##g", "[SEP]"]
    assert first["offsets"] == [[0, 0], [0, 4], [4, 5], [5, 6], [6, 7], [0, 0]]
    assert first["ids"] == [t.vocab.index(x) for x in first["tokens"]]
    assert second["tokens"] == ["[CLS]", "[UNK]", "[SEP]"]
    proc = run_cli("encode", "--tokenizer", path, "--trace", stdin="bum\nhello there\n")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 2 and lines[0]["trace"][0]["scan"][0]["tried"][0] == "bum"


@pytest.mark.parametrize("content,message", [
    (b"", "is empty"),
    (b"{not json", "not valid JSON"),
    (b'{"model": {"type": "Unigram", "vocab": []}}', "'Unigram' is not supported"),
    (b'{"model": {"type": "WordPiece", "vocab": {"a": 0}}, "pre_tokenizer": {"type": "Metaspace"}}', "'Metaspace'"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a UTF-8"),
])
def test_encode_cli_bad_tokenizer(tmp_path, content, message):
    p = tmp_path / "tok.json"
    p.write_bytes(content)
    proc = run_cli("encode", "--tokenizer", str(p), "hello")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# ----- decoding, as tokenizers decodes (issue 11) ----------------------------------------------

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


def test_an_unknown_word_names_the_character_counted_from_one():
    model = WordPieceModel({"[UNK]": 0, "hug": 1, "##g": 2})
    result = model.tokenize("hugger", trace=True)
    assert result.unknown and "from character 5 ('e') on" in result.reason
