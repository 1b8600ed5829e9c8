"""Reading tokenizer files: a tokenizer.json, a BERT vocab.txt or a vocab.json with merges.txt becomes a
`Tokenizer` (pipeline.py); so does a training of any algorithm (`tokenizer_from_training`, through its
tokenizer.json: algorithms.AlgorithmInfo.tokenizer_json).

The shape of a tokenizer.json is checked first (tokenizer_schema.py), so a malformed file gets a
message that names the field. Only what this project can encode is accepted: WordPiece, BPE or Unigram
models (unigram/model.py), and the normalizers, pre-tokenizers, post-processors and decoders `_SUPPORTED`
names; anything else is refused by name.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .algorithms import AnyTraining, info_of
from .corpus import decode_unicode, read_file_bytes
from .errors import WordPieceError
from .models import BPEModel, WordPieceModel
from .pipeline import Decoder, Padding, Template, Tokenizer, Truncation
from .normalizers import MAX_FILE_PRECOMPILED, TextStep, precompiled_step, text_step
from .pre_tokenizers import BYTES, split_stage
from .special_tokens import BERT_SPECIALS, CLS, SEP, UNK
from .tiktoken_files import looks_like_tiktoken, tokenizer_from_tiktoken
from .tokenizer_schema import MAX_LENGTH, MAX_MATCHED_VOCAB_CHARS, MAX_STAGES, validate_tokenizer_doc
from .unigram.model import UnigramModel

_NORMALIZER_NAMES = {None: "none", "Lowercase": "lowercase"}
_PRE_NAMES = {"Whitespace": "whitespace", "WhitespaceSplit": "whitespace-split", "BertPreTokenizer": "bert",
              "ByteLevel": "byte-level"}


def tokenizer_from_training(training: AnyTraining, normalizer: str, pre_tokenizer: str,
                            add_prefix_space: bool = False) -> Tokenizer:
    """A ready-to-use `Tokenizer` for a training of any algorithm (the same one its tokenizer.json describes)."""
    doc = info_of(training.config).tokenizer_json(training, normalizer, pre_tokenizer, add_prefix_space)
    return tokenizer_from_json(doc, "the training")


def _quoted(value: object) -> str:
    """A value from a file, quoted in a message: on its first 40 characters (a file's value may be any length)."""
    text = repr(value)
    return text if len(text) <= 42 else text[:40] + "…"


_SUPPORTED = {
    "normalizer": "none, Lowercase, BertNormalizer, NFC, NFD, NFKC, NFKD, StripAccents, Nmt, Prepend, Replace, Strip, "
                  "or a Sequence of them (not with BertNormalizer)",
    "pre-tokenizer": "Whitespace, WhitespaceSplit, BertPreTokenizer, ByteLevel, Metaspace, Digits, Punctuation, "
                     "Split, or a Sequence of them (ByteLevel last)",
    "model": "WordPiece, BPE, Unigram",
    "post-processor": "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, or a Sequence of them",
    "decoder": "none, WordPiece, ByteLevel, Metaspace, BPEDecoder, ByteFallback, Fuse, Strip, Replace, Sequence",
}


def _unsupported(where: str, what: object, name: str) -> WordPieceError:  # what: a type name, or None
    supported = _SUPPORTED.get(where)
    return WordPieceError(f"{name}: the {where} {_quoted(what)} is not supported here"
                          + (f" (supported: {supported})" if supported else ""))


_STEP_NAMES = {"NFD": "nfd", "NFKD": "nfkd", "NFC": "nfc", "NFKC": "nfkc", "Lowercase": "lowercase",
               "StripAccents": "strip-accents"}


def _normalizer_name(spec: dict | None, name: str) -> str:
    """The pipeline's name of a file's normalizer: one step, or steps joined by "+" (a Sequence, nested ones
    flattened as tokenizers runs them; an empty one is none)."""
    if spec is None:
        return "none"
    if _maps(spec) > MAX_FILE_PRECOMPILED:  # counted before any is read: each is kept for the server's life
        raise WordPieceError(f"{name}: the normalizer holds more than {MAX_FILE_PRECOMPILED} Precompiled maps (real "
                             "files hold one)")
    steps = _normalizer_steps(spec, name)
    if not steps:
        return "none"
    if len(steps) > 1 and any(step in ("bert", "bert-cased") for step in steps):
        raise _unsupported("normalizer", "Sequence with BertNormalizer", name)
    return "+".join(steps)


def _maps(spec: object) -> int:
    """How many Precompiled normalizers a normalizer spec holds (nested Sequences included)."""
    if not isinstance(spec, dict):
        return 0
    if spec.get("type") == "Sequence":
        return sum(_maps(sub) for sub in spec.get("normalizers") or [] if isinstance(sub, dict))
    return int(spec.get("type") == "Precompiled")


def _normalizer_steps(spec: dict, name: str) -> list[str]:
    kind = spec.get("type")
    if kind == "Sequence":
        return [step for sub in spec.get("normalizers") or [] for step in _normalizer_steps(sub, name)]
    if kind in _STEP_NAMES:
        return [_STEP_NAMES[kind]]
    if kind == "Nmt":
        return ["nmt"]
    if kind == "Prepend":
        return [text_step(TextStep("prepend", text=_text_field(spec, "prepend", name)))]
    if kind == "Strip":
        return [text_step(TextStep("strip", left=bool(spec.get("strip_left")), right=bool(spec.get("strip_right"))))]
    if kind == "Replace":
        return [text_step(TextStep("replace", text=_text_field(spec, "content", name),
                                   pattern=_pattern_field(spec, "Replace", name)))]
    if kind == "Precompiled":
        return _precompiled(spec, name)
    if kind == "BertNormalizer":
        lower = spec.get("lowercase", True)
        strip = spec.get("strip_accents")
        strip = lower if strip is None else strip
        if not spec.get("clean_text", True) or not spec.get("handle_chinese_chars", True) or strip != lower:
            raise _unsupported("normalizer", "BertNormalizer with these options", name)
        return ["bert" if lower else "bert-cased"]
    raise _unsupported("normalizer", kind, name)


def _precompiled(spec: dict, name: str) -> list[str]:
    """SentencePiece's normalization map, base64 in the file (tokenizers' Precompiled)."""
    import base64
    import binascii

    value = spec.get("precompiled_charsmap")
    if not isinstance(value, str):
        raise WordPieceError(f"{name}: a Precompiled normalizer's precompiled_charsmap should be base64 text, not "
                             f"{_quoted(value)}")
    try:
        charsmap = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise WordPieceError(f"{name}: a Precompiled normalizer's precompiled_charsmap is not base64") from None
    try:
        return [precompiled_step(charsmap)]
    except WordPieceError as error:
        raise WordPieceError(f"{name}: {error}") from None


def _text_field(spec: dict, field: str, name: str) -> str:
    value = spec.get(field)
    if not isinstance(value, str):
        raise WordPieceError(f"{name}: a {spec.get('type')} normalizer's {field} should be text, not {_quoted(value)}")
    return value


def _pattern_field(spec: dict, kind: str, name: str) -> str:
    """A Replace's or a Split's pattern as a regex: {"Regex": ...} as it is, {"String": ...} escaped."""
    pattern = spec.get("pattern")
    if not isinstance(pattern, dict) or len(pattern) != 1 or not isinstance(next(iter(pattern.values())), str):
        raise WordPieceError(f"{name}: a {kind}'s pattern should be {{\"Regex\": ...}} or {{\"String\": ...}}, not "
                             f"{_quoted(pattern)}")
    (form, text), = pattern.items()
    if form not in ("Regex", "String"):
        raise WordPieceError(f"{name}: a {kind}'s pattern should be a Regex or a String, not {_quoted(form)}")
    import regex

    if form == "String" and not text:
        return "(?!)"  # an empty string matches nothing (tokenizers), not everywhere
    return text if form == "Regex" else regex.escape(text)


def _pre_tokenizer(spec: dict | None, name: str) -> tuple[str, bool]:
    if spec is None:
        return "none", False  # the whole text is one word, as tokenizers takes it
    kind = spec.get("type")
    if kind == "Sequence" and len((spec.get("pretokenizers") or [])) == 1:
        return _pre_tokenizer(spec["pretokenizers"][0], name)
    if kind == "Sequence" and spec.get("pretokenizers"):
        steps = spec["pretokenizers"]
        stages = [_stage(step, name) for step in steps[:-1]]
        last = steps[-1]
        if isinstance(last, dict) and last.get("type") == "ByteLevel":  # Llama 3's, GPT-4o's: Split, then bytes
            if last.get("add_prefix_space"):
                raise _unsupported("pre-tokenizer", "ByteLevel with add_prefix_space after another pre-tokenizer",
                                   name)
            stages.append("byte-level" if last.get("use_regex", True) else BYTES)
        elif isinstance(last, dict) and last.get("type") == "Metaspace":  # T5's: WhitespaceSplit, then Metaspace
            stages.append(_pre_tokenizer(last, name)[0])
        else:
            stages.append(_stage(last, name))
        return "+".join(stages), False
    if kind in ("Digits", "Punctuation", "Split"):
        return _stage(spec, name), False
    if kind == "Metaspace":
        scheme = _prepend_scheme(spec)
        if spec.get("replacement", "\u2581") != "\u2581" or scheme not in ("always", "never", "first"):
            raise _unsupported("pre-tokenizer", "Metaspace with another replacement than ▁ or another "
                               "prepend_scheme than always, first or never", name)
        whole = "" if spec.get("split", True) else "-whole"  # split false (Mistral's): the text one word
        return {"always": "metaspace", "never": "metaspace-never", "first": "metaspace-first"}[scheme] + whole, False
    if kind not in _PRE_NAMES:
        raise _unsupported("pre-tokenizer", kind, name)
    if kind == "ByteLevel" and not spec.get("use_regex", True):
        if spec.get("add_prefix_space"):
            raise _unsupported("pre-tokenizer", "ByteLevel without its regex but with add_prefix_space", name)
        return BYTES, False  # the whole text one word, in byte-level characters
    return _PRE_NAMES[kind], bool(spec.get("add_prefix_space", False))


def _prepend_scheme(spec: dict) -> str:
    """Metaspace's prepend_scheme ("always", "first", "never"), or what an older file's add_prefix_space meant."""
    return spec.get("prepend_scheme", "always" if spec.get("add_prefix_space", True) else "never")


def _stage(spec: dict, name: str) -> str:
    """One pre-tokenizer of a Sequence: Whitespace, WhitespaceSplit, BertPreTokenizer, Digits or Punctuation."""
    kind = spec.get("type")
    if kind == "Digits":
        return "digits" if spec.get("individual_digits") else "digit-runs"
    if kind == "Punctuation":
        behavior = str(spec.get("behavior", "Isolated")).lower()
        if behavior not in ("isolated", "contiguous"):
            raise _unsupported("pre-tokenizer", f"Punctuation with behavior {behavior}", name)
        return "punctuation" if behavior == "isolated" else "punctuation-runs"
    if kind == "Split":
        return _split(spec, name)
    if kind in _PRE_NAMES and kind != "ByteLevel":
        return _PRE_NAMES[kind]
    raise _unsupported("pre-tokenizer", f"Sequence with {kind}", name)


_BEHAVIOR_NAMES = {"Removed": "removed", "Isolated": "isolated", "MergedWithPrevious": "merged_with_previous",
                   "MergedWithNext": "merged_with_next", "Contiguous": "contiguous"}


def _split(spec: dict, name: str) -> str:
    """A Split pre-tokenizer: its regex (or a string, matched as it is), behaviour and invert."""
    pattern = _pattern_field(spec, "Split", name)
    behavior = _BEHAVIOR_NAMES.get(spec.get("behavior", ""))
    if behavior is None:
        raise WordPieceError(f"{name}: a Split's behavior should be one of {', '.join(_BEHAVIOR_NAMES)}, not "
                             f"{_quoted(spec.get('behavior'))}")
    try:
        return split_stage(pattern, behavior, bool(spec.get("invert")))
    except WordPieceError as exc:
        raise WordPieceError(f"{name}: {exc}") from None


def _template_from(spec: dict | None, name: str):
    """The post-processor's template, and its offset trimming: None (no trimming: no ByteLevel or RoBERTa
    post-processor), or (trim_offsets, add_prefix_space)."""
    if spec is None:
        return None, None
    kind = spec.get("type")
    if kind == "Sequence":
        template, trim = None, None
        for sub in (spec.get("processors") or []):
            t, tr = _template_from(sub, name)
            template = template or t
            trim = trim if tr is None else tr
        return template, trim
    if kind == "ByteLevel":
        return None, (bool(spec.get("trim_offsets", True)), bool(spec.get("add_prefix_space", True)))
    if kind in ("BertProcessing", "RobertaProcessing"):
        (cls, cls_id), (sep, sep_id) = spec["cls"], spec["sep"]  # [token, id] pairs (tokenizer_schema checked)
        given: tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...] = (
            (cls, ((cls, cls_id),)), (sep, ((sep, sep_id),)))
        if kind == "BertProcessing":
            return Template(((cls, 0), ("$A", 0), (sep, 0)), ((cls, 0), ("$A", 0), (sep, 0), ("$B", 1), (sep, 1)),
                            given), None
        return (Template(((cls, 0), ("$A", 0), (sep, 0)),
                         ((cls, 0), ("$A", 0), (sep, 0), (sep, 0), ("$B", 0), (sep, 0)), given),
                (bool(spec.get("trim_offsets", True)), bool(spec.get("add_prefix_space", True))))
    if kind == "TemplateProcessing":
        def parse(items):
            out = []
            for item in items:
                if "SpecialToken" in item:
                    out.append((item["SpecialToken"]["id"], item["SpecialToken"].get("type_id") or 0))
                else:
                    out.append(("$" + item["Sequence"]["id"], item["Sequence"].get("type_id") or 0))
            return tuple(out)
        expand = []
        for key, special in (spec.get("special_tokens") or {}).items():
            tokens, ids = special.get("tokens") or [], special.get("ids") or []
            if len(tokens) != len(ids) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
                raise WordPieceError(f"{name}: TemplateProcessing's special token {_quoted(key)} has "
                                     f"{len(tokens)} tokens but {len(ids)} ids")
            expand.append((str(key), tuple(zip(map(str, tokens), ids))))
        return Template(parse(spec.get("single") or []), parse(spec.get("pair") or []), tuple(expand)), None
    raise _unsupported("post-processor", kind, name)


