"""Tokenizer files written by Hugging Face `tokenizers` itself: each encodes here exactly as in tokenizers, or
is refused with a message that names what is not supported (never loaded and then encoded otherwise).

Bases: WordPiece and BPE models trained by tokenizers' own trainers under several normalizers and
pre-tokenizers; features: each a change of the file (fuse_unk, ignore_merges, added tokens, truncation,
padding, post-processors, decoders, ...). Every base × feature file that tokenizers itself loads is loaded
here; the texts (every script, capitals, digits, punctuation, runs of spaces, special tokens typed in the
text) must give the same tokens, ids, offsets and decoded text for one sequence and for a pair.

    python -m pytest tests/test_tokenizer_files.py -s     # prints the counts: files, texts, exact, refused
"""

from __future__ import annotations

import copy
import re
import json
from collections import Counter
from collections.abc import Callable

import pytest

from wordpiece_core.errors import WordPieceError
from wordpiece_core.loading import tokenizer_from_json
from wordpiece_core.sampling import sample_lines

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
TEXTS = [
    "Hello, World! The quick brown fox jumps over the lazy dog.",
    "Café naïve résumé Ångström Œuvre ﬁne ½ ²",
    "Καλημέρα κόσμε · Привет, мир! · مرحبا بالعالم · שלום",
    "東京は晴れ 北京 서울 カタカナ ひらがな",
    "emoji 🙂👍🏽 and   three   spaces\tand a tab",
    "numbers 12345 3.14 2nd 1,000,000 ٣٤",
    "[CLS] typed specials [SEP] and [MASK] inside",
    "<|im_start|>user hi<|im_end|> unknown: ☃ ⚙ ǅ",
    "  leading and trailing spaces  ",
    "don't can't it's we're I'm y'all",
    "a",
    "zzzz qqqq xxxx",
]
PAIR = "A second sentence, shorter."


def _random_texts(n: int, seed: int = 7) -> list[str]:
    """Texts of random characters from every script whose Unicode data is the same in Python's tables and in
    tokenizers' (assigned in Unicode 3.2, same category and decomposition today: see test_hf_differential.py),
    with spaces between runs."""
    import random
    import sys
    import unicodedata

    old = unicodedata.ucd_3_2_0
    stable = [chr(cp) for cp in range(sys.maxunicode + 1)
              if unicodedata.category(chr(cp)) not in ("Cs", "Cn", "Co", "Cc", "Cf")
              and old.category(chr(cp)) == unicodedata.category(chr(cp))
              and old.decomposition(chr(cp)) == unicodedata.decomposition(chr(cp))]
    rng = random.Random(seed)
    return [" ".join("".join(rng.choice(stable) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(2, 8)))
            for _ in range(n)]


TEXTS += _random_texts(8)

NORMALIZERS: dict[str, Callable[[], object] | None] = {
    "none": None,
    "Lowercase": normalizers.Lowercase,
    "BertNormalizer": lambda: normalizers.BertNormalizer(lowercase=True),
    "NFD+Lowercase+StripAccents": lambda: normalizers.Sequence(
        [normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]),
    "NFC": normalizers.NFC,
    "NFKC": normalizers.NFKC,
}
PRE_TOKENIZERS: dict[str, Callable[[], object]] = {
    "Whitespace": pre_tokenizers.Whitespace,
    "BertPreTokenizer": pre_tokenizers.BertPreTokenizer,
    "none": lambda: None,
    "WhitespaceSplit": pre_tokenizers.WhitespaceSplit,
    "ByteLevel": lambda: pre_tokenizers.ByteLevel(add_prefix_space=False),
    "Whitespace+Digits": lambda: pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                          pre_tokenizers.Digits(individual_digits=True)]),
    "BertPreTokenizer+Punctuation(contiguous)+Digits": lambda: pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("contiguous"),
        pre_tokenizers.Digits(individual_digits=False)]),
    "Metaspace": pre_tokenizers.Metaspace,
    "Metaspace(first)": lambda: pre_tokenizers.Metaspace(prepend_scheme="first"),  # no ▁ after a special token
}


def _base(model: str, normalizer: str, pre: str) -> dict:
    corpus = sample_lines("en", 3000, top_n=3000, seed=11) + TEXTS[:6]
    if model == "WordPiece":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=SPECIALS)
    elif model == "CharBPE":  # BPE with an end-of-word suffix, as CharBPETokenizer writes it
        tok = Tokenizer(models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"))
        trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS, end_of_word_suffix="</w>")
        tok.decoder = decoders.BPEDecoder(suffix="</w>")
    else:
        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
        trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS)
    make = NORMALIZERS[normalizer]
    if make is not None:
        tok.normalizer = make()
    tok.pre_tokenizer = PRE_TOKENIZERS[pre]()
    tok.train_from_iterator(corpus, trainer)
    return json.loads(tok.to_str())


def _set(path: list[str], value: object) -> Callable[[dict], dict | None]:
    def change(doc: dict) -> dict | None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return doc
    return change


def _only(kind: str, change: Callable[[dict], dict | None]) -> Callable[[dict], dict | None]:
    return lambda doc: change(doc) if doc["model"]["type"] == kind and not doc["model"].get("end_of_word_suffix") \
        else None


def _template(doc: dict) -> dict:
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1000], "tokens": ["[CLS]"]},
                           "[SEP]": {"id": "[SEP]", "ids": [1001], "tokens": ["[SEP]"]}}}
    return doc


