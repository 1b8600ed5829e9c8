"""Pre-tokenizers: split normalized text into words, with character offsets.

Named as on the command line, each reproducing a Hugging Face pre-tokenizer:

- ``whitespace``: ``Whitespace``, the regex ``\\w+|[^\\w\\s]+`` (``\\w``: Alphabetic,
  marks, decimal digits, connector punctuation, joiners; ``\\s``: White_Space).
- ``whitespace-split``: ``WhitespaceSplit``, split on White_Space only.
- ``bert``: ``BertPreTokenizer``, split on White_Space and isolate every
  punctuation character (ASCII punctuation or Unicode category P*).
- ``byte-level``: ``ByteLevel`` (GPT-2): the GPT-2 regex, then every UTF-8 byte
  is written as one printable character (a space becomes ``Ġ``). No prefix space
  by default, like the course; ``add_prefix_space`` adds one.
- ``metaspace`` (for Unigram only, as SentencePiece's): ``Metaspace``: every space becomes
  ``▁``, one ``▁`` goes before the text, and each ``▁`` begins a word.

Tokenizer files may also name ``Digits``, ``Punctuation``, a ``Sequence`` of pre-tokenizers,
``Metaspace`` with another prepend scheme, or none (`STAGES`, `METASPACE`, `NO_SPLIT`).

The character classes are not the installed ``regex`` module's Unicode tables, which change with its
version: they are unicode_tables.py, the classes the pinned ``tokenizers`` gives each of the 0x110000
code points (make_unicode_tables.py writes it; tests/test_unicode_tables.py checks every code point).
Each regex is compiled twice: with the installed properties (fast), used for any text that holds none of
the code points where those differ from the tables, and with the properties corrected to the tables.

A pre-tokenizer returns ``[(word, (start, end)), ...]``; offsets index the text
it was given (for byte-level, the text before the byte mapping).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from . import unicode_tables as tables
from .code_point_ranges import ranges
from .errors import WordPieceError

if TYPE_CHECKING:
    import regex

PRE_TOKENIZERS = ("whitespace", "whitespace-split", "bert", "byte-level")


# Each class as the installed regex names it (fast); where the installed tables differ from the table's,
# the class is corrected by its exceptions (slower: used only for a text holding one of them).
_BASES = {
    "WORD": r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}",
    "SPACE": r"\p{White_Space}",
    "BERT_SPACE": r"\p{White_Space}",
    "BERT_PUNCT": r"\p{P}!-/:-@\[-`{-~",  # Unicode punctuation and every ASCII punctuation character
    "LETTER": r"\p{L}",
    "NUMBER": r"\p{N}",
    "BYTE_SPACE": r"\p{White_Space}",
    "NUMERIC": r"\p{N}",  # Digits' char::is_numeric
    "PUNCT": r"\p{P}!-/:-@\[-`{-~",  # Punctuation's
}
# The Unicode general categories a Split pre-tokenizer's regex may name as \p{..} (GPT-4o's, Llama 3's, Qwen's
# and DeepSeek's patterns use L, Lu, Ll, Lt, Lm, Lo, M, N, P and S): the tables' GC_Lu, ... read from tokenizers.
CATEGORIES = ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No",
              "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp")
_BASES.update({f"GC_{c}": f"\\p{{{c}}}" for c in CATEGORIES})
_CLASSES = {
    "whitespace": ("WORD", "SPACE"),
    "whitespace-split": ("BERT_SPACE",),
    "bert": ("BERT_SPACE", "BERT_PUNCT"),
    "byte-level": ("LETTER", "NUMBER", "BYTE_SPACE"),
    # Stages a tokenizer.json's Sequence of pre-tokenizers may chain after (or instead of) the ones above:
    # each splits every piece so far, keeping all its characters (loading.py names a chain "whitespace+digits").
    "digits": ("NUMERIC",),  # Digits(individual_digits=True): each digit alone
    "digit-runs": ("NUMERIC",),  # Digits(individual_digits=False): runs of digits
    "punctuation": ("PUNCT",),  # Punctuation("isolated"): each punctuation character alone
    "punctuation-runs": ("PUNCT",),  # Punctuation("contiguous"): runs of punctuation
}
STAGES = ("digits", "digit-runs", "punctuation", "punctuation-runs")
NO_SPLIT = "none"  # a tokenizer file without a pre-tokenizer: the whole text is one word
# Metaspace (SentencePiece): prepend_scheme "always", "never", or "first" (a ▁ before the input's first part only,
# not after a special token: its offset in the original text is 0)
METASPACE = ("metaspace", "metaspace-never", "metaspace-first",
             # split false (Mistral's): the spaces become ▁ but the text stays one word
             "metaspace-whole", "metaspace-never-whole", "metaspace-first-whole")
METASPACE_MARK = _META = "\u2581"  # ▁, Metaspace's replacement for a space


def _escaped(spans: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in spans)


def _spans(points: set[int]) -> tuple[tuple[int, int], ...]:
    return tuple(ranges(sorted(points)))


def _points(spans: tuple[tuple[int, int], ...]) -> set[int]:
    return set().union(*(range(lo, hi + 1) for lo, hi in spans))


def scan_exceptions(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The code points the table's class `name` leaves out of the installed regex's property, and those it adds,
    as ranges: every code point through the installed regex (about 0.03 s a class, and 4 MB for a moment)."""
    import regex

    every = (array("I", range(0xD800)) + array("I", range(0xE000, 0x110000))).tobytes().decode("utf-32-le")
    installed: set[int] = set()
    for m in regex.finditer(f"[{_BASES[name]}]+", every):
        start, end = m.span()
        installed.update(range(ord(every[start]), ord(every[end - 1]) + 1))
    wanted = _points(getattr(tables, name))
    return _spans(installed - wanted), _spans(wanted - installed)