def _decoder(spec: dict | None, name: str):
    if spec is None:
        return Decoder("join")  # tokenizers without a decoder joins the tokens with spaces
    kind = spec.get("type")
    if kind == "WordPiece":
        return Decoder("wordpiece", prefix=str(spec.get("prefix", "##")), cleanup=bool(spec.get("cleanup", True)))
    if kind == "ByteLevel":
        return Decoder("byte-level")
    if kind == "Metaspace":
        return Decoder("metaspace", replacement=str(spec.get("replacement", "\u2581")),
                       prepend=_prepend_scheme(spec) != "never")
    if kind == "BPEDecoder":
        return Decoder("bpe", suffix=str(spec.get("suffix", "</w>")))
    if kind == "ByteFallback":
        return Decoder("byte-fallback")
    if kind == "Fuse":
        return Decoder("fuse")
    if kind == "Strip":
        start, stop, content = spec.get("start", 0), spec.get("stop", 0), spec.get("content", " ")
        if not (isinstance(start, int) and isinstance(stop, int) and isinstance(content, str) and len(content) == 1):
            raise _unsupported("decoder", f"Strip {_quoted(spec)}", name)
        return Decoder("strip", content=content, start=max(start, 0), stop=max(stop, 0))
    if kind == "Replace":
        pattern = spec.get("pattern") or {}
        if not isinstance(pattern, dict) or not isinstance(pattern.get("String"), str) \
                or not isinstance(spec.get("content"), str):
            raise _unsupported("decoder", "Replace with a regex", name)
        return Decoder("replace", pattern=pattern["String"], content=spec["content"])
    if kind == "Sequence" and isinstance(spec.get("decoders"), list):
        return Decoder("sequence", steps=tuple(_decoder(step, name) for step in spec["decoders"]))
    raise _unsupported("decoder", kind, name)