def _added(special: bool) -> Callable[[dict], dict]:
    def change(doc: dict) -> dict:
        top = max(doc["model"]["vocab"].values()) + 1
        doc["added_tokens"] += [{"id": top, "content": "<|im_start|>", "single_word": False, "lstrip": False,
                                 "rstrip": False, "normalized": False, "special": special},
                                {"id": top + 1, "content": "<|im_end|>", "single_word": False, "lstrip": False,
                                 "rstrip": False, "normalized": False, "special": special}]
        return doc
    return change


def _byte_fallback(doc: dict) -> dict:
    """Llama's way: the 256 byte tokens in the vocabulary, byte_fallback on, and its chain of decoders."""
    vocab = doc["model"]["vocab"]
    top = max(vocab.values()) + 1
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", top + b)
    doc["model"]["byte_fallback"] = True
    doc["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
        {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    return doc


FEATURES: dict[str, Callable[[dict], dict | None]] = {
    "as trained": lambda doc: doc,
    "BPE fuse_unk": _only("BPE", _set(["model", "fuse_unk"], True)),
    "BPE ignore_merges": _only("BPE", _set(["model", "ignore_merges"], True)),
    "added special tokens outside the vocabulary": _added(True),
    "added tokens outside the vocabulary": _added(False),
    "truncation": _set(["truncation"], {"direction": "Right", "max_length": 8, "strategy": "LongestFirst",
                                         "stride": 0}),
    "padding": _set(["padding"], {"strategy": {"Fixed": 40}, "direction": "Right", "pad_to_multiple_of": None,
                                  "pad_id": 3, "pad_type_id": 0, "pad_token": "[PAD]"}),
    "ByteLevel post-processor, trim_offsets false": _set(["post_processor"], {
        "type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}),
    "ByteLevel post-processor, trim_offsets true": _set(["post_processor"], {
        "type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}),
    "no decoder": _set(["decoder"], None),
    "WordPiece decoder, cleanup false": _set(["decoder"], {"type": "WordPiece", "prefix": "##", "cleanup": False}),
    "WordPiece decoder, cleanup true": _set(["decoder"], {"type": "WordPiece", "prefix": "##", "cleanup": True}),
    "WordPiece decoder, another prefix": _set(["decoder"], {"type": "WordPiece", "prefix": "@@", "cleanup": True}),
    "Metaspace decoder": _set(["decoder"], {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                                            "split": True}),
    "BPEDecoder": _set(["decoder"], {"type": "BPEDecoder", "suffix": "</w>"}),
    "TemplateProcessing with its own ids": _template,
    "BertProcessing": _set(["post_processor"], {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}),
    "RobertaProcessing": _set(["post_processor"], {"type": "RobertaProcessing", "sep": ["[SEP]", 2],
                                                   "cls": ["[CLS]", 1], "trim_offsets": True,
                                                   "add_prefix_space": False}),
    "BPE end_of_word_suffix": _only("BPE", _set(["model", "end_of_word_suffix"], "</w>")),
    "BPE byte_fallback": _only("BPE", _set(["model", "byte_fallback"], True)),
    "BPE byte_fallback with byte tokens and Llama's decoders": _only("BPE", _byte_fallback),
}
# What a refusal must name, for the features that may be refused (the base's normalizer or pre-tokenizer
# may be the reason too: their names are accepted as well).
NAMES = {
    "BPE fuse_unk": "fuse_unk", "BPE ignore_merges": "ignore_merges", "truncation": "truncation",
    "padding": "padding", "added special tokens outside the vocabulary": "added_tokens",
    "added tokens outside the vocabulary": "added_tokens", "Metaspace decoder": "Metaspace",
    "BPEDecoder": "BPEDecoder", "RobertaProcessing": "RobertaProcessing", "BPE end_of_word_suffix": "end_of_word_suffix",
    "BPE byte_fallback": "byte_fallback", "TemplateProcessing with its own ids": "TemplateProcessing",
    "WordPiece decoder, another prefix": "WordPiece decoder",
}
BASE_NAMES = ("NFD", "NFC", "NFKC", "StripAccents", "Sequence", "Digits", "Metaspace")


def _encodings(tok, text: str, pair: str | None):
    return tok.encode(text, pair) if pair is not None else tok.encode(text)


def _compare(ours, hf, text: str, pair: str | None) -> str | None:
    """None when ours encodes and decodes `text` (and `pair`) as tokenizers does, else what differs."""
    theirs = _encodings(hf, text, pair)
    mine = ours.encode(text, pair)
    for what, a, b in (("tokens", mine.tokens, theirs.tokens), ("ids", mine.ids, theirs.ids),
                       ("offsets", [tuple(o) for o in mine.offsets], [tuple(o) for o in theirs.offsets])):
        if list(a) != list(b):
            return f"{what}: {list(a)[:12]} != {list(b)[:12]}"
    ids = [i for i in theirs.ids if i is not None]
    if ours.decode(ids) != hf.decode(ids):
        return f"decoded: {ours.decode(ids)!r} != {hf.decode(ids)!r}"
    return None


@pytest.fixture(scope="module")
def bases() -> dict[tuple[str, str, str], dict]:
    out = {}
    for model in ("WordPiece", "BPE", "CharBPE"):
        for normalizer in NORMALIZERS:
            for pre in PRE_TOKENIZERS:
                if (pre == "ByteLevel" and model == "WordPiece") or (model == "CharBPE" and pre not in (
                        "Whitespace", "BertPreTokenizer")):
                    continue
                out[model, normalizer, pre] = _base(model, normalizer, pre)
    return out


@pytest.mark.slow
def test_every_tokenizers_file_encodes_exactly_or_is_refused_by_name(bases):
    tally: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    wrong: list[str] = []
    for (model, normalizer, pre), base in bases.items():
        for feature, change in FEATURES.items():
            doc = change(copy.deepcopy(base))
            if doc is None:
                continue
            try:
                hf = Tokenizer.from_str(json.dumps(doc))
            except Exception:  # noqa: BLE001 (tokenizers itself refuses this combination)
                continue
            where = f"{model} / {normalizer} / {pre} / {feature}"
            tally["files"] += 1
            try:
                ours = tokenizer_from_json(copy.deepcopy(doc), "t.json")
            except WordPieceError as exc:
                message = str(exc)
                named = NAMES.get(feature)
                if not ((named and named in message) or any(n in message for n in BASE_NAMES)):
                    wrong.append(f"{where}: refused without naming it: {message}")
                tally["refused"] += 1
                reasons[message.split(": ", 1)[1].split(" is not supported")[0].split(" (")[0][:70]] += 1
                continue
            differences = []
            for text in TEXTS:
                for pair in (None, PAIR):
                    tally["texts"] += 1
                    if (diff := _compare(ours, hf, text, pair)) is not None:
                        differences.append(f"{text[:30]!r}{' + pair' if pair else ''}: {diff}")
            if differences:
                wrong.append(f"{where}: loaded, but {len(differences)} encodings differ, first {differences[0]}")
                tally["loaded but different"] += 1
            else:
                tally["exact"] += 1
    print(f"\ntokenizer files: {tally['files']} files, {tally['texts']} encodings compared; {tally['exact']} exact, "
          f"{tally['refused']} refused by name, {tally['loaded but different']} loaded but different; refused for: "
          + "; ".join(f"{reason} ({n})" for reason, n in reasons.most_common()))
    assert not wrong, f"{len(wrong)} files:\n" + "\n".join(wrong[:40])


def test_composing_normalizers_equal_tokenizers_and_align_a_composed_character_to_its_first():
    """NFC and NFKC (whole-text composition) against tokenizers' normalize_str on texts rich in combining marks,
    and the alignment tokenizers gives a character composed of several: its first (é of e + ◌́ is (0, 1))."""
    import random

    from wordpiece_core.normalizers import normalize, normalize_with_sources

    rng = random.Random(3)
    pool = list("aeiouAEOUnNcCsSzZkK ") + ["\u0301", "\u0300", "\u0308", "\u0323", "\u0327", "\u030c", "\u0345",
                                             "\u1100", "\u1161", "\u11a8", "\uac00", "ﬁ", "²", "Å", "Ω", "ǅ"]
    for _ in range(2000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 10)))
        assert normalize(text, "nfc") == normalizers.NFC().normalize_str(text), repr(text)
        assert normalize(text, "nfkc") == normalizers.NFKC().normalize_str(text), repr(text)
    assert normalize_with_sources("x e\u0301 x", "nfc") == ("x é x", [0, 1, 2, 4, 5])


@pytest.mark.parametrize("change,named", [
    (_set(["pre_tokenizer"], {"type": "UnicodeScripts"}), "'UnicodeScripts'"),
    (_set(["pre_tokenizer"], {"type": "Metaspace", "replacement": "_", "prepend_scheme": "first", "split": True}),
     "Metaspace"),
    (_set(["decoder"], {"type": "Replace", "pattern": {"Regex": " +"}, "content": " "}), "Replace with a regex"),
    (_set(["decoder"], {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}), "'CTC'"),
    (_set(["normalizer"], {"type": "Precompiled", "precompiled_charsmap": ""}),
     "a Precompiled normalizer's map is shorter than its 4-byte header"),
    (_set(["truncation"], {"direction": "Right", "max_length": 10**9, "strategy": "LongestFirst", "stride": 0}),
     "truncation"),
])
def test_what_is_not_supported_is_refused_by_name(change, named):
    base = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    base.pre_tokenizer = pre_tokenizers.Whitespace()
    doc = change(json.loads(base.to_str()))
    with pytest.raises(WordPieceError, match=re.escape(named)):
        tokenizer_from_json(doc, "t.json")


def _wordpiece_doc(**vocab_extra: int) -> dict:
    base = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##a": 2, **vocab_extra}, unk_token="[UNK]"))
    base.pre_tokenizer = pre_tokenizers.Whitespace()
    return json.loads(base.to_str())


@pytest.mark.parametrize("change,named", [
    (lambda doc: doc["model"]["vocab"].update({"b" * 1025: 3}),
     "model.vocab holds a token of 1,025 characters (it starts 'bbbbbbbbbbbbbbbbbbbb'); this app reads tokens of up "
     "to 1,024 characters"),
    (lambda doc: doc.update(added_tokens=[{"id": 10 + i, "content": f"<t{i}>", "single_word": False, "lstrip": False,
                                            "rstrip": False, "normalized": False, "special": True}
                                           for i in range(20_001)]),
     "added_tokens holds 20,001 tokens; this app reads at most 20,000"),
    (lambda doc: doc.update(normalizer={"type": "Sequence", "normalizers": [{"type": "Lowercase"}] * 100}),
     "normalizer holds more than 100 normalizers (Sequences included); this app reads at most 100"),
    (lambda doc: doc.update(added_tokens=[{"id": 9, "content": "x" * 1025, "single_word": False, "lstrip": False,
                                            "rstrip": False, "normalized": False, "special": True}]),
     "added_tokens[0].content holds a token of 1,025 characters"),
])
def test_a_file_past_a_size_limit_is_refused_naming_the_limit(change, named):
    """One limit per kind of thing a file holds, whatever door it comes through (their work is bounded by them)."""
    doc = _wordpiece_doc()
    change(doc)
    with pytest.raises(WordPieceError, match=re.escape(named)):
        tokenizer_from_json(doc, "t.json")


def test_files_at_the_size_limits_still_load():
    doc = _wordpiece_doc(**{"b" * 1024: 3})  # (Claude's and OpenAI's vocabularies hold 1,024 spaces)
    doc["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "Lowercase"}] * 99}
    tokenizer_from_json(doc, "t.json")


def _every_length_doc(longest: int, filler: int = 0) -> dict:
    """A WordPiece file whose tokens have every length up to `longest` and never match a run of a's (the worst of
    the length-by-length scan), with `filler` more short tokens."""
    extra = {"##" + "b" * k: 3 + k for k in range(1, longest - 1)}
    extra.update({f"##{i:07d}": 10_000 + i for i in range(filler)})
    doc = _wordpiece_doc(**extra)
    doc["model"]["max_input_chars_per_word"] = 100_000
    return doc


def test_a_vocabulary_of_every_token_length_is_encoded_by_linmaxmatch_with_the_same_tokens_as_tokenizers():
    """Tokens of 999 lengths would make the length-by-length scan try 999 pieces a character (20,000 typed
    letters took 11 s); such a vocabulary is encoded by LinMaxMatch (wordpiece_match.py): the same tokens as
    tokenizers', and the store counts its tries."""
    doc = _every_length_doc(1000)
    tok = tokenizer_from_json(doc, "t.json")
    assert tok.model.linear and tok.model.index_bytes > 0
    reference = Tokenizer.from_str(json.dumps(doc))
    for text in ["a" * 3000, "abbb", "a" + "b" * 998 + "a", "b" * 1000]:
        assert list(tok.encode(text).tokens) == reference.encode(text).tokens, text[:20]
    assert not tokenizer_from_json(_wordpiece_doc(**{"##bb": 3}), "t.json").model.linear  # BERT-like: scanned


def test_a_vocabulary_of_every_token_length_past_its_size_limit_is_refused_naming_it():
    doc = _every_length_doc(1000, filler=120_000)
    chars = sum(map(len, doc["model"]["vocab"]))
    with pytest.raises(WordPieceError, match=re.escape(f"t.json: the vocabulary's tokens have 999 different lengths "
                                                       f"and {chars:,} characters in all; a vocabulary with tokens of "
                                                       "that many lengths is read when it holds at most 1,000,000")):
        tokenizer_from_json(doc, "t.json")


def test_a_unigram_file_of_runs_of_every_length_refuses_a_long_run_in_one_line_and_encodes_a_short_one():
    """Pieces a, aa, … of 999 lengths: a run of 1,000 a's holds 500,000 of them (tokenizers walks them all; 20,000
    a's took 159 s here). The trie walk stops at 100 steps a character on average and says so; a short run is
    encoded as tokenizers encodes it; the store counts the trie."""
    pieces = [("<unk>", 0.0)] + [("a" * k, -1.0 * k) for k in range(1, 1000)]
    doc = json.loads(Tokenizer(models.Unigram(pieces, 0)).to_str())
    tok = tokenizer_from_json(doc, "t.json")
    assert tok.model.index_bytes > 0
    with pytest.raises(WordPieceError, match=re.escape("(5,000 characters) holds more pieces of this vocabulary than "
                                                       "this app encodes: at most 100 a character on average")):
        tok.encode("a" * 5000)
    short = "a" * 150
    assert list(tok.encode(short).tokens) == Tokenizer.from_str(json.dumps(doc)).encode(short).tokens


def test_a_unigram_piece_past_the_token_limit_is_refused():
    doc = json.loads(Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0), ("c" * 1025, -2.0)], 0)).to_str())
    with pytest.raises(WordPieceError, match=re.escape("model.vocab[2] holds a token of 1,025 characters")):
        tokenizer_from_json(doc, "t.json")


def test_a_gpt2_vocab_json_holding_the_token_model_loads_by_its_shape_with_gpt2s_pipeline(tmp_path):
    """GPT-2's vocab.json holds the token "model" (id 19,849): it was taken for a tokenizer.json and refused. Read by
    its shape (every value a whole number), with GPT-2's pipeline: ByteLevel and its regex, no prefix space,
    <|endoftext|> a special token; the same tokens, ids, offsets and decoded text as tokenizers' own reading."""
    from wordpiece_core.loading import load_tokenizer

    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator(sample_lines("en", 2000, top_n=2000, seed=3) + ["model"] * 500, trainer)
    vocab = hf.get_vocab()
    assert "model" in vocab  # the token that made the file look like a tokenizer.json
    hf.model.save(str(tmp_path))  # vocab.json and merges.txt, as GPT-2 ships them
    ours = load_tokenizer(str(tmp_path / "vocab.json"))
    hf = Tokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens(["<|endoftext|>"])
    hf.post_processor = None
    for text in TEXTS + ["A model<|endoftext|>The next one", " leading space", "émoji 👍🏽 ok"]:
        assert _compare(ours, hf, text, None) is None, text


# The regexes real tokenizer files split with before their ByteLevel (use_regex false), as their files hold them.
CL100K = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
          r"|\s+(?!\S)|\s+")  # GPT-4, Llama 3