@lru_cache(maxsize=None)
def _exceptions(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """scan_exceptions(name), read from the tables when the installed regex is the one they were made with."""
    import regex

    if regex.__version__ == tables.REGEX_VERSION:
        return tables.REGEX_EXCEPTIONS[name]
    return scan_exceptions(name)


def _class(name: str, exact: bool) -> str:
    """A regex (V1) set for the table's class `name`: the installed property, and when `exact` its exceptions."""
    out = f"[{_BASES[name]}]"
    removed, added = _exceptions(name) if exact else ((), ())
    if removed:
        out = f"[{out}--[{_escaped(removed)}]]"
    if added:
        out = f"[{out}[{_escaped(added)}]]"
    return out


def _source(name: str, exact: bool) -> str:
    """The pre-tokenizer's regex (V1)."""
    def c(cls: str) -> str:
        return _class(cls, exact)

    if name == "whitespace":
        return f"{c('WORD')}+|[^{c('WORD')}{c('SPACE')}]+"
    if name == "whitespace-split":
        return f"[^{c('BERT_SPACE')}]+"  # Rust's char::is_whitespace
    if name == "bert":
        return f"[^{c('BERT_SPACE')}{c('BERT_PUNCT')}]+|{c('BERT_PUNCT')}"
    if name in STAGES:
        cls = c("NUMERIC" if name.startswith("digit") else "PUNCT")
        return f"{cls}{'+' if name.endswith('-runs') else ''}|[^{cls}]+"
    letter, number, space = c("LETTER"), c("NUMBER"), c("BYTE_SPACE")  # GPT-2's regex, as ByteLevel has it
    return (f"'s|'t|'re|'ve|'m|'ll|'d| ?{letter}+| ?{number}+| ?[^{space}{letter}{number}]+"
            f"|{space}+(?![^{space}])|{space}+")


@dataclass(frozen=True)
class _Patterns:
    fast: regex.Pattern  # the installed Unicode properties: right for any text without an exception
    exact: regex.Pattern  # the table's classes
    exceptions: frozenset[str]  # the characters where the two differ (all outside ASCII)

    def for_text(self, text: str) -> regex.Pattern:
        """`exact` for a text holding an exception, else `fast` (isascii takes no time; a set of a text's
        characters costs about a seventh of a regex pass; searching for them with a regex, more than it)."""
        if not self.exceptions or text.isascii() or self.exceptions.isdisjoint(set(text)):
            return self.fast
        return self.exact


@lru_cache(maxsize=None)
def _patterns(name: str) -> _Patterns:
    """Compiled on first use (the Unicode classes make it slow, and a run needs one pre-tokenizer). The regex
    module is imported here too: a training from word counts, or from plain words, never needs it."""
    import regex

    differ: set[int] = set()
    for cls in _CLASSES[name]:
        removed, added = _exceptions(cls)
        differ |= _points(removed) | _points(added)
    fast = regex.compile(_source(name, exact=False), flags=regex.V1)
    if not differ:
        return _Patterns(fast, fast, frozenset())
    return _Patterns(fast, regex.compile(_source(name, exact=True), flags=regex.V1), frozenset(map(chr, differ)))


def clear_caches() -> None:
    """Forget the compiled patterns and the scanned exceptions: the next use builds them again (for a process
    whose installed regex, or whose idea of the tables' regex version, changed: a test)."""
    _exceptions.cache_clear()
    _patterns.cache_clear()


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


def bytes_to_byte_level(data: bytes) -> str:
    """Any bytes (a .tiktoken token need not be whole UTF-8 characters) as byte-level characters."""
    return data.decode("latin-1").translate(_latin1_to_byte_level())


def to_byte_level(word: str) -> str:
    """Write the UTF-8 bytes of `word` as byte-level characters."""
    return bytes_to_byte_level(word.encode("utf-8"))


_FROM_FILES = STAGES + METASPACE + (NO_SPLIT,)  # the pre-tokenizers only a tokenizer file names


def check_pre_tokenizer(name: str) -> str:
    """A pre-tokenizer's name, or a chain of them joined by "+" (a tokenizer file's Sequence: Split stages
    (`split_stage`), the stages of `_CLASSES`, and last, ByteLevel with its regex or without ("bytes"))."""
    chain = name.split("+")
    middle, last = chain[:-1], chain[-1]
    if name not in PRE_TOKENIZERS + _FROM_FILES + (BYTES,) and not name.startswith(SPLIT) and not (
            len(chain) > 1 and all(_chainable(stage) for stage in middle)
            and (_chainable(last) or last in ("byte-level", BYTES) or last in METASPACE)):
        raise WordPieceError(
            f"unknown pre-tokenizer {name!r}: choose one of {', '.join(PRE_TOKENIZERS)}"
        )
    return name


def _chainable(stage: str) -> bool:
    return (stage in _CLASSES and stage != "byte-level") or stage in _SPLITS


def is_byte_level(name: str) -> bool:
    """Whether the pre-tokenizer writes its words in GPT-2's byte-level characters (ByteLevel, alone or last)."""
    return name.split("+")[-1] in ("byte-level", BYTES)


def _chain(text: str, stages: list[str], first: bool = True) -> list[tuple[str, tuple[int, int]]]:
    """A Sequence of pre-tokenizers: each stage splits every piece the stages before it made (a last ByteLevel
    splits each piece by GPT-2's regex, unless it is "bytes", then writes it in byte-level characters; a last
    Metaspace marks each piece, as T5's WhitespaceSplit then Metaspace does)."""
    pieces = [(text, (0, len(text)))]
    for stage in stages:
        if stage in METASPACE:
            pieces = [(word, (start + s, start + e)) for p, (start, _) in pieces
                      for word, (s, e) in pre_tokenize(p, stage, first=first and start == 0)]
            continue
        if stage in _SPLITS:
            split = _SPLITS[stage]
            pieces = [(p[s:e], (start + s, start + e)) for p, (start, _) in pieces for s, e in split.spans(p)]
            continue
        if stage == BYTES:
            break
        patterns = _patterns(stage)
        pieces = [(m.group(), (start + m.start(), start + m.end()))
                  for piece, (start, _) in pieces for m in patterns.for_text(piece).finditer(piece)]
    if is_byte_level(stages[-1]):
        pieces = [(to_byte_level(p), span) for p, span in pieces]
    return pieces


# ----------------------------------------------------------------------------------------- Split (a regex)

SPLIT = "split:"  # a Split stage's name: "split:" and a digest of its pattern, behaviour and invert
BYTES = "bytes"  # ByteLevel without its regex (use_regex false): each piece written in byte-level characters
BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
# \p{..} a pattern may name: the general categories (tables read from tokenizers) and their long names
_LONG_NAMES = {"Letter": "L", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
               "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Number": "N", "Decimal_Number": "Nd",
               "Punctuation": "P", "Symbol": "S", "Separator": "Z"}
MAX_SPLIT_PATTERN = 2_000  # characters of a Split regex (real ones: GPT-4o's about 300)


def _category_class(name: str, exact: bool) -> str | None:
    short = _LONG_NAMES.get(name, name)
    if short == "L":
        return _class("LETTER", exact)
    if short == "N":
        return _class("NUMBER", exact)
    if short in CATEGORIES:
        return _class(f"GC_{short}", exact)
    return None


_ONIG_LATIN1_WORD = "\u00b2\u00b3\u00b9\u00bc\u00bd\u00be"  # ² ³ ¹ ¼ ½ ¾: onig's \w out of a set holds them


def _onig_word(exact: bool, in_set: bool) -> str:
    """onig's \\w as tokenizers' onig reads it (measured over every code point): Rust's \\w (the WORD table)
    without the joiners U+200C and U+200D, and, out of a set, with the six Latin-1 digits and fractions ² ³ ¹ ¼ ½ ¾
    (a [\\w] leaves them out)."""
    cls = f"[{_class('WORD', exact)}--[\u200c\u200d]]"
    return cls if in_set else f"[{cls}[{_ONIG_LATIN1_WORD}]]"


def translate(pattern: str, exact: bool, flavor: str = "onig") -> str:
    """A Split regex (tokenizers' onig, Ruby syntax) as a regex-module (V1) pattern whose classes are the tables'
    (`exact`) or the installed properties (fast): \p{..}/\P{..} of a general category, \s, \S, \d, \D, \w,
    \W. V1 reads nested sets as onig does ([^\r\n\p{L}] holds a set). Raises WordPieceError naming what it
    cannot read (a script such as \p{Han}: its table is not read from tokenizers)."""
    import re as _re

    out: list[str] = []
    i = 0
    simple = {"s": _class("BYTE_SPACE", exact), "w": _class("WORD", exact), "d": _class("GC_Nd", exact)}
    depth = 0  # inside how many [ ] sets
    while i < len(pattern):
        ch = pattern[i]
        if ch != "\\" or i + 1 == len(pattern):
            if ch == "[":
                depth += 1
                if pattern.startswith("^]", i + 1) or pattern.startswith("]", i + 1):  # []…] or [^]…]: a literal ]
                    skip = 3 if pattern[i + 1] == "^" else 2
                    out.append(pattern[i:i + skip])
                    i += skip
                    continue
            elif ch == "]" and depth:
                depth -= 1
            elif flavor == "onig" and depth == 0 and ch == "}" and pattern.startswith("+", i + 1):
                raise WordPieceError("the pattern's {n,m}+ is not read here (onig repeats the interval; the regex "
                                     "module would read it as possessive)")
            elif flavor == "onig" and depth == 0 and ch == "(" and _re.match(r"\(\?[imx-]*m", pattern[i:]):
                flags = _re.match(r"\(\?([imx-]*)", pattern[i:]).group(1)  # type: ignore[union-attr]
                out.append("(?" + flags.replace("m", "s"))  # onig's (?m) is the dot matching a line end
                i += 2 + len(flags)
                continue
            elif ch in "^$" and depth == 0 and not (ch == "^" and out and out[-1] == "["):
                ch = ("\\A" if ch == "^" else "\\Z") if flavor == "rust" else f"(?m:{ch})"
            out.append(ch)
            i += 1
            continue
        nxt = pattern[i + 1]
        if nxt in "pP" and flavor == "onig" and not pattern.startswith("{", i + 2):
            out.append(nxt)  # onig reads \pL as the letters p and L: a property needs its braces
            i += 2
            continue
        if nxt == "Z" and flavor == "onig" and depth == 0:  # onig's \Z: the end, or before a last line end
            out.append("(?=\n?\Z)")
            i += 2
            continue
        if nxt in "pP":
            m = _re.match(r"\{\^?([A-Za-z_]+)\}|([A-Za-z])", pattern[i + 2:])
            if m is None:
                raise WordPieceError(f"the Split pattern's {pattern[i:i + 12]!r} is not a Unicode property")
            negated = nxt == "P" or m.group(0).startswith("{^")
            prop = m.group(1) or m.group(2)
            cls = _category_class(prop, exact)
            if cls is None:
                raise WordPieceError(f"the Split pattern's \\p{{{prop}}} is not supported here (supported: the "
                                     "general categories, such as \\p{L}, \\p{Lu}, \\p{N}, \\p{P})")
            found = f"[^{cls}]" if negated else cls
            # onig does not fold case for a property out of a set ((?i)\p{Lu} is only capitals); in a set it does
            out.append(f"(?-i:{found})" if flavor == "onig" and depth == 0 else found)
            i += 2 + m.end()
            continue
        if nxt == "h" and flavor == "onig":  # onig's \h: a hexadecimal digit
            out.append("[0-9a-fA-F]")
            i += 2
            continue
        if nxt in "wW" and flavor == "onig":  # onig's word characters, which differ in a set and out of one
            cls = _onig_word(exact, in_set=depth > 0)
            out.append(cls if nxt == "w" else f"[^{cls}]")
            i += 2
            continue
        if nxt in "bB" and flavor == "onig" and depth == 0:  # a boundary between onig's word characters and others
            w = _onig_word(exact, in_set=False)
            out.append(f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))" if nxt == "b" else f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))")
            i += 2
            continue
        if nxt.lower() in simple:
            cls = simple[nxt.lower()]
            out.append(cls if nxt.islower() else f"[^{cls}]")
            i += 2
            continue
        out.append(pattern[i:i + 2])  # any other escape, as it is
        i += 2
    return "".join(out)