def _added_tokens(doc: dict, vocab: dict, name: str
                  ) -> tuple[dict[str, int], tuple[str, ...], dict[str, tuple[bool, bool, bool]], frozenset[str]]:
    """The added tokens (matched in the text before the model, as tokenizers does), the special ones, each one's
    lstrip, rstrip and single_word, and those matched in the normalized text (normalized: true)."""
    added: dict[str, int] = {}
    specials: list[str] = []
    flags: dict[str, tuple[bool, bool, bool]] = {}
    normalized: set[str] = set()
    for entry in doc.get("added_tokens") or []:
        content, token_id = entry.get("content"), entry.get("id")
        if not isinstance(content, str) or not content or not isinstance(token_id, int) or isinstance(token_id, bool):
            raise WordPieceError(f"{name}: added_tokens: an entry needs a content and an id, not {_quoted(entry)}")
        flags[content] = (bool(entry.get("lstrip")), bool(entry.get("rstrip")), bool(entry.get("single_word")))
        if entry.get("normalized", True):
            normalized.add(content)
        if vocab.get(content, token_id) != token_id:
            raise WordPieceError(f"{name}: added_tokens: {_quoted(content)} has id {token_id} but the vocabulary "
                                 f"gives it {vocab[content]}")
        added[content] = token_id
        if entry.get("special"):
            specials.append(content)
    return added, tuple(specials), {t: f for t, f in flags.items() if any(f)}, frozenset(normalized)