O200K = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")  # GPT-4o, gpt-oss
QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
         r"|\s+(?!\S)|\s+")  # Qwen2, Qwen3
DEEPSEEK = [r"\p{N}{1,3}", r"[一-龥぀-ゟ゠-ヿ]+",
            r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*"
            r"|\s*[\r\n]+|\s+(?!\S)|\s+"]  # DeepSeek-V3: three Splits, then ByteLevel


def _every_code_point_texts(n: int, seed: int = 5) -> list[str]:
    """Texts of any code point but the surrogates (letters of Unicode 16, unassigned ones, marks, controls)."""
    import random

    rng = random.Random(seed)
    pick = lambda: chr(rng.choice([rng.randrange(0x20, 0x3000), rng.randrange(0xE000, 0x110000), rng.randrange(0, 0x20)]))
    return ["".join(pick() if rng.random() < 0.7 else rng.choice(" \n\t'sS1!") for _ in range(rng.randint(5, 40)))
            for _ in range(n)]


def _differing_texts() -> list[str]:
    """Every code point where the installed regex's Unicode tables differ from tokenizers' (the classes a Split may
    name), each after a letter, a digit, a mark and a space: where a pattern must use the tables' classes."""
    from wordpiece_core.pre_tokenizers import _split_patterns

    points = sorted(_split_patterns(O200K).exceptions)
    assert len(points) > 100  # (else these texts test nothing)
    return [" ".join(f"a{ch}1{ch}\u0301{ch} {ch}A" for ch in points[i:i + 40]) for i in range(0, len(points), 40)]