@dataclass(frozen=True)
class SplitSpec:
    """tokenizers' Split: the pieces of a text around its regex's matches, kept or not per `behavior`."""

    pattern: str
    behavior: str  # one of BEHAVIORS
    invert: bool
    tables: str = "tokenizers"  # whose regex: "tokenizers" (onig, its Unicode tables) or "rust" (tiktoken's)

    @property
    def _compiled(self) -> _Patterns:
        return _split_patterns(self.pattern, self.tables)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The pieces' (start, end), as tokenizers' NormalizedString.split: the text cut into matches and the
        gaps between them (empty matches skipped), then joined or dropped per the behaviour."""
        marks: list[tuple[int, int, bool]] = []
        last = 0
        for m in timed_finditer(self._compiled.for_text(text), text):
            start, end = m.span()  # (an empty match splits too, as in tokenizers: \b, $, a*)
            if start == end and marks and marks[-1][2] and marks[-1][1] == start:
                continue  # (onig finds no empty match where the match before it ended)
            if last != start:
                marks.append((last, start, False))
            marks.append((start, end, True))
            last = end
        if last != len(text):
            marks.append((last, len(text), False))
        if self.invert:
            marks = [(s, e, not hit) for s, e, hit in marks]
        out: list[list[int]] = []
        if self.behavior == "removed":
            return [(s, e) for s, e, hit in marks if not hit and e > s]
        if self.behavior == "isolated":
            return [(s, e) for s, e, _ in marks if e > s]
        previous = False
        if self.behavior == "contiguous":
            for s, e, hit in marks:
                if out and hit == previous:
                    out[-1][1] = e
                else:
                    out.append([s, e])
                previous = hit
        elif self.behavior == "merged_with_previous":
            for s, e, hit in marks:
                if hit and not previous and out:
                    out[-1][1] = e
                else:
                    out.append([s, e])
                previous = hit
        else:  # merged_with_next: the same from the end
            for s, e, hit in reversed(marks):
                if hit and not previous and out:
                    out[-1][0] = s
                else:
                    out.append([s, e])
                previous = hit
            out.reverse()
        return [(s, e) for s, e in out if e > s]


_SPLITS: dict[str, SplitSpec] = {}


def split_stage(pattern: str, behavior: str, invert: bool, tables: str = "tokenizers") -> str:
    """The name of a Split stage (registered for this process), after checking its pattern compiles. `tables`:
    "tokenizers" reads its classes as tokenizers' onig does (the tables); "rust", as tiktoken's regex crate (the
    installed regex module's Unicode properties, as recent as that crate's)."""
    import hashlib

    if len(pattern) > MAX_SPLIT_PATTERN:
        raise WordPieceError(f"the Split pattern has {len(pattern):,} characters; at most {MAX_SPLIT_PATTERN:,} "
                             "are read")
    if behavior not in BEHAVIORS:
        raise WordPieceError(f"the Split behavior {behavior!r} is not one of {', '.join(BEHAVIORS)}")
    spec = SplitSpec(pattern, behavior, invert, tables)
    _split_patterns(pattern, tables)  # refuses what it cannot read, now
    name = SPLIT + hashlib.sha1(repr((pattern, behavior, invert, tables)).encode()).hexdigest()[:16]
    if name not in _SPLITS and len(_SPLITS) >= MAX_REGISTERED:
        raise WordPieceError(f"this server has read {MAX_REGISTERED:,} different Split patterns since it started; "
                             "restart it to read more")
    _SPLITS[name] = spec
    return name


@lru_cache(maxsize=1)
def _word_char() -> "regex.Pattern":
    import regex

    return regex.compile(_class("WORD", exact=True), flags=regex.V1)


def is_word_char(ch: str) -> bool:
    """Rust's regex \\w (the WORD table): what tokenizers' single_word added tokens may not touch."""
    return _word_char().match(ch) is not None


def text_pattern(pattern: str) -> "regex.Pattern":
    """A normalizer's regex (a file's Replace), as a Split's with tokenizers' tables (exact on every text)."""
    return _split_patterns(pattern).exact


MAX_COUNTED_REPEATS = 10_000  # the product of a pattern's {n,m} bounds: the regex module expands them at compile
REGEX_SECONDS = 5.0  # one regex pass over one text (a pattern that backtracks for ever is stopped and named)
MAX_REGISTERED = 10_000  # distinct Split stages (and normalizer steps) a server registers in its life
# Constructs only the regex module reads (onig reads them otherwise or refuses them): refused by name.
_NOT_ONIG = ("(?R", "(?&", "(?P>", "(?(", "(?|", "(?V", "(?r", "(?f", "(?w", "\\m", "\\M", "(?0", "(?1", "(?2",
             "(?3", "(?4", "(?5", "(?6", "(?7", "(?8", "(?9", "(?+", "(?-1")


def check_pattern(pattern: str) -> None:
    """Refuse, by name, what would make a pattern's compiling or matching unbounded or read otherwise: counted
    repeats whose bounds multiply past MAX_COUNTED_REPEATS (((a{300}){300}){300} took gigabytes to compile),
    recursion and the regex module's own constructs."""
    import re as _re

    for construct in _NOT_ONIG:
        if construct in pattern:
            raise WordPieceError(f"the pattern's {construct!r} is not read here (tokenizers' regex reads it otherwise)")
    product = 1
    for low, high in _re.findall(r"(?<!\\)\{(\d+)(?:,(\d*))?\}", pattern):
        product *= max(int(low), int(high or 0), 1)
        if product > MAX_COUNTED_REPEATS:
            raise WordPieceError(f"the pattern's counted repeats ({{n,m}}) multiply past {MAX_COUNTED_REPEATS:,}; "
                                 "at most that many are read")