def _truncation_and_padding(doc: dict, name: str):
    truncation = padding = None
    if (t := doc.get("truncation")) is not None:
        strategy, direction, length = t.get("strategy", "LongestFirst"), t.get("direction", "Right"), t.get("max_length")
        if strategy not in ("LongestFirst", "OnlyFirst", "OnlySecond") or direction not in ("Right", "Left") \
                or not isinstance(length, int) or isinstance(length, bool) or not 0 < length <= MAX_LENGTH:
            raise WordPieceError(f"{name}: truncation {_quoted(t)} is not supported here (max_length 1 to "
                                 f"{MAX_LENGTH:,}; strategy LongestFirst, OnlyFirst or OnlySecond; direction Right "
                                 "or Left)")
        truncation = Truncation(length, strategy, direction)
    if (p := doc.get("padding")) is not None:
        strategy = p.get("strategy")
        fixed = strategy.get("Fixed") if isinstance(strategy, dict) else None
        multiple = p.get("pad_to_multiple_of")
        numbers = [fixed if fixed is not None else 1, multiple or 1, p.get("pad_id", 0), p.get("pad_type_id", 0)]
        if not (strategy == "BatchLongest" or fixed is not None) or p.get("direction", "Right") not in ("Right", "Left") \
                or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_LENGTH for v in numbers) \
                or not isinstance(p.get("pad_token", "[PAD]"), str):
            raise WordPieceError(f"{name}: padding {_quoted(p)} is not supported here (numbers up to {MAX_LENGTH:,})")
        padding = Padding(fixed, multiple or None, p.get("direction", "Right"), p.get("pad_id", 0),
                          p.get("pad_type_id", 0), p.get("pad_token", "[PAD]"))
    return truncation, padding


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def parse_json(text: str, name: str) -> Any:
    """JSON text → Python, with a sentence for each way it can fail."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise WordPieceError(f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise WordPieceError(f"{name} is nested too deeply to be a tokenizer file") from None


def _wordpiece(model: WordPieceModel, name: str) -> WordPieceModel:
    """The model, unless its tokens have so many lengths that it is encoded by LinMaxMatch and it holds more
    characters than that may (tokenizer_schema.MAX_MATCHED_VOCAB_CHARS)."""
    if model.linear and model.vocab_chars > MAX_MATCHED_VOCAB_CHARS:
        raise WordPieceError(
            f"{name}: the vocabulary's tokens have {len(model.first_lengths):,} different lengths and "
            f"{model.vocab_chars:,} characters in all; a vocabulary with tokens of that many lengths is read when "
            f"it holds at most {MAX_MATCHED_VOCAB_CHARS:,} characters (BERT's holds about 200,000)")
    return model


def tokenizer_from_json(doc: dict, name: str):
    """Build a `Tokenizer` from a tokenizer.json document."""
    validate_tokenizer_doc(doc, name)
    model_spec = doc["model"]
    kind = model_spec.get("type")
    vocab = model_spec.get("vocab")
    if kind == "WordPiece" or (kind is None and "continuing_subword_prefix" in model_spec and "merges" not in model_spec):
        if not isinstance(vocab, dict):
            raise WordPieceError(f"{name}: the WordPiece model has no vocabulary")
        model: WordPieceModel | BPEModel | UnigramModel = _wordpiece(
            WordPieceModel(vocab, (model_spec.get("unk_token") or UNK), ("##" if model_spec.get("continuing_subword_prefix") is None else model_spec["continuing_subword_prefix"]),
                           (100 if model_spec.get("max_input_chars_per_word") is None else model_spec["max_input_chars_per_word"])),
            name)
    elif kind == "BPE" or (kind is None and "merges" in model_spec):
        if not isinstance(vocab, dict):
            raise WordPieceError(f"{name}: the BPE model has no vocabulary")
        if model_spec.get("dropout"):
            raise _unsupported("BPE option", "dropout", name)
        merges = []
        for m in model_spec.get("merges") or []:
            pair = tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1))
            if len(pair) != 2:
                raise WordPieceError(f"{name}: a merge {_quoted(m)} is not a pair of tokens")
            merges.append(pair)
        model = BPEModel(vocab, merges, model_spec.get("unk_token"), model_spec.get("continuing_subword_prefix"),
                         fuse_unk=bool(model_spec.get("fuse_unk")), ignore_merges=bool(model_spec.get("ignore_merges")),
                         suffix=model_spec.get("end_of_word_suffix") or None,
                         byte_fallback=bool(model_spec.get("byte_fallback")))
    elif kind == "Unigram":
        model = UnigramModel([(piece, float(score)) for piece, score in model_spec.get("vocab") or []],
                             model_spec.get("unk_id"), bool(model_spec.get("byte_fallback")))
        vocab = model.vocab
    else:
        raise _unsupported("model", kind, name)
    normalizer = _normalizer_name(doc.get("normalizer"), name)
    pre, add_prefix_space = _pre_tokenizer(doc.get("pre_tokenizer"), name)
    template, trim = _template_from(doc.get("post_processor"), name)
    added, specials, flags, normalized_added = _added_tokens(doc, vocab, name)
    truncation, padding = _truncation_and_padding(doc, name)
    decoder = _decoder(doc.get("decoder"), name)
    return Tokenizer(model, normalizer, pre, add_prefix_space, specials, template,
                     trim_offsets=trim is not None and trim[0], trim_prefix_space=trim[1] if trim else None,
                     decoder=decoder, added_tokens=added, truncation=truncation, padding=padding, added_flags=flags,
                     normalized_added=normalized_added)


CASED_SHARE = 0.001  # a cased vocabulary (bert-base-cased: about a fifth of its tokens) has far more than this


def case_guess(tokens: list[str]) -> tuple[bool, str]:
    """Whether a BERT vocab.txt reads as uncased, and why, in a sentence: counted are the tokens (not [..]
    specials) that start with a capital letter that has a lower-case form. ℝ or ℕ, which have none, may stand
    in an uncased vocabulary (bert-base-uncased holds them): isupper() alone would call it cased."""
    words = [t for t in tokens if t and not (t.startswith("[") and t.endswith("]"))]
    capitals = sum(1 for t in words if t[0].lower() != t[0])
    uncased = capitals <= CASED_SHARE * len(words)
    share = f"{capitals:,} of its {len(words):,} tokens start with a capital letter"
    return uncased, (f"uncased: {share} (a cased vocabulary such as bert-base-cased has thousands); capitals "
                     "without a lower-case form, such as ℝ, do not count" if uncased else
                     f"cased: {share}, so its model sees text as typed")


def guess_lowercase(tokens: list[str], file_name: str = "vocab.txt") -> bool:
    """Whether a vocab.txt looks uncased: named vocab.txt and read as uncased by `case_guess`."""
    return file_name.lower().endswith("vocab.txt") and case_guess(tokens)[0]


def load_tokenizer(path: str, merges_path: str | None = None, lowercase: bool | None = None):
    """Load tokenizer.json, a BERT-style vocab.txt, or vocab.json (+ merges.txt beside it).

    A vocab.txt does not say whether its model lowercases the text first: `lowercase` says
    so (True: the `bert` normalizer, False: `bert-cased`); None guesses, as `guess_lowercase`.
    """
    return tokenizer_from_bytes(read_file_bytes(path), path, lowercase, merges_path, on_disk=True)


HEAD_FROM = 2_000_000  # characters: a larger tokenizer.json has its head read first (Gemma 3's: 33 MB)
HEAD_CHARS = 1_000_000  # the head: where tokenizers writes the pipeline, before the model's vocabulary
HEAD_SPEC_CHARS = 100_000  # a stage read from the head is built only when its JSON is shorter than this
_PIPELINE = {"normalizer": _normalizer_name, "pre_tokenizer": _pre_tokenizer, "post_processor": _template_from,
             "decoder": _decoder}


def check_head(text: str, name: str) -> None:
    """Read a tokenizer.json's pipeline and its model's type from the head of the file, before the whole file is
    parsed (tokenizers writes them before the vocabulary): what is not supported is refused at once, not after
    seconds spent on a vocabulary of 262,000 tokens. What the head does not hold whole is left to the full read."""
    import re

    head = text[:HEAD_CHARS]
    decoder = json.JSONDecoder()
    for key, check in _PIPELINE.items():
        found = re.search(rf'"{key}"\s*:\s*', head)
        if found is None:
            continue
        try:
            spec, end = decoder.raw_decode(head, found.end())
        except (ValueError, RecursionError):
            continue  # (cut by the head's end, not JSON, or nested past Python's stack: the full read decides)
        if end - found.end() > HEAD_SPEC_CHARS or head.count('"type"', found.end(), end) > MAX_STAGES:
            continue  # (a stage too big to build here: the full read's limits name it)
        if isinstance(spec, dict):
            try:
                check(spec, name)
            except WordPieceError:
                raise
            except Exception:  # noqa: BLE001 (a malformed stage: the full read's checks name it)
                continue
    model = re.search(r'"model"\s*:\s*\{\s*"type"\s*:\s*"([^"\\]{0,40})"', head)
    if model is not None and model.group(1) not in ("BPE", "WordPiece", "Unigram"):
        raise _unsupported("model", model.group(1), name)


def tokenizer_from_bytes(data: bytes, path: str, lowercase: bool | None = None, merges_path: str | None = None,
                         on_disk: bool = False):
    """`load_tokenizer` for a file's content already read (an upload: nothing is written to disk).

    `path` names the file in messages; when `on_disk` (the command line's file), its folder is where a vocab.json's
    merges.txt is looked for. An upload's name is never a path on the server: its vocab.json is refused.
    """
    try:
        text = decode_unicode(data)  # UTF-8, or UTF-16 (as Windows tools save it), a byte order mark or none
    except UnicodeDecodeError:
        raise WordPieceError(f"{path} is not a UTF-8 (or UTF-16) text file; expected tokenizer.json, vocab.txt or "
                             "vocab.json") from None
    base = os.path.basename(path).lower()
    if base.endswith(".tiktoken") or looks_like_tiktoken(text):  # OpenAI's: base64 tokens and their ranks
        return tokenizer_from_tiktoken(text, os.path.basename(path))
    stripped = text.lstrip()
    if stripped.startswith("{") or (stripped.startswith("[") and _is_json(stripped)):
        if len(text) > HEAD_FROM:
            check_head(text, path)  # a big file's unsupported pipeline is refused before the file is parsed
        doc = parse_json(text, path)
        # A vocab.json (token → id, every value a whole number) whatever tokens it holds: GPT-2's holds the token
        # "model" (id 19,849), so a key alone does not tell it from a tokenizer.json, whose model is an object.
        if isinstance(doc, dict) and doc and all(isinstance(v, int) and not isinstance(v, bool) for v in doc.values()):
            if merges_path is None and not on_disk:
                raise WordPieceError(f"{os.path.basename(path)} is a vocab.json (tokens and ids, as BPE tokenizers "
                                     "store them): without its merges it cannot encode. Load the tokenizer.json saved "
                                     "with it instead")
            merges_file = merges_path or os.path.join(os.path.dirname(path), "merges.txt")
            if not os.path.exists(merges_file):
                raise WordPieceError(f"{path} is a vocab.json; put merges.txt beside it")
            merges = []
            try:
                merges_text = decode_unicode(read_file_bytes(merges_file))
            except UnicodeDecodeError:
                raise WordPieceError(f"{merges_file} is not a UTF-8 (or UTF-16) text file") from None
            for line in merges_text.splitlines():
                if not line.strip() or line.startswith("#version"):
                    continue
                parts = line.split(" ")
                if len(parts) != 2:
                    raise WordPieceError(f"{merges_file}: the line {line!r} is not 'left right'")
                merges.append((parts[0], parts[1]))
            byte_level = any("Ġ" in t for t in doc)
            model = BPEModel(doc, merges, UNK if UNK in doc else None)
            # GPT-2's pipeline, as transformers builds it from these two files: ByteLevel with its regex, no prefix
            # space, offsets not trimmed (its ByteLevel post-processor has trim_offsets false).
            return Tokenizer(model, "none", "byte-level" if byte_level else "whitespace", trim_offsets=False,
                             special_tokens=tuple(t for t in doc if t.startswith("<|") and t.endswith("|>")))
        if isinstance(doc, dict) and "model" in doc:
            return tokenizer_from_json(doc, path)
        raise WordPieceError(f"{path} is JSON but neither a tokenizer.json nor a vocab.json")
    if "\x00" in text:
        raise WordPieceError(f"{path} looks like a binary file, not a vocabulary")
    tokens = [line.rstrip("\r") for line in text.split("\n")]
    while tokens and tokens[-1] == "":
        tokens.pop()
    if not tokens:
        raise WordPieceError(f"{path} is empty")
    vocab: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        vocab.setdefault(tok, i)
    cased = not guess_lowercase(tokens, base) if lowercase is None else not lowercase
    specials = tuple(t for t in BERT_SPECIALS if t in vocab)
    template = Template.bert() if CLS in vocab and SEP in vocab else None
    return Tokenizer(_wordpiece(WordPieceModel(vocab), path), "bert-cased" if cased else "bert", "bert", False, specials, template,
                     decoder="wordpiece")