def _split_tokenizer(splits: list[tuple[str, str, bool]], byte_level: bool | None) -> Tokenizer:
    from tokenizers import Regex

    stages = [pre_tokenizers.Split(Regex(p), behavior, invert=invert) for p, behavior, invert in splits]
    if byte_level is not None:
        stages.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=byte_level))
    tok = Tokenizer(models.BPE(unk_token=None if byte_level is not None else "[UNK]"))
    tok.pre_tokenizer = stages[0] if len(stages) == 1 else pre_tokenizers.Sequence(stages)
    if byte_level is not None:
        tok.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet() if byte_level is not None else []
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["[UNK]", "<|endoftext|>"], initial_alphabet=alphabet)
    tok.train_from_iterator(sample_lines("en", 2000, top_n=2000, seed=5) + TEXTS, trainer)
    return tok


@pytest.mark.parametrize("splits,byte_level", [
    ([(CL100K, "isolated", False)], False),
    ([(O200K, "isolated", False)], False),
    ([(QWEN2, "isolated", False)], False),
    ([(p, "isolated", False) for p in DEEPSEEK], False),
    ([(CL100K, "isolated", False)], True),  # then GPT-2's regex too
    ([(r"\s+", "removed", False)], None),
    ([(r"\s+", "merged_with_previous", False)], None),
    ([(r"\s+", "merged_with_next", False)], None),
    ([(r"\p{P}", "contiguous", False)], None),
    ([(r"\p{L}+", "isolated", True)], None),
    ([(r"\p{Lu}|\d", "merged_with_next", True)], None),
    ([], False),  # ByteLevel without its regex, alone: the whole text one word
])
def test_split_pre_tokenizers_encode_exactly_as_tokenizers(splits, byte_level):
    """Llama 3, GPT-4o, Qwen and DeepSeek files split their text with a regex (Split) before ByteLevel: their
    pipelines, and every Split behaviour with and without invert, give tokenizers' tokens, ids, offsets and
    decoded text on the written texts and on texts of any code point (Unicode 16 letters, unassigned ones)."""
    hf = _split_tokenizer(splits, byte_level) if splits else None
    if hf is None:
        hf = Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
        hf.decoder = decoders.ByteLevel()
        hf.train_from_iterator(sample_lines("en", 500, top_n=500, seed=5),
                               trainers.BpeTrainer(vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    ours = tokenizer_from_json(json.loads(hf.to_str()), "tokenizer.json")
    bad = [(text, why) for text in TEXTS + _every_code_point_texts(60) + _differing_texts()
           + ["can'T WON'T ſ K It'S", "a\r\n\r\n  b /x/"]
           if (why := _compare(ours, hf, text, None)) is not None]
    assert not bad, bad[:3]


def test_a_split_pattern_that_names_a_script_is_refused_by_name():
    doc = json.loads(_split_tokenizer([(CL100K, "isolated", False)], False).to_str())
    doc["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": r"\p{Han}+|\s+"}
    with pytest.raises(WordPieceError, match=r"tokenizer.json: the Split pattern's \\p\{Han\} is not supported here"):
        tokenizer_from_json(doc, "tokenizer.json")


@pytest.mark.parametrize("normalizer", [
    lambda: normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),  # Llama 2, Mistral
    lambda: normalizers.Replace(" ", "▁"),  # Gemma
    lambda: normalizers.Sequence([normalizers.Strip(left=True, right=True), normalizers.Lowercase()]),
    lambda: normalizers.Strip(left=False, right=True),
    lambda: normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC()]),  # SentencePiece's nmt_nfkc without its map
    lambda: normalizers.Replace(tokenizers.Regex(r"\s+"), " "),
    lambda: normalizers.Replace(tokenizers.Regex(r"(\p{Lu})"), "<$1>"),  # content longer than the match
    lambda: normalizers.Replace("ab", ""),  # content shorter: removed
    lambda: normalizers.Sequence([normalizers.Sequence([normalizers.NFD()]), normalizers.Sequence([]),
                                  normalizers.StripAccents()]),  # nested and empty Sequences
    lambda: normalizers.Sequence([]),  # DeepSeek-V3's
])
def test_whole_text_normalizers_encode_exactly_as_tokenizers(normalizer):
    """Prepend, Replace (a string or a regex), Strip, Nmt and nested or empty Sequences: tokens, ids, offsets
    (the original text's) and decoded text as tokenizers gives them."""
    tok = Tokenizer(models.BPE(unk_token="[UNK]", byte_fallback=False))
    tok.normalizer = normalizer()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(sample_lines("en", 1000, top_n=1000, seed=9) + TEXTS,
                            trainers.BpeTrainer(vocab_size=500, special_tokens=SPECIALS))
    ours = tokenizer_from_json(json.loads(tok.to_str()), "tokenizer.json")
    texts = TEXTS + _every_code_point_texts(40) + ["ab abab cab", "  x  ", "\x01\x08a\u200bb\ufeffc\u2581d", ""]
    bad = [(text, why) for text in texts for pair in (None, " A second  one ")
           if (why := _compare(ours, tok, text, pair)) is not None]
    assert not bad, bad[:3]


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
def test_metaspace_without_split_encodes_exactly_as_tokenizers(scheme):
    """Mistral's Metaspace(split=false): every space a ▁, the text one word (it was refused, its message cut)."""
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=scheme, split=False)
    tok.decoder = decoders.Metaspace(prepend_scheme=scheme, split=False)
    tok.train_from_iterator(sample_lines("en", 800, top_n=800, seed=4) + TEXTS,
                            trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS))
    ours = tokenizer_from_json(json.loads(tok.to_str()), "tokenizer.json")
    bad = [(text, why) for text in TEXTS + _every_code_point_texts(20) + [" x", "", "a [SEP] b"]
           for pair in (None, "the second")
           if (why := _compare(ours, tok, text, pair)) is not None]
    assert not bad, bad[:3]


