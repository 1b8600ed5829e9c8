"""Normalizers: the first stage of the pipeline.

Three are offered, named as on the command line:

- ``none``: the text is used as it is.
- ``lowercase``: every character is lowercased on its own (so a final capital
  sigma becomes ``σ``, never ``ς``), like Hugging Face's ``Lowercase``.
- ``bert``: Hugging Face's ``BertNormalizer`` with its defaults: drop control,
  format and private-use characters (Cc, Cf, Co; NUL and U+FFFD) except tab,
  newline and carriage return, keeping unassigned code points; turn every whitespace character into a plain space; put
  spaces around CJK ideographs; strip accents (NFD, then drop nonspacing marks);
  lowercase character by character. ``bert-cased`` does the same without
  lowercasing and accent stripping (the BERT-cased models).

Every normalizer works character by character, so each output character comes
from exactly one input character. `normalize_with_sources` returns, beside the text,
the index of that source character for every output character (or None when every
character stayed in its place); the pipeline uses it to give token offsets into the
original input.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from . import unicode_tables
from .errors import WordPieceError
from .precompiled import Precompiled

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


# Capitals added in Unicode 16, which Python 3.11's tables do not know and Rust's (in
# tokenizers) lowercase: their lowercase forms, from the Unicode 16 character database.
_NEWER_LOWERCASE = {
    0x1C89: 0x1C8A, 0xA7CB: 0x0264, 0xA7CC: 0xA7CD, 0xA7CE: 0xA7CF, 0xA7D2: 0xA7D3, 0xA7D4: 0xA7D5, 0xA7DA:
    0xA7DB, 0xA7DC: 0x019B, 0x10D50: 0x10D70, 0x10D51: 0x10D71, 0x10D52: 0x10D72, 0x10D53: 0x10D73, 0x10D54:
    0x10D74, 0x10D55: 0x10D75, 0x10D56: 0x10D76, 0x10D57: 0x10D77, 0x10D58: 0x10D78, 0x10D59: 0x10D79,
    0x10D5A: 0x10D7A, 0x10D5B: 0x10D7B, 0x10D5C: 0x10D7C, 0x10D5D: 0x10D7D, 0x10D5E: 0x10D7E, 0x10D5F:
    0x10D7F, 0x10D60: 0x10D80, 0x10D61: 0x10D81, 0x10D62: 0x10D82, 0x10D63: 0x10D83, 0x10D64: 0x10D84,
    0x10D65: 0x10D85, 0x16EA0: 0x16EBB, 0x16EA1: 0x16EBC, 0x16EA2: 0x16EBD, 0x16EA3: 0x16EBE, 0x16EA4:
    0x16EBF, 0x16EA5: 0x16EC0, 0x16EA6: 0x16EC1, 0x16EA7: 0x16EC2, 0x16EA8: 0x16EC3, 0x16EA9: 0x16EC4,
    0x16EAA: 0x16EC5, 0x16EAB: 0x16EC6, 0x16EAC: 0x16EC7, 0x16EAD: 0x16EC8, 0x16EAE: 0x16EC9, 0x16EAF:
    0x16ECA, 0x16EB0: 0x16ECB, 0x16EB1: 0x16ECC, 0x16EB2: 0x16ECD, 0x16EB3: 0x16ECE, 0x16EB4: 0x16ECF,
    0x16EB5: 0x16ED0, 0x16EB6: 0x16ED1, 0x16EB7: 0x16ED2, 0x16EB8: 0x16ED3
}


def lowercase_char(ch: str) -> str:
    """Lowercase one character, with no context rule (Σ always becomes σ)."""
    if ch == _CAPITAL_SIGMA:
        return _SMALL_SIGMA
    newer = _NEWER_LOWERCASE.get(ord(ch))
    return chr(newer) if newer is not None else ch.lower()


# BertNormalizer drops "other" characters by its own (older) Unicode tables: controls,
# format characters and private use, but never an unassigned code point (a newer emoji,
# say, which Python's tables may not know yet). These format characters came after its
# tables, so it keeps them as ordinary characters (README: Unicode versions).
_FORMAT_KEPT_BY_TOKENIZERS = frozenset([0x0890, 0x0891, 0x08E2, 0x110CD, *range(0x13430, 0x13439)])


def bert_drops(ch: str) -> bool:
    """Whether BertNormalizer's clean_text removes `ch`."""
    cp = ord(ch)
    if ch in "\t\n\r":
        return False
    if cp == 0 or cp == 0xFFFD:
        return True
    return unicodedata.category(ch) in ("Cc", "Cf", "Co") and cp not in _FORMAT_KEPT_BY_TOKENIZERS


