"""Write unicode_tables.py: the character classes of Hugging Face's pre-tokenizers, for every code point.

The pre-tokenizers (pre_tokenizers.py) must split text exactly as `tokenizers` does. Its Rust regexes
use the Unicode tables compiled into it; the `regex` module installed here carries its own, newer or
older (regex 2026.11 calls about 12,860 code points letters that tokenizers 0.23 calls symbols). So the
classes are not taken from any installed library at run time: this script asks the `tokenizers` that
requirements-dev.txt pins, code point by code point, how each of its pre-tokenizers treats the
character, and writes the answers as ranges. tests/test_unicode_tables.py checks every code point
against that same `tokenizers`.

    python wordpiece_core/make_unicode_tables.py     # needs the pinned tokenizers; about ten seconds

(Run as a file: it imports the package from the checkout it is in, and so the tables as they were; once the
classes are written, it reloads them before looking for the installed regex's exceptions to them.)

Each character is put between two others whose class is known and the pre-tokenizer's split says
which class it is in:
- `Whitespace` (\\w+|[^\\w\\s]+) on "a·a": one word → a word character (\\w); "a", "a" → white space
  (\\s); "a", "·", "a" → other;
- `BertPreTokenizer` on "a·a": one word → neither; "a", "a" → white space (Rust's char::is_whitespace);
  "a", "·", "a" → punctuation;
- `ByteLevel` (GPT-2's regex) on "a·", "1·" and "!·": one word → a letter (\\p{L}), a number
  (\\p{N}), other than those and white space; two words each time → white space (\\s);
- `Digits` and `Punctuation` on "a·a": three pieces → a digit (Rust's char::is_numeric), punctuation.
Surrogates (U+D800–U+DFFF) cannot be sent to Rust (they are not text in UTF-8): they count as other.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a file: the package is the one beside it
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wordpiece_core import pre_tokenizers, unicode_tables  # noqa: E402
from wordpiece_core.code_point_ranges import ranges  # noqa: E402

SURROGATES = range(0xD800, 0xE000)
OUT = Path(__file__).with_name("unicode_tables.py")


def classes() -> dict[str, list[int]]:
    """Each class's code points, in order."""
    from tokenizers.pre_tokenizers import BertPreTokenizer, ByteLevel, Digits, Punctuation, Whitespace

    whitespace, bert, byte_level = Whitespace(), BertPreTokenizer(), ByteLevel(add_prefix_space=False)
    digits, punctuation = Digits(individual_digits=True), Punctuation()
    out: dict[str, list[int]] = {name: [] for name in ("WORD", "SPACE", "BERT_SPACE", "BERT_PUNCT",
                                                       "LETTER", "NUMBER", "BYTE_SPACE", "NUMERIC", "PUNCT")}
    for cp in range(0x110000):
        if cp in SURROGATES:
            continue
        ch = chr(cp)
        words = whitespace.pre_tokenize_str(f"a{ch}a")
        if len(words) == 1:
            out["WORD"].append(cp)
        elif len(words) == 2:
            out["SPACE"].append(cp)
        words = bert.pre_tokenize_str(f"a{ch}a")
        if len(words) == 2:
            out["BERT_SPACE"].append(cp)
        elif len(words) == 3:
            out["BERT_PUNCT"].append(cp)
        if len(byte_level.pre_tokenize_str(f"a{ch}")) == 1:
            out["LETTER"].append(cp)
        elif len(byte_level.pre_tokenize_str(f"1{ch}")) == 1:
            out["NUMBER"].append(cp)
        elif len(byte_level.pre_tokenize_str(f"!{ch}")) == 2:
            out["BYTE_SPACE"].append(cp)
        if len(digits.pre_tokenize_str(f"a{ch}a")) == 3:
            out["NUMERIC"].append(cp)
        if len(punctuation.pre_tokenize_str(f"a{ch}a")) == 3:
            out["PUNCT"].append(cp)
    return out


def categories() -> dict[str, list[int]]:
    r"""Each general category's code points as tokenizers' \p{..} matches them: a Split that removes the matches
    from a text of every code point, once per category (about 2.5 s each)."""
    from tokenizers import Regex
    from tokenizers.pre_tokenizers import Split

    points = [cp for cp in range(0x110000) if cp not in SURROGATES]
    text = "".join(map(chr, points))
    out: dict[str, list[int]] = {}
    for cat in pre_tokenizers.CATEGORIES:
        kept = bytearray(len(points))
        for _, (start, end) in Split(Regex(f"\\p{{{cat}}}"), "removed").pre_tokenize_str(text):
            kept[start:end] = b"\x01" * (end - start)
        out[f"GC_{cat}"] = [cp for cp, k in zip(points, kept) if not k]
    return out