@pytest.mark.parametrize("form", ["NFD", "NFKD", "NFC", "NFKC"])
def test_stacked_marks_are_put_in_canonical_order_as_tokenizers_does(form):
    """ê + U+0323 (a Vietnamese keyboard's ệ): NFD gave e ##̂ ##̣ (each character decomposed alone); tokenizers
    orders the marks by combining class across characters: e ##̣ ##̂, with the offsets of the characters they
    came from."""
    import random

    marks = ["\u0301", "\u0300", "\u0308", "\u0323", "\u0327", "\u030c", "\u0345", "\u05b0", "\u0670", "\u1dc4"]
    letters = list("aeiouAEOn") + ["ê", "ệ", "Å", "ǅ", "ﬁ", "Ω", "\u1100", "\u1161", "\uac00", "ế"]
    rng = random.Random(form)
    texts = ["ê\u0323 ệ e\u0302\u0323 e\u0323\u0302"] + [
        " ".join("".join(rng.choice(letters) + "".join(rng.choice(marks) for _ in range(rng.randint(0, 3)))
                         for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))) for _ in range(300)]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = getattr(normalizers, form)()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=300, special_tokens=SPECIALS))
    ours = tokenizer_from_json(json.loads(tok.to_str()), "tokenizer.json")
    bad = [(text, why) for text in texts if (why := _compare(ours, tok, text, None)) is not None]
    assert not bad, bad[:3]