# Accent stripping (NFD, then drop nonspacing marks) also follows tokenizers' older
# tables: these marks, Mn in Python's newer tables, are not marks there and are kept;
# U+1734 (Mn there, Mc here) is dropped. Found by comparing every code point with
# tokenizers' BertNormalizer (tests/test_hf_differential.py).
_MARKS_KEPT_BY_TOKENIZERS = tuple((
    (0x07FD, 0x07FD), (0x0898, 0x089F), (0x08CA, 0x08E1), (0x09FE, 0x09FE), (0x0AFA, 0x0AFF),
    (0x0B55, 0x0B55), (0x0C04, 0x0C04), (0x0C3C, 0x0C3C), (0x0D00, 0x0D00), (0x0D3B, 0x0D3C),
    (0x0D81, 0x0D81), (0x0EBA, 0x0EBA), (0x180F, 0x180F), (0x1885, 0x1886), (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFB), (0xA82C, 0xA82C), (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF), (0xA9BD, 0xA9BD),
    (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070),
    (0x11073, 0x11074), (0x110C2, 0x110C2), (0x111C9, 0x111C9), (0x111CF, 0x111CF), (0x1123E, 0x1123E),
    (0x1133B, 0x1133B), (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446), (0x1145E, 0x1145E),
    (0x1182F, 0x11837), (0x11839, 0x1183A), (0x1193B, 0x1193C), (0x1193E, 0x1193E), (0x11943, 0x11943),
    (0x119D4, 0x119D7), (0x119DA, 0x119DB), (0x119E0, 0x119E0), (0x11A01, 0x11A0A), (0x11A33, 0x11A38),
    (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B), (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99), (0x11C30, 0x11C36), (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F), (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D90, 0x11D91), (0x11D95, 0x11D95),
    (0x11D97, 0x11D97), (0x11EF3, 0x11EF4), (0x16F4F, 0x16F4F), (0x16FE4, 0x16FE4), (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46), (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A),
))
_MARKS_DROPPED_BY_TOKENIZERS = frozenset([0x1734])


def _stripped(d: str) -> bool:
    """Whether accent stripping drops the decomposed character `d`, as tokenizers does."""
    cp = ord(d)
    if cp in _MARKS_DROPPED_BY_TOKENIZERS:
        return True
    if unicodedata.category(d) != "Mn":
        return False
    return not any(lo <= cp <= hi for lo, hi in _MARKS_KEPT_BY_TOKENIZERS)


@lru_cache(maxsize=None)
def _bert_char(ch: str, lowercase: bool) -> str:
    """What BertNormalizer makes of one character (possibly several, or none)."""
    if bert_drops(ch):
        return ""
    if ch in WHITE_SPACE:
        return " "
    # BertNormalizer's order: spaces around CJK ideographs, then strip accents
    # (NFD, drop Mn) and lowercase. NFD also maps a CJK compatibility
    # ideograph (U+F900…, U+2F800…) to its unified one, inside the spaces.
    body = ch
    if lowercase:
        body = "".join(
            lowercase_char(d) for d in decomposed(ch, "NFD") if not _stripped(d)
        )
    return f" {body} " if is_cjk_ideograph(ch) else body


# The steps a tokenizer.json's Sequence of normalizers may chain (loading.py names them, joined by "+"): each
# works character by character. NFD and NFKD decompose each character on its own (no canonical reordering of
# combining marks across characters: StripAccents drops them in the course's Sequence[NFD, Lowercase,
# StripAccents], so the order never shows there); StripAccents drops every mark (Mn, Mc, Me).
_NMT_DROPPED = frozenset([*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F])
_NMT_SPACE = frozenset([0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF,
                        0xFFFD])


def nmt_char(ch: str) -> str:
    """tokenizers' Nmt (SentencePiece's nmt_nfkc before its NFKC): control characters dropped, some spaces and
    zero-width characters (and ▁ itself) made a plain space."""
    cp = ord(ch)
    return "" if cp in _NMT_DROPPED else " " if cp in _NMT_SPACE else ch


