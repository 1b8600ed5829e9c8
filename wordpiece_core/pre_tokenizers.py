"""Pre-tokenizers: split normalized text into words, with character offsets.

Named as on the command line, each reproducing a Hugging Face pre-tokenizer:

- ``whitespace``: ``Whitespace``, the regex ``\\w+|[^\\w\\s]+`` with Rust's
  Unicode classes (``\\w`` = Alphabetic, marks, decimal digits, connector
  punctuation, joiners; ``\\s`` = White_Space).
- ``whitespace-split``: ``WhitespaceSplit``, split on White_Space only.
- ``bert``: ``BertPreTokenizer``, split on White_Space and isolate every
  punctuation character (ASCII punctuation or Unicode category P*).
- ``byte-level``: ``ByteLevel`` (GPT-2): the GPT-2 regex, then every UTF-8 byte
  is written as one printable character (a space becomes ``Ġ``). No prefix space
  by default, like the course; ``add_prefix_space`` adds one.

A pre-tokenizer returns ``[(word, (start, end)), ...]``; offsets index the text
it was given (for byte-level, the text before the byte mapping).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from .errors import WordPieceError

if TYPE_CHECKING:
    import regex

PRE_TOKENIZERS = ("whitespace", "whitespace-split", "bert", "byte-level")

_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
_ASCII_PUNCT = "".join("\\" + ch for ch in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # each one escaped

_SOURCES = {
    "whitespace": rf"[{_WORD}]+|[^{_WORD}\p{{White_Space}}]+",
    "whitespace-split": r"[^\p{White_Space}]+",
    "bert": rf"[^\p{{White_Space}}\p{{P}}{_ASCII_PUNCT}]+|[\p{{P}}{_ASCII_PUNCT}]",
    "byte-level": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
}


@lru_cache(maxsize=None)
def _pattern(name: str) -> regex.Pattern:
    """Compiled on first use: the Unicode classes make compiling slow, and a run needs one. (The regex
    module is imported here too: a training from word counts, or from plain words, never needs it.)"""
    import regex

    return regex.compile(_SOURCES[name])


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (0x20 → 'Ġ')."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


@lru_cache(maxsize=1)
def _latin1_to_byte_level() -> dict[int, str]:
    return {b: ch for b, ch in bytes_to_unicode().items() if chr(b) != ch}


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    return {ch: b for b, ch in bytes_to_unicode().items()}


def byte_level_alphabet() -> list[str]:
    """All 256 byte-level characters, sorted by code point."""
    return sorted(bytes_to_unicode().values())


def to_byte_level(word: str) -> str:
    """Write the UTF-8 bytes of `word` as byte-level characters."""
    return word.encode("utf-8").decode("latin-1").translate(_latin1_to_byte_level())


def check_pre_tokenizer(name: str) -> str:
    if name not in _SOURCES:
        raise WordPieceError(
            f"unknown pre-tokenizer {name!r}: choose one of {', '.join(PRE_TOKENIZERS)}"
        )
    return name


def pre_tokenize(text: str, name: str, add_prefix_space: bool = False) -> list[tuple[str, tuple[int, int]]]:
    """Split `text` into words with (start, end) character offsets into `text`."""
    pattern = _pattern(check_pre_tokenizer(name))
    if name != "byte-level":
        return [(m.group(), m.span()) for m in pattern.finditer(text)]
    shift = 0
    if add_prefix_space and text and not text.startswith(" "):
        text = " " + text
        shift = 1
    out = []
    for m in pattern.finditer(text):
        start, end = m.span()
        out.append((to_byte_level(m.group()), (max(start - shift, 0), end - shift)))
    return out


def words_of(text: str, name: str, add_prefix_space: bool = False) -> list[str]:
    """Only the words (fast path for training)."""
    pattern = _pattern(check_pre_tokenizer(name))
    if name != "byte-level":
        return pattern.findall(text)
    if add_prefix_space and text and not text.startswith(" "):
        text = " " + text
    table = _latin1_to_byte_level()
    return [w.encode("utf-8").decode("latin-1").translate(table) for w in pattern.findall(text)]