def test_added_tokens_with_lstrip_rstrip_and_single_word_match_as_tokenizers_does():
    """RoBERTa's, BART's and XLM-R's <mask> takes the space before it (lstrip): such files were refused."""
    from tokenizers import AddedToken

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(sample_lines("en", 800, top_n=800, seed=2),
                            trainers.BpeTrainer(vocab_size=400, special_tokens=["[UNK]"],
                                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False),
                            AddedToken("<R>", rstrip=True, special=True, normalized=False),
                            AddedToken("<both>", lstrip=True, rstrip=True, special=True, normalized=False)])
    tok.add_tokens([AddedToken("cat", single_word=True, normalized=False),
                    AddedToken("dog s", lstrip=True, rstrip=True, single_word=True, normalized=False)])
    ours = tokenizer_from_json(json.loads(tok.to_str()), "tokenizer.json")
    texts = ["The <mask> sat.", "Hello   <mask>", "<mask>  x", "a<R>   b <R>", "  <both>  <both>", "<mask><mask> <mask>",
             "cat catalog bobcat cat. (cat) cat!", "the dog s dog sled  dog s  ", "x\t<mask>\n<R>\ny", ""] + TEXTS[:6]
    bad = [(text, why) for text in texts for pair in (None, " <mask> cat")
           if (why := _compare(ours, tok, text, pair)) is not None]
    assert not bad, bad[:3]


@pytest.mark.parametrize("affix", [{"continuing_subword_prefix": "##"}, {"end_of_word_suffix": "</w>"}])
def test_byte_fallback_with_a_prefix_or_suffix_falls_back_on_the_piece_as_written(affix):
    """tokenizers spells an unknown ##é as the bytes of "##é" (and é</w> as those of "é</w>"); the tokens and ids
    are its own. (Its offsets for those bytes point past the character; ours cover the character.)"""
    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": 1 + b for b in range(256)}, "a": 300, "##b": 301, "##a": 302, "b": 303,
             "a</w>": 304, "b</w>": 305}
    hf = Tokenizer(models.BPE(vocab, [], unk_token="<unk>", byte_fallback=True, **affix))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    ours = tokenizer_from_json(json.loads(hf.to_str()), "tokenizer.json")
    for text in ["ab é aé éa", "ba", "ñ", "aéb", "b"]:
        assert ours.encode(text).tokens == hf.encode(text).tokens and ours.encode(text).ids == hf.encode(text).ids


