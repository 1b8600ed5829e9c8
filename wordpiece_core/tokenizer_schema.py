"""The shape of a tokenizer.json document, checked once before it is read.

A tokenizer file comes from anywhere (an upload, a download from a hub, a hand edit),
so every field the loader reads is checked here first, and a wrong one is named in
the message: ``model.max_input_chars_per_word should be a whole number, not the text
"100"``. What is well formed but not supported (a WordLevel model, a UnicodeScripts
pre-tokenizer) is the loader's to say; this module only checks shapes.
"""

from __future__ import annotations

from typing import Any

from .errors import WordPieceError

MAX_INPUT_CHARS_PER_WORD = 100_000  # a file may ask for longer words: refused by name above this
MAX_LENGTH = 100_000  # truncation's max_length, padding's length and its multiple: a file asking for more is refused
# What one file may hold, whatever it came through (an upload, a link's kept file, the command line): the work of
# reading it and of encoding with it is bounded by these. The tokenizers students use stay well inside them (the
# largest vocabularies hold about 260,000 tokens, the longest tokens a few hundred characters).
MAX_TOKEN_CHARS = 1_024  # a token (a vocabulary entry, a merge's side, a Unigram piece, an added token); real
# files hold runs of 1,024 spaces (Claude's), as .tiktoken files do (tiktoken_files.MAX_TOKEN_BYTES)
MAX_VOCAB_ENTRIES = 1_000_000  # a vocabulary's tokens, and a BPE model's merges
MAX_ADDED_TOKENS = 20_000  # added_tokens
MAX_STAGES = 100  # the normalizers, or pre-tokenizers, of a Sequence (nested ones included)
# A WordPiece vocabulary whose tokens have so many lengths that the scan would try too many (models.SCAN_CHARS) is
# encoded by LinMaxMatch, whose tries weigh up to wordpiece_match.BYTES_PER_CHAR a character: such a vocabulary may
# hold this many characters (BERT's, which is scanned, holds about 200,000).
MAX_MATCHED_VOCAB_CHARS = 1_000_000


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        shown = f"{value:,}" if isinstance(value, int) and value < 10**40 else repr(value)
        return f"the number {shown[:40]}" + ("…" if len(shown) > 40 else "")
    if isinstance(value, str):
        return f"the text {value[:40]!r}" + ("…" if len(value) > 40 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class _Checker:
    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, what: str, value: Any) -> WordPieceError:
        return WordPieceError(f"{self.name}: {where} should be {what}, not {_describe(value)}")

    def obj(self, value: Any, where: str, optional: bool = False) -> dict | None:
        if value is None and optional:
            return None
        if not isinstance(value, dict):
            raise self.fail(where, "an object" + (" or null" if optional else ""), value)
        return value

    def text(self, value: Any, where: str, optional: bool = True) -> None:
        if value is None and optional:
            return
        if not isinstance(value, str):
            raise self.fail(where, "a text" + (" or null" if optional else ""), value)

    def flag(self, value: Any, where: str, optional: bool = True) -> None:
        if value is None and optional:
            return
        if not isinstance(value, bool):
            raise self.fail(where, "true or false", value)

    def whole(self, value: Any, where: str, optional: bool = True, at_most: int | None = None,
              why: str = "") -> None:
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(where, "a whole number", value)
        if at_most is not None and value > at_most:
            raise self.fail(where, f"a whole number of at most {at_most:,}{why}", value)

    def items(self, value: Any, where: str, at_most: int | None = None, noun: str = "entries") -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(where, "a list", value)
        if at_most is not None:
            self.count(len(value), where, at_most, noun)
        return value

    def count(self, n: int, where: str, at_most: int, noun: str) -> None:
        if n > at_most:
            raise WordPieceError(f"{self.name}: {where} holds {n:,} {noun}; this app reads at most {at_most:,}")

    def token(self, token: str, where: str) -> None:
        if len(token) > MAX_TOKEN_CHARS:
            raise WordPieceError(f"{self.name}: {where} holds a token of {len(token):,} characters (it starts "
                                 f"{token[:20]!r}); this app reads tokens of up to {MAX_TOKEN_CHARS:,} characters")


