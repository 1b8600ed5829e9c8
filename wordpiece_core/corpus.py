"""From input files to word counts, the trainers' input.

Two kinds of input:

- UTF-8 text, one document per line. Line endings are not part of the text.
  Each line is normalized, pre-tokenized, and its words counted.
- A word-count TSV: ``word<TAB>count`` per line. Words are used as they are,
  neither normalized nor pre-tokenized; a word listed twice has its counts
  added; blank lines are skipped.

Word counts keep the order in which words first appear: the course's
tie-break ("the first best pair") depends on it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import WordPieceError
from .normalizers import check_normalizer, normalize
from .pre_tokenizers import check_pre_tokenizer, words_of


@dataclass(frozen=True)
class TextSettings:
    """How raw text becomes words."""

    normalizer: str = "none"
    pre_tokenizer: str = "whitespace"
    add_prefix_space: bool = False

    def __post_init__(self) -> None:
        check_normalizer(self.normalizer)
        check_pre_tokenizer(self.pre_tokenizer)


def count_words(lines: Iterable[str], settings: TextSettings) -> dict[str, int]:
    """Count the words of `lines` (one document each), in order of first appearance."""
    counts: Counter[str] = Counter()
    norm, pre, prefix = settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space
    if pre != "byte-level" and not prefix:
        # Lines are separated by whitespace in every other pre-tokenizer, so the
        # whole text can be handled in one pass with identical words.
        batch: list[str] = []
        size = 0
        for line in lines:
            batch.append(line)
            size += len(line)
            if size > 4_000_000:
                counts.update(words_of(normalize("\n".join(batch), norm), pre))
                batch, size = [], 0
        if batch:
            counts.update(words_of(normalize("\n".join(batch), norm), pre))
    else:
        for line in lines:
            counts.update(words_of(normalize(line, norm), pre, prefix))
    return dict(counts)


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {col} (byte {offset})"


def decode_text(data: bytes, name: str) -> str:
    """Decode UTF-8 bytes, refusing binary data, with the position of any problem."""
    nul = data.find(b"\x00")
    if nul >= 0 and _looks_binary(data):
        raise WordPieceError(
            f"{name} looks like a binary file, not text (NUL byte at {_position(data, nul)})"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WordPieceError(
            f"{name} is not valid UTF-8 text: byte 0x{data[exc.start]:02x} at "
            f"{_position(data, exc.start)}; save it as UTF-8 and try again"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _looks_binary(data: bytes) -> bool:
    """A NUL byte in text is allowed (odd but legal); many of them mean a binary file."""
    head = data[:8192]
    return head.count(b"\x00") > max(1, len(head) // 100) or data.startswith(
        (b"\x7fELF", b"PK\x03\x04", b"\x89PNG", b"%PDF", b"\x1f\x8b", b"GIF8", b"\xff\xd8\xff")
    )


def split_lines(text: str) -> list[str]:
    """Lines without their endings (\\n, \\r\\n or \\r\\n)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_file_bytes(path: str) -> bytes:
    if not os.path.exists(path):
        raise WordPieceError(f"{path}: no such file")
    if os.path.isdir(path):
        raise WordPieceError(f"{path} is a directory; give the text files inside it")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise WordPieceError(f"{path}: cannot be read ({exc.strerror})") from None


def read_text_file(path: str) -> str:
    return decode_text(read_file_bytes(path), path)


def parse_word_counts(text: str, name: str) -> dict[str, int]:
    """Parse ``word<TAB>count`` lines; errors name the line."""
    counts: dict[str, int] = {}
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        word, tab, count_text = line.rpartition("\t")
        if not tab:
            raise WordPieceError(
                f"{name}, line {number}: expected 'word<TAB>count', found no tab in {_show(line)}"
            )
        if word == "":
            raise WordPieceError(f"{name}, line {number}: the word is empty")
        count_text = count_text.strip()
        if count_text == "":
            raise WordPieceError(f"{name}, line {number}: the count is missing for {_show(word)}")
        try:
            count = int(count_text)
        except ValueError:
            raise WordPieceError(
                f"{name}, line {number}: the count {_show(count_text)} is not a whole number"
            ) from None
        if count < 0:
            raise WordPieceError(f"{name}, line {number}: the count {count} is negative")
        if count:
            counts[word] = counts.get(word, 0) + count
    return counts


def _show(s: str, limit: int = 40) -> str:
    return repr(s if len(s) <= limit else s[:limit] + "…")


def load_word_counts(
    corpus_paths: Iterable[str], word_count_paths: Iterable[str], settings: TextSettings
) -> dict[str, int]:
    """Word counts from text files and TSV files, in the order given."""
    counts: dict[str, int] = {}
    for path in corpus_paths:
        for word, n in count_words(split_lines(read_text_file(path)), settings).items():
            counts[word] = counts.get(word, 0) + n
    for path in word_count_paths:
        for word, n in parse_word_counts(read_text_file(path), path).items():
            counts[word] = counts.get(word, 0) + n
    return counts