def test_a_wordpiece_file_with_an_empty_prefix_keeps_it_empty():
    hf = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "b": 2, "ab": 3, "c": 4}, unk_token="[UNK]",
                                    continuing_subword_prefix=""))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.decoder = decoders.WordPiece(prefix="")
    ours = tokenizer_from_json(json.loads(hf.to_str()), "tokenizer.json")  # (it was read as ##)
    assert all(_compare(ours, hf, text, None) is None for text in ["ab abc cab", "b a", "zz"])


def _tok_with(pre=None, normalizer=None) -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    if pre is not None:
        tok.pre_tokenizer = pre
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.train_from_iterator(sample_lines("en", 300, top_n=300, seed=1) + ["ab cd baabxab a_b cab a   b"],
                            trainers.BpeTrainer(vocab_size=200, special_tokens=["[UNK]"]))
    return tok


@pytest.mark.parametrize("make", [
    lambda: _tok_with(pre=pre_tokenizers.Split(tokenizers.Regex(r"\b"), "isolated")),  # empty matches split
    lambda: _tok_with(pre=pre_tokenizers.Split(tokenizers.Regex(r"a*"), "merged_with_next")),
    lambda: _tok_with(pre=pre_tokenizers.Split(tokenizers.Regex(r"$"), "isolated", invert=True)),
    lambda: _tok_with(normalizer=normalizers.Replace(tokenizers.Regex(r"$"), "<")),  # content at an empty match
    lambda: _tok_with(normalizer=normalizers.Replace(tokenizers.Regex(r" {2,}"), " ")),  # offsets: the match's last
    lambda: _tok_with(normalizer=normalizers.Replace("ab", "X")),
    lambda: _tok_with(pre=pre_tokenizers.Split(tokenizers.Regex(r"[]a]+|(?m).+"), "isolated")),  # []…] and (?m)
    lambda: _tok_with(pre=pre_tokenizers.Split(tokenizers.Regex(r"\h+"), "isolated")),  # onig's hex digit
])
def test_regex_corners_split_and_replace_as_tokenizers_does(make):
    """The review's cases: empty matches split (and take a Replace's content), a Replace's content aligns to the
    match's last character, a set opening with ], onig's (?m) (the dot matches a line end) and \\h (hex)."""
    hf = make()
    ours = tokenizer_from_json(json.loads(hf.to_str()), "tokenizer.json")
    texts = ["ab cd", "baabxab", "a   b", "cab", "ab\ncd", "x]a]b\nc", "deadBEEF 12 zz", "", " "]
    bad = [(text, why) for text in texts if (why := _compare(ours, hf, text, None)) is not None]
    assert not bad, bad[:3]


def test_single_word_tokens_treat_underscore_as_a_word_character_as_tokenizers_does():
    from tokenizers import AddedToken

    hf = _tok_with(pre=pre_tokenizers.Whitespace())
    hf.add_tokens([AddedToken("<m>", single_word=True, normalized=False)])
    ours = tokenizer_from_json(json.loads(hf.to_str()), "tokenizer.json")
    for text in ["a_<m>", "<m>_b", "½<m>", "a <m> b", "x<m>"]:
        assert _compare(ours, hf, text, None) is None, text


@pytest.mark.parametrize("pattern,named", [
    (r"(?:(?:a{300}){300}){300}", "counted repeats"),  # gigabytes to compile
    (r"(?R)?a", "'(?R'"),
    (r"\p{N}{1,3}+", "{n,m}+"),
    ("(" * 999 + ")" * 999, "cannot be read"),
])
def test_a_pattern_that_would_not_be_bounded_or_read_alike_is_refused_by_name(pattern, named):
    doc = json.loads(_tok_with(pre=pre_tokenizers.Whitespace()).to_str())
    doc["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    with pytest.raises(WordPieceError, match=re.escape(named)):
        tokenizer_from_json(doc, "t.json")


def test_a_pattern_that_backtracks_for_ever_is_stopped_and_named(monkeypatch):
    from wordpiece_core import pre_tokenizers as P

    monkeypatch.setattr(P, "REGEX_SECONDS", 0.2)
    doc = json.loads(_tok_with(pre=pre_tokenizers.Whitespace()).to_str())
    doc["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(a|a)+$"}, "behavior": "Isolated", "invert": False}
    ours = tokenizer_from_json(doc, "t.json")
    with pytest.raises(WordPieceError, match=r"took over 0.2 s on the text"):
        ours.encode("a" * 40 + "b")