def timed_finditer(pattern: "regex.Pattern", text: str):
    """pattern.finditer(text), stopped after REGEX_SECONDS with a WordPieceError naming the limit."""
    try:
        yield from pattern.finditer(text, timeout=REGEX_SECONDS)
    except TimeoutError:
        raise WordPieceError(f"this tokenizer's regex took over {REGEX_SECONDS:g} s on the text (it backtracks "
                             "without end on text like this); the text is not encoded") from None


@lru_cache(maxsize=256)
def _split_patterns(pattern: str, tables: str = "tokenizers") -> _Patterns:
    import regex

    check_pattern(pattern)

    flavor = "rust" if tables == "rust" else "onig"
    # Case folding: Rust's regex folds one character to one ((?-f)); onig folds ß to ss as V1 does
    fold = "(?-f)" if tables == "rust" else ""
    try:
        fast = regex.compile(fold + translate(pattern, exact=False, flavor=flavor), flags=regex.V1)
        if tables == "rust":
            return _Patterns(fast, fast, frozenset())
        exact = regex.compile(fold + translate(pattern, exact=True, flavor=flavor), flags=regex.V1)
    except (regex.error, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise WordPieceError(f"the Split pattern cannot be read: {str(exc)[:200] or type(exc).__name__}") from None
    differ: set[int] = set()
    for cls in ("LETTER", "NUMBER", "BYTE_SPACE", "WORD", *(f"GC_{c}" for c in CATEGORIES)):
        removed, added = _exceptions(cls)
        differ |= _points(removed) | _points(added)
    return _Patterns(fast, exact, frozenset(map(chr, differ)))


def _metaspace(text: str, prepend: bool) -> list[tuple[str, tuple[int, int]]]:
    """Metaspace with split: every space becomes ▁ (and one ▁ goes before a text that does not start with one),
    then each ▁ begins a word. A prepended ▁ stands for the first character: the word is one longer than its
    offsets (the pipeline maps both to that character, as tokenizers does)."""
    marked = text.replace(" ", _META)
    shift = 1 if prepend and marked and not marked.startswith(_META) else 0
    if shift:
        marked = _META + marked
    out = []
    start = 0
    for end in [i for i, ch in enumerate(marked) if ch == _META and i > 0] + [len(marked)]:
        if end > start:
            out.append((marked[start:end], (max(start - shift, 0), end - shift)))
        start = end
    return out


def pre_tokenize(text: str, name: str, add_prefix_space: bool = False,
                 first: bool = True) -> list[tuple[str, tuple[int, int]]]:
    """Split `text` into words with (start, end) character offsets into `text` (`first`: `text` starts the input,
    for Metaspace's prepend_scheme "first")."""
    if name == NO_SPLIT:
        return [(text, (0, len(text)))] if text else []
    if name in METASPACE:
        scheme = name.removesuffix("-whole")
        words = _metaspace(text, scheme == "metaspace" or (scheme == "metaspace-first" and first))
        if name.endswith("-whole") and words:  # split false: one word, offsets over the whole text
            return [("".join(w for w, _ in words), (0, len(text)))]
        return words
    if "+" in check_pre_tokenizer(name) or name.startswith(SPLIT) or name == BYTES:
        return _chain(text, name.split("+"), first)
    pattern = _patterns(name).for_text(text)
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
    if name in _FROM_FILES or "+" in check_pre_tokenizer(name) or name.startswith(SPLIT) or name == BYTES:
        return [word for word, _ in pre_tokenize(text, name)]
    pattern = _patterns(name).for_text(text)
    if name != "byte-level":
        return pattern.findall(text)
    if add_prefix_space and text and not text.startswith(" "):
        text = " " + text
    table = _latin1_to_byte_level()
    return [w.encode("utf-8").decode("latin-1").translate(table) for w in pattern.findall(text)]