def normalizer_tables() -> tuple[dict[str, list[int]], dict[str, dict[int, str]]]:
    """What tokenizers' normalizers do to each code point alone, where Python's unicodedata (another Unicode
    version) differs: the characters StripAccents drops (a class, STRIPPED), and NFD's and NFKD's decompositions
    of the code points whose decomposition differs (NFD_OVERRIDES, NFKD_OVERRIDES)."""
    import unicodedata

    from tokenizers import normalizers

    points = [cp for cp in range(0x110000) if cp not in SURROGATES]
    strip = normalizers.StripAccents()
    stripped = [cp for cp in points if strip.normalize_str(chr(cp)) == ""]
    # A mark Python gives a combining class that tokenizers' tables (an older Unicode) do not know: after U+0345
    # (class 240) tokenizers' NFD would move it in front if it knew its class.
    nfd = normalizers.NFD()
    unknown_class = [cp for cp in points if 0 < unicodedata.combining(chr(cp)) < 240
                     and nfd.normalize_str("a\u0345" + chr(cp)) == "a\u0345" + nfd.normalize_str(chr(cp))]
    overrides: dict[str, dict[int, str]] = {}
    for form, normalizer in (("NFD", normalizers.NFD()), ("NFKD", normalizers.NFKD())):
        overrides[f"{form}_OVERRIDES"] = {
            cp: out for cp in points
            if (out := normalizer.normalize_str(chr(cp))) != unicodedata.normalize(form, chr(cp))}  # type: ignore[arg-type]
    return {"STRIPPED": stripped, "CLASS_UNKNOWN": unknown_class}, overrides



def write(version: str, table: dict[str, list[int]], regex_version: str = "",
          exceptions: dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] | None = None,
          overrides: dict[str, dict[int, str]] | None = None) -> str:
    lines = [
        f'"""Generated by make_unicode_tables.py from tokenizers {version}: do not edit by hand.',
        "",
        "Each class is a tuple of (first, last) code point ranges, both included. WORD, SPACE: the Whitespace",
        "pre-tokenizer's \\\\w and \\\\s; BERT_SPACE, BERT_PUNCT: BertPreTokenizer's white space and punctuation;",
        "LETTER, NUMBER, BYTE_SPACE: ByteLevel's \\\\p{L}, \\\\p{N} and \\\\s; GC_Lu, ...: a Split regex's general",
        "categories (\\\\p{Lu}, ...).",
        '"""',
        "",
        f'TOKENIZERS_VERSION = "{version}"',
        "",
    ]
    written: dict[tuple[int, ...], str] = {}
    for name, points in table.items():
        same = written.get(tuple(points))
        if same is not None:  # a class equal to one written before: named, not written twice
            lines += [f"{name} = {same}  # the same {len(points):,} code points", ""]
            continue
        written[tuple(points)] = name
        pairs = [f"({lo:#x}, {hi:#x})" for lo, hi in ranges(points)]
        lines.append(f"{name}: tuple[tuple[int, int], ...] = (  # {len(points):,} code points")
        row = "   "
        for pair in pairs:
            if len(row) + len(pair) + 2 > 110:
                lines.append(row)
                row = "   "
            row += f" {pair},"
        lines.append(row)
        lines.append(")")
        lines.append("")
    for name, mapping in (overrides or {}).items():
        lines.append(f"{name}: dict[int, str] = {{  # {len(mapping):,} code points: tokenizers' form where Python's "
                     "unicodedata differs")
        lines += [f"    {cp:#x}: {out!r}," for cp, out in sorted(mapping.items())]
        lines += ["}", ""]
    lines += [
        "# Where the regex module this was made with differs from the classes above: per class, the code points",
        "# to take out of its Unicode property and those to add (pre_tokenizers.scan_exceptions finds them again",
        "# for any other regex version, once per process).",
        f'REGEX_VERSION = "{regex_version}"',
        "REGEX_EXCEPTIONS: dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = {",
    ]
    for name, (removed, added) in (exceptions or {}).items():
        lines.append(f'    "{name}": ({_tuple(removed)}, {_tuple(added)}),')
    lines += ["}", ""]
    return "\n".join(lines)


def _tuple(spans: tuple[tuple[int, int], ...]) -> str:
    return "(" + "".join(f"({lo:#x}, {hi:#x}), " for lo, hi in spans).rstrip(" ") + ")"


def main() -> None:
    import tokenizers

    stripped, overrides = normalizer_tables()
    table = classes() | categories()
    OUT.write_text(write(tokenizers.__version__, table | stripped, overrides=overrides),
                   encoding="utf-8")  # the classes, for scan_exceptions
    import regex

    importlib.reload(unicode_tables)  # the file just written (pre_tokenizers reads the same module object)
    exceptions = {name: pre_tokenizers.scan_exceptions(name) for name in table}
    OUT.write_text(write(tokenizers.__version__, table | stripped, regex.__version__, exceptions, overrides),
                   encoding="utf-8")
    print(f"wrote {OUT} (tokenizers {tokenizers.__version__})", file=sys.stderr)


if __name__ == "__main__":
    main()