def test_a_replace_that_multiplies_the_text_is_stopped_and_named():
    doc = json.loads(_tok_with(pre=pre_tokenizers.Whitespace()).to_str())
    doc["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"Regex": "."}, "content": "b" * 1000}] * 2}
    ours = tokenizer_from_json(doc, "t.json")
    with pytest.raises(WordPieceError, match=r"more than 4 times as long"):
        ours.encode("0123456789")


def test_an_uploaded_vocab_json_never_reads_the_servers_files(tmp_path, monkeypatch):
    """GPT-2's vocab.json holds the key "model": an upload of it read merges.txt from the server's folder."""
    from wordpiece_ui.encodings import load_uploaded_tokenizer

    (tmp_path / "merges.txt").write_text("secret line one\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WordPieceError) as caught:
        load_uploaded_tokenizer("vocab.json", b'{"model": 1, "a": 0}')
    assert "secret" not in str(caught.value) and "is a vocab.json" in str(caught.value)


def test_a_vocab_jsons_bracketed_tokens_are_not_special(tmp_path):
    from wordpiece_core.loading import load_tokenizer

    vocab = {"<|endoftext|>": 0, "[]": 1, "x": 2, "Ġ": 3, "Ġx": 4, "[": 5, "]": 6}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\nĠ x\n[ ]\n")
    tok = load_tokenizer(str(tmp_path / "vocab.json"))
    assert tok.special_tokens == ("<|endoftext|>",)
    assert tok.decode(tok.encode("x []", add_special_tokens=False).ids) == "x []"


@pytest.mark.parametrize("change,named", [
    (lambda doc: doc.update(pre_tokenizer={"type": "UnicodeScripts"}), "'UnicodeScripts'"),
    (lambda doc: doc.update(model=dict(doc["model"], type="WordLevel")), "the model 'WordLevel'"),
    (lambda doc: doc.update(decoder={"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|",
                                     "cleanup": True}), "'CTC'"),
])
def test_a_big_files_unsupported_pipeline_is_refused_from_its_head_before_the_file_is_parsed(monkeypatch, change,
                                                                                              named):
    """A tokenizer.json past 2 MB (Gemma 3's is 33 MB) has its pipeline and model type read from its head: what is
    not supported is refused without parsing the whole file (the full parse is made to fail here)."""
    from wordpiece_core import loading

    doc = _wordpiece_doc(**{f"tok{i}": 10 + i for i in range(200_000)})
    change(doc)
    data = json.dumps(doc).encode()
    assert len(data) > loading.HEAD_FROM
    monkeypatch.setattr(loading, "parse_json", lambda *a: pytest.fail("the whole file was parsed"))
    with pytest.raises(WordPieceError, match=re.escape(named)):
        loading.tokenizer_from_bytes(data, "big.json")


def test_a_big_supported_file_is_still_read_whole():
    from wordpiece_core import loading

    doc = _wordpiece_doc(**{f"tok{i}": 10 + i for i in range(200_000)})
    tok = loading.tokenizer_from_bytes(json.dumps(doc).encode(), "big.json")
    assert tok.encode("tok7 a").ids[0] == 17


@pytest.mark.slow
@pytest.mark.parametrize("pattern,behavior", [(r"\w", "removed"), (r"[\w]", "removed"), (r"\W+", "isolated"),
                                              (r"[^\w]", "removed"), (r"[\W]", "removed"), (r"\b", "isolated")])
def test_onigs_word_class_and_boundary_split_every_code_point_as_tokenizers_does(pattern, behavior):
    """onig's \\w is not Rust's: no joiners (U+200C, U+200D), and out of a set ² ³ ¹ ¼ ½ ¾ too; \\b follows it.
    Every code point, in one text, split as tokenizers splits it (the pieces' offsets)."""
    from wordpiece_core.pre_tokenizers import pre_tokenize, split_stage

    text = "".join(chr(c) for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    theirs = pre_tokenizers.Split(tokenizers.Regex(pattern), behavior).pre_tokenize_str(text)
    ours = pre_tokenize(text, split_stage(pattern, behavior, False))
    assert [span for _, span in ours] == [span for _, span in theirs]


@pytest.mark.parametrize("text", ["a\u200cb c\u200db", "x² ½ Ⅻ y", "foo_bar baz‿qux", "x²y [²]"])
def test_onigs_word_class_leaves_out_the_joiners_and_keeps_latin1_fractions_out_of_a_set(text):
    from wordpiece_core.pre_tokenizers import pre_tokenize, split_stage

    for pattern in (r"\w+", r"[\w-]+", r"\b"):
        theirs = pre_tokenizers.Split(tokenizers.Regex(pattern), "isolated").pre_tokenize_str(text)
        assert pre_tokenize(text, split_stage(pattern, "isolated", False)) == theirs


def test_a_big_files_head_nested_past_pythons_stack_is_left_to_the_full_read_which_names_it():
    from wordpiece_core import loading

    doc = _wordpiece_doc(**{f"tok{i}": 10 + i for i in range(200_000)})
    text = json.dumps(doc)
    deep = text.replace('"normalizer": null', '"normalizer": ' + "[" * 100_000 + "]" * 100_000, 1)
    assert deep != text
    with pytest.raises(WordPieceError):
        loading.tokenizer_from_bytes(deep.encode(), "deep.json")


@pytest.mark.parametrize("pattern", [r"\pL+", r"\PL+", r"\Z", r"\n\Z", r"(?i)\P{Lu}+", r"(?i)\p{Lu}+",
                                     r"(?i:\p{Lu})+", r"(?i)[a-z\p{Lu}]+"])
def test_onigs_own_readings_of_properties_and_end_anchors_split_as_tokenizers_does(pattern):
    """onig reads \\pL as the letters p and L (a property needs braces), \\Z as the end or before a last line end,
    and folds no case for a property out of a set ((?i)\\p{Lu} is capitals only) but does in one."""
    from wordpiece_core.pre_tokenizers import pre_tokenize, split_stage

    for text in ["Hello World\n", "abc DEF\nxyz\n", "ÀÉ èé ǅ x\n\n", "apLb PL pl", "x\n", "\n", ""]:
        for behavior in ("isolated", "removed", "merged_with_next"):
            theirs = pre_tokenizers.Split(tokenizers.Regex(pattern), behavior).pre_tokenize_str(text)
            assert pre_tokenize(text, split_stage(pattern, behavior, False)) == theirs, (text, behavior)