def decomposed(ch: str, form: Literal["NFD", "NFKD"]) -> str:
    """One character's NFD or NFKD as tokenizers gives it (Python's unicodedata is another Unicode version: where
    the two differ, unicode_tables holds tokenizers' answer, read from it by make_unicode_tables.py)."""
    override = (unicode_tables.NFD_OVERRIDES if form == "NFD" else unicode_tables.NFKD_OVERRIDES).get(ord(ch))
    return override if override is not None else unicodedata.normalize(form, ch)


@lru_cache(maxsize=1)
def _class_unknown() -> frozenset[str]:
    return frozenset(chr(cp) for lo, hi in unicode_tables.CLASS_UNKNOWN for cp in range(lo, hi + 1))


def combining(ch: str) -> int:
    """A character's canonical combining class as tokenizers' tables give it: Python's, but 0 for the marks its
    older Unicode does not know (unicode_tables.CLASS_UNKNOWN)."""
    cls = unicodedata.combining(ch)
    return 0 if cls and ch in _class_unknown() else cls


@lru_cache(maxsize=1)
def _stripped_by_tokenizers() -> frozenset[str]:
    """The characters tokenizers' StripAccents drops (its marks, read from it for every code point)."""
    return frozenset(chr(cp) for lo, hi in unicode_tables.STRIPPED for cp in range(lo, hi + 1))


_STEPS = {
    "nmt": nmt_char,
    "nfd": lambda s: "".join(decomposed(c, "NFD") for c in s),
    "nfkd": lambda s: "".join(decomposed(c, "NFKD") for c in s),
    "lowercase": lambda s: "".join(map(lowercase_char, s)),
    "strip-accents": lambda s: "".join(c for c in s if c not in _stripped_by_tokenizers()),
}


def _chain(steps: tuple[str, ...]):
    def run(ch: str) -> str:
        for step in steps:
            ch = _STEPS[step](ch)
        return ch
    return run


@lru_cache(maxsize=256)
def _char_function(name: str):
    if name == "none":
        return None
    if name == "lowercase":
        return lowercase_char
    if name == "bert":
        return lambda ch: _bert_char(ch, True)
    if name == "bert-cased":
        return lambda ch: _bert_char(ch, False)
    steps = tuple(name.split("+"))  # a tokenizer file's NFD, NFKD, StripAccents or a Sequence with Lowercase
    if all(step in _STEPS for step in steps):
        return _chain(steps)
    raise WordPieceError(
        f"unknown normalizer {name!r}: choose one of {', '.join(NORMALIZERS)}"
    )


def check_normalizer(name: str) -> str:
    if _composing(name) is None:
        _char_function(name)
    return name


def _outputs(text: str, fn) -> dict[str, str]:
    """What each distinct character of `text` becomes (normalizers work character by character)."""
    return {ch: fn(ch) for ch in set(text)}


def _translate(text: str, outs: dict[str, str]) -> str:
    table = {ord(ch): out for ch, out in outs.items() if out != ch}
    return text.translate(table) if table else text


def normalize(text: str, name: str) -> str:
    """Normalize `text` with the normalizer called `name` (fast path, no offsets)."""
    if (steps := _composing(name)) is not None:
        return _normalize_steps(text, steps)[0]
    fn = _char_function(name)
    return text if fn is None else _translate(text, _outputs(text, fn))


_COMPOSING: dict[str, Literal["NFD", "NFKD"]] = {"nfc": "NFD", "nfkc": "NFKD"}  # composing steps: their decomposition


_DECOMPOSING: dict[str, Literal["NFD", "NFKD"]] = {"nfd": "NFD", "nfkd": "NFKD"}


def _decomposed(chars: list[str], form: Literal["NFD", "NFKD"]) -> list[tuple[str, int]]:
    """NFD or NFKD as tokenizers' unicode-normalization-alignments streams it: each character's pieces, the first
    with change 0 (it replaces the character), the others 1 (inserted), then each run of combining marks put in
    canonical order (stable, by combining class), across the characters they came from, the changes moving with
    the marks: ê + U+0323 (as a Vietnamese keyboard types ệ) is e, U+0323, U+0302."""
    out: list[tuple[str, int]] = [(d, 1 if k else 0) for ch in chars for k, d in enumerate(decomposed(ch, form))]
    k = 0
    while k < len(out):
        if combining(out[k][0]):
            end = k
            while end < len(out) and combining(out[end][0]):
                end += 1
            out[k:end] = sorted(out[k:end], key=lambda pair: combining(pair[0]))
            k = end
        else:
            k += 1
    return out