def validate_tokenizer_doc(doc: Any, name: str) -> None:
    """Raise a WordPieceError naming the first field of `doc` whose shape is wrong."""
    c = _Checker(name)
    if not isinstance(doc, dict):
        raise WordPieceError(f"{name} is not a tokenizer.json file (its JSON is {_describe(doc)}, not an object)")
    if "model" not in doc:
        raise WordPieceError(f"{name} is not a tokenizer.json file (no model section)")
    model = c.obj(doc["model"], "model")
    assert model is not None
    c.text(model.get("type"), "model.type")
    if model.get("type") == "Unigram":
        _check_unigram(c, model)
    elif model.get("type") in (None, "WordPiece", "BPE"):
        _check_merges_or_wordpiece(c, model)
    else:
        return  # another kind of model: the loader says it is not supported
    _check_pipeline(c, doc)


def _check_merges_or_wordpiece(c: _Checker, model: dict) -> None:
    """A WordPiece or BPE model's fields."""
    vocab = model.get("vocab")
    if vocab is not None:
        if not isinstance(vocab, dict):
            raise c.fail("model.vocab", "an object of token → id", vocab)
        c.count(len(vocab), "model.vocab", MAX_VOCAB_ENTRIES, "tokens")
        for token, i in vocab.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise c.fail(f"model.vocab[{token[:40]!r}]", "a whole number (the token's id)", i)
            c.token(token, "model.vocab")
    for key in ("unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
        c.text(model.get(key), f"model.{key}")
    c.whole(model.get("max_input_chars_per_word"), "model.max_input_chars_per_word",
            at_most=MAX_INPUT_CHARS_PER_WORD, why=" (the longest word this app encodes; tokenizers' default is 100)")
    c.flag(model.get("byte_fallback"), "model.byte_fallback")
    c.flag(model.get("fuse_unk"), "model.fuse_unk")
    dropout = model.get("dropout")
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))):
        raise c.fail("model.dropout", "a number or null", dropout)
    for i, merge in enumerate(c.items(model.get("merges"), "model.merges", MAX_VOCAB_ENTRIES, "merges")):
        ok = (isinstance(merge, str) and " " in merge) or (
            isinstance(merge, list) and len(merge) == 2 and all(isinstance(t, str) for t in merge))
        if not ok:
            raise c.fail(f"model.merges[{i}]", 'a pair of tokens (["a", "b"] or "a b")', merge)
        sides = merge.split(" ", 1) if isinstance(merge, str) else merge  # ("a b": each side a token)
        c.token(max(sides, key=len), f"model.merges[{i}]")


def _check_pipeline(c: _Checker, doc: dict) -> None:
    """Everything around the model: added tokens, normalizer, pre-tokenizer, post-processor, decoder."""
    for i, token in enumerate(c.items(doc.get("added_tokens"), "added_tokens", MAX_ADDED_TOKENS, "tokens")):
        c.obj(token, f"added_tokens[{i}]")
        c.text(token.get("content"), f"added_tokens[{i}].content", optional=False)
        c.token(token["content"], f"added_tokens[{i}].content")
        c.whole(token.get("id"), f"added_tokens[{i}].id")
    _stage(c, doc.get("normalizer"), "normalizer", "normalizers",
           ("lowercase", "clean_text", "handle_chinese_chars", "strip_accents"))
    _stage(c, doc.get("pre_tokenizer"), "pre_tokenizer", "pretokenizers", ("add_prefix_space", "use_regex", "trim_offsets"))
    _post_processor(c, doc.get("post_processor"), "post_processor")
    decoder = c.obj(doc.get("decoder"), "decoder", optional=True)
    if decoder is not None:
        c.text(decoder.get("type"), "decoder.type")
    c.obj(doc.get("truncation"), "truncation", optional=True)
    c.obj(doc.get("padding"), "padding", optional=True)


