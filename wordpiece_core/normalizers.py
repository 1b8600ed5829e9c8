"""Normalizers: the first stage of the pipeline.

Three are offered, named as on the command line:

- ``none``: the text is used as it is.
- ``lowercase``: every character is lowercased on its own (so a final capital
  sigma becomes ``σ``, never ``ς``), like Hugging Face's ``Lowercase``.
- ``bert``: Hugging Face's ``BertNormalizer`` with its defaults: drop control
  characters (Unicode category C*, NUL and U+FFFD) except tab, newline and
  carriage return; turn every whitespace character into a plain space; put
  spaces around CJK ideographs; strip accents (NFD, then drop nonspacing marks);
  lowercase character by character. ``bert-cased`` does the same without
  lowercasing and accent stripping (the BERT-cased models).

Every normalizer works character by character, so each output character comes
from exactly one input character. `normalize_aligned` returns, beside the text,
the index of that source character for every output character; the pipeline
uses it to give token offsets into the original input.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from .errors import WordPieceError

NORMALIZERS = ("none", "lowercase", "bert", "bert-cased")

_CAPITAL_SIGMA = "\u03a3"
_SMALL_SIGMA = "\u03c3"

# Rust's char::is_whitespace is the Unicode White_Space property.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_cjk_ideograph(ch: str) -> bool:
    """The code point ranges BERT treats as Chinese characters."""
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def lowercase_char(ch: str) -> str:
    """Lowercase one character, with no context rule (Σ always becomes σ)."""
    if ch == _CAPITAL_SIGMA:
        return _SMALL_SIGMA
    return ch.lower()


@lru_cache(maxsize=None)
def _bert_char(ch: str, lowercase: bool) -> str:
    """What BertNormalizer makes of one character (possibly several, or none)."""
    cp = ord(ch)
    if ch not in "\t\n\r" and (cp == 0 or cp == 0xFFFD or unicodedata.category(ch)[0] == "C"):
        return ""
    if ch in WHITE_SPACE:
        return " "
    # BertNormalizer's order: spaces around CJK ideographs, then strip accents
    # (NFD, drop Mn) and lowercase. NFD also maps a CJK compatibility
    # ideograph (U+F900…, U+2F800…) to its unified one, inside the spaces.
    body = ch
    if lowercase:
        body = "".join(
            lowercase_char(d) for d in unicodedata.normalize("NFD", ch) if unicodedata.category(d) != "Mn"
        )
    return f" {body} " if is_cjk_ideograph(ch) else body


@lru_cache(maxsize=None)
def _char_function(name: str):
    if name == "none":
        return None
    if name == "lowercase":
        return lowercase_char
    if name == "bert":
        return lambda ch: _bert_char(ch, True)
    if name == "bert-cased":
        return lambda ch: _bert_char(ch, False)
    raise WordPieceError(
        f"unknown normalizer {name!r}: choose one of {', '.join(NORMALIZERS)}"
    )


def check_normalizer(name: str) -> str:
    _char_function(name)
    return name


def normalize(text: str, name: str) -> str:
    """Normalize `text` with the normalizer called `name` (fast path, no offsets)."""
    fn = _char_function(name)
    if fn is None:
        return text
    table = {}
    for ch in set(text):
        out = fn(ch)
        if out != ch:
            table[ord(ch)] = out
    return text.translate(table) if table else text


def normalize_aligned(text: str, name: str) -> tuple[str, list[int]]:
    """Normalize and return, for each output character, the index of its source character."""
    fn = _char_function(name)
    if fn is None:
        return text, list(range(len(text)))
    pieces: list[str] = []
    source: list[int] = []
    for i, ch in enumerate(text):
        out = fn(ch)
        if out:
            pieces.append(out)
            source.extend([i] * len(out))
    return "".join(pieces), source