def _aligned(stream: list[tuple[str, int]], sources: list[int]) -> tuple[list[str], list[int]]:
    """The characters of a (character, change) stream with their sources, as tokenizers' transform aligns them:
    change 0 takes the next input character, n > 0 (inserted) the one before it, −n the next and skips n more."""
    out: list[str] = []
    src: list[int] = []
    offset = 0
    for index, (ch, change) in enumerate(stream):
        at = index - offset
        offset += change
        out.append(ch)
        src.append(sources[max(at - 1, 0)] if change > 0 else sources[min(at, len(sources) - 1)])
    return out, src


def _decompose(chars: list[str], sources: list[int], form: Literal["NFD", "NFKD"]) -> tuple[list[str], list[int]]:
    """NFD or NFKD of a text as characters with their sources (`_decomposed`, `_aligned`)."""
    return _aligned(_decomposed(chars, form), sources) if chars else (chars, sources)


def _compose(chars: list[str], sources: list[int], form: str) -> tuple[list[str], list[int]]:
    """NFC or NFKC of a text as characters with their sources: the decomposition stream, then canonical
    composition, a mark joining its starter adding its change to the starter's, less one (é from e + U+0301
    replaces e and removes the mark: −1), then tokenizers' alignment."""
    if not chars:
        return chars, sources
    composed: list[tuple[str, int]] = []
    starter = -1  # the index in `composed` of the last starter a mark may still join
    last_class = 0
    for ch, change in _decomposed(chars, _COMPOSING[form]):
        cls = combining(ch)
        if starter >= 0 and (last_class < cls or (last_class == 0 and starter == len(composed) - 1)):
            pair = unicodedata.normalize("NFC", composed[starter][0] + ch)
            if len(pair) == 1:  # a primary composite (the exclusions never compose)
                composed[starter] = (pair, composed[starter][1] + change - 1)
                continue
        if cls == 0:
            starter, last_class = len(composed), 0
        else:
            last_class = cls
        composed.append((ch, change))
    return _aligned(composed, sources)


# ------------------------------------------------------------------- steps over the whole text (a file's)

@dataclass(frozen=True)
class TextStep:
    """A normalizer that sees the whole text, not one character: tokenizers' Prepend, Replace and Strip."""

    kind: str  # "prepend", "replace" or "strip"
    text: str = ""  # prepend: what goes before a non-empty text; replace: the content put for each match
    pattern: str = ""  # replace: a regex (tokenizers' onig, as pre_tokenizers.translate reads it)
    left: bool = False  # strip: white space at the start, the end
    right: bool = False

    def apply(self, chars: list[str], sources: list[int]) -> tuple[list[str], list[int]]:
        if self.kind == "prepend":
            if not chars:
                return chars, sources
            return list(self.text) + chars, [sources[0]] * len(self.text) + sources
        if self.kind == "strip":
            start, end = 0, len(chars)
            while self.left and start < end and chars[start] in WHITE_SPACE:
                start += 1
            while self.right and end > start and chars[end - 1] in WHITE_SPACE:
                end -= 1
            return chars[start:end], sources[start:end]
        from .pre_tokenizers import text_pattern, timed_finditer  # (the regex module: only a file's Replace needs it)

        text = "".join(chars)
        out: list[str] = []
        src: list[int] = []
        last = 0
        previous_end = -1
        for m in timed_finditer(text_pattern(self.pattern), text):
            start, end = m.span()  # (an empty match takes the content too, as in tokenizers)
            if start == end and previous_end == start:
                continue  # (onig finds no empty match where the match before it ended)
            previous_end = end if end > start else -1
            out += chars[last:start]
            src += sources[last:start]
            out += list(self.text)  # every character of the content stands for the match's last (as tokenizers
            anchor = end - 1 if end > start else max(start - 1, 0)  # aligns it); an insertion, for the one before
            src += [sources[anchor] if sources else 0] * len(self.text)
            last = end
        return out + chars[last:], src + sources[last:]


_TEXT_STEPS: dict[str, TextStep | Precompiled] = {}
MAX_STEP_TEXT = 1_000  # characters of a Prepend's or a Replace's text or pattern
MAX_REGISTERED = 10_000  # distinct whole-text steps a server registers in its life
GROWTH = 4  # a normalized text may be at most this many times as long as the text (plus MAX_STEP_TEXT)