def _stage(c: _Checker, spec: Any, where: str, children: str, flags: tuple[str, ...], left: int = MAX_STAGES) -> int:
    """A normalizer or pre-tokenizer: an object with a type, maybe a Sequence of more, and flags; at most `left`
    stages in all (MAX_STAGES, nested Sequences included). How many it holds, itself included."""
    spec = c.obj(spec, where, optional=True)
    if spec is None:
        return 0
    if left < 1:
        raise WordPieceError(f"{c.name}: {where.split('.')[0]} holds more than {MAX_STAGES:,} {children} (Sequences "
                             f"included); this app reads at most {MAX_STAGES:,}")
    c.text(spec.get("type"), f"{where}.type")
    used = 1
    for i, sub in enumerate(c.items(spec.get(children), f"{where}.{children}")):
        used += _stage(c, sub, f"{where}.{children}[{i}]", children, flags, left - used)
    for key in flags:
        c.flag(spec.get(key), f"{where}.{key}")
    return used


def _special(c: _Checker, value: Any, where: str) -> None:
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], int) and not isinstance(value[1], bool)):
        raise c.fail(where, 'a [token, id] pair such as ["[SEP]", 102]', value)


def _post_processor(c: _Checker, spec: Any, where: str) -> None:
    spec = c.obj(spec, where, optional=True)
    if spec is None:
        return
    kind = spec.get("type")
    c.text(kind, f"{where}.type")
    for i, sub in enumerate(c.items(spec.get("processors"), f"{where}.processors")):
        _post_processor(c, sub, f"{where}.processors[{i}]")
    if kind in ("BertProcessing", "RobertaProcessing"):
        for key in ("sep", "cls"):
            _special(c, spec.get(key), f"{where}.{key}")
    for key in ("add_prefix_space", "trim_offsets"):
        c.flag(spec.get(key), f"{where}.{key}")
    if kind == "TemplateProcessing":
        for key, special in (c.obj(spec.get("special_tokens"), f"{where}.special_tokens", optional=True) or {}).items():
            c.obj(special, f"{where}.special_tokens.{key}")
            for part in ("ids", "tokens"):
                c.items(special.get(part), f"{where}.special_tokens.{key}.{part}")
        if not isinstance(spec.get("single"), list):
            raise c.fail(f"{where}.single", "a list of template items", spec.get("single"))
        for part in ("single", "pair"):
            for i, item in enumerate(c.items(spec.get(part), f"{where}.{part}")):
                item_where = f"{where}.{part}[{i}]"
                c.obj(item, item_where)
                inner_key = "SpecialToken" if "SpecialToken" in item else "Sequence"
                inner = c.obj(item.get(inner_key), f"{item_where}.{inner_key}")
                assert inner is not None
                c.text(inner.get("id"), f"{item_where}.{inner_key}.id", optional=False)
                c.whole(inner.get("type_id"), f"{item_where}.{inner_key}.type_id")


def _check_unigram(c: _Checker, model: dict) -> None:
    """A Unigram model: vocab is a list of [piece, log-probability]; unk_id the index of one of them, or null."""
    vocab = model.get("vocab")
    if not isinstance(vocab, list) or not vocab:
        raise c.fail("model.vocab", "a non-empty list of [piece, score] pairs", vocab)
    c.count(len(vocab), "model.vocab", MAX_VOCAB_ENTRIES, "pieces")
    for i, item in enumerate(vocab):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], (int, float)) and not isinstance(item[1], bool)):
            raise c.fail(f"model.vocab[{i}]", "a [piece, score] pair (a string and a number)", item)
        c.token(item[0], f"model.vocab[{i}]")
        try:
            finite = abs(float(item[1])) < float("inf")
        except OverflowError:  # a whole number too large for a float
            finite = False
        if not finite:
            raise c.fail(f"model.vocab[{i}]", "a [piece, score] pair with a finite score", item)
    unk_id = model.get("unk_id")
    if unk_id is not None and (isinstance(unk_id, bool) or not isinstance(unk_id, int) or not 0 <= unk_id < len(vocab)):
        raise c.fail("model.unk_id", f"null or the index of a piece (0 to {len(vocab) - 1:,})", unk_id)
    c.flag(model.get("byte_fallback"), "model.byte_fallback")