def text_step(step: TextStep) -> str:
    """The name of a whole-text normalizer step (registered for this process)."""
    import hashlib

    if max(len(step.text), len(step.pattern)) > MAX_STEP_TEXT:
        raise WordPieceError(f"a {step.kind} normalizer holds more than {MAX_STEP_TEXT:,} characters")
    if step.kind == "replace":
        from .pre_tokenizers import text_pattern

        text_pattern(step.pattern)  # refuses what it cannot read, now
    name = f"{step.kind}#" + hashlib.sha1(repr(step).encode()).hexdigest()[:16]
    if name not in _TEXT_STEPS and len(_TEXT_STEPS) >= MAX_REGISTERED:
        raise WordPieceError(f"this server has read {MAX_REGISTERED:,} different normalizer steps since it started; "
                             "restart it to read more")
    _TEXT_STEPS[name] = step
    return name


MAX_PRECOMPILED = 300  # distinct SentencePiece maps a server registers in its life (each about 300 kB; a file may
# hold at most MAX_FILE_PRECOMPILED, so filling this takes 150 uploads of different models)
MAX_FILE_PRECOMPILED = 2


def precompiled_step(charsmap: bytes) -> str:
    """The name of a file's Precompiled normalizer (SentencePiece's map, parsed and registered for this process)."""
    import hashlib

    name = "precompiled#" + hashlib.sha1(charsmap).hexdigest()[:16]
    if name not in _TEXT_STEPS:
        if sum(step.startswith("precompiled#") for step in _TEXT_STEPS) >= MAX_PRECOMPILED:
            raise WordPieceError(f"this server has read {MAX_PRECOMPILED:,} different SentencePiece normalization "
                                 "maps since it started; restart it to read more")
        _TEXT_STEPS[name] = Precompiled(charsmap)
    return name


def _normalize_steps(text: str, steps: list[str]) -> tuple[str, list[int]]:
    """A chain with a composing step (NFC, NFKC) or a whole-text one: every step over characters with their
    sources."""
    chars, sources = list(text), list(range(len(text)))
    for step in steps:
        if step in _COMPOSING:
            chars, sources = _compose(chars, sources, step)
            continue
        if step in _DECOMPOSING:
            chars, sources = _decompose(chars, sources, _DECOMPOSING[step])
            continue
        if step in _TEXT_STEPS:
            chars, sources = _TEXT_STEPS[step].apply(chars, sources)
            if len(chars) > GROWTH * len(text) + MAX_STEP_TEXT:
                raise WordPieceError(f"this tokenizer's normalizer makes the text more than {GROWTH} times as long "
                                     "(its Replace or Prepend steps); the text is not encoded")
            continue
        run = _STEPS[step]
        pairs = [(c, i) for ch, i in zip(chars, sources) for c in run(ch)]
        chars, sources = [c for c, _ in pairs], [i for _, i in pairs]
    return "".join(chars), sources


def _composing(name: str) -> list[str] | None:
    """The steps of a chain that cannot go character by character (NFC, NFKC, a whole-text step, or NFD and NFKD,
    whose marks are put in canonical order across characters, unless StripAccents drops them later), else
    None."""
    steps = name.split("+")
    ordered = any(step in _DECOMPOSING and "strip-accents" not in steps[i + 1:] for i, step in enumerate(steps))
    return steps if (ordered or any(step in _COMPOSING or step in _TEXT_STEPS for step in steps)) and all(
        step in _COMPOSING or step in _STEPS or step in _TEXT_STEPS for step in steps) else None


def normalize_with_sources(text: str, name: str) -> tuple[str, list[int] | None]:
    """Normalize; return the text and, for each output character, the index of its source character.

    The sources are None when every character stays in its place (each became exactly
    one character: the common case, done by one `str.translate`)."""
    if (steps := _composing(name)) is not None:
        return _normalize_steps(text, steps)
    fn = _char_function(name)
    if fn is None:
        return text, None
    outs = _outputs(text, fn)
    if all(len(out) == 1 for out in outs.values()):
        return _translate(text, outs), None
    pieces: list[str] = []
    source: list[int] = []
    for i, ch in enumerate(text):
        out = outs[ch]
        if out:
            pieces.append(out)
            source.extend([i] * len(out))
    return "".join(pieces), source
