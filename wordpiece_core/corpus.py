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
import pickle
import stat
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import WordPieceError
from .normalizers import check_normalizer, normalize
from .pre_tokenizers import METASPACE, METASPACE_MARK, check_pre_tokenizer, words_of


@dataclass(frozen=True)
class TextSettings:
    """How raw text becomes words."""

    normalizer: str = "none"
    pre_tokenizer: str = "whitespace"
    add_prefix_space: bool = False

    def __post_init__(self) -> None:
        check_normalizer(self.normalizer)
        check_pre_tokenizer(self.pre_tokenizer)


# Characters Python's str.split() treats as whitespace although Unicode does not.
_SPLIT_ONLY_SPACE = ("\x1c", "\x1d", "\x1e", "\x1f")


def count_words(lines: Iterable[str], settings: TextSettings) -> dict[str, int]:
    """Count the words of `lines` (one document each), in order of first appearance."""
    return _count_lines(((line, 1) for line in lines), settings)


def _count_lines(lines: Iterable[tuple[str, int]], settings: TextSettings) -> dict[str, int]:
    """count_words of lines given with how many times each occurs: (line, times)."""
    norm, pre, prefix = settings.normalizer, settings.pre_tokenizer, settings.add_prefix_space
    if pre in METASPACE:
        pieces: Counter[str] = Counter()
        _count_metaspace_pieces(lines, settings, pieces)
        return _metaspace_words(pieces)
    if pre == "byte-level":
        counts: Counter[str] = Counter()
        for line, times in lines:
            words = words_of(normalize(line, norm), pre, prefix)
            if times == 1:
                counts.update(words)
            else:
                for word, n in Counter(words).items():
                    counts[word] += n * times
        return dict(counts)
    # The other pre-tokenizers never join across whitespace, and lines are
    # separated by whitespace, so the whole text is one document to them.
    return _count_chunked(normalize("\n".join(line for line, times in lines for _ in range(times)), norm), pre)


def count_text(text: str, settings: TextSettings, repeated_lines: bool = False) -> dict[str, int]:
    """Count the words of a whole file's text (one document per line).

    `repeated_lines`: each distinct line is counted once, its words times its copies, so a text that repeats its
    lines (a mix of the Declaration holds English's articles 92 times) costs what its distinct lines cost; the
    words keep their order of first appearance (a line's first copy comes before its others). It holds a table of
    the distinct lines meanwhile: the app's texts are capped (MAX_UPLOAD_MB); the command line's files are not, and
    their lines seldom repeat."""
    if settings.pre_tokenizer == "byte-level" or settings.pre_tokenizer in METASPACE:
        lines = split_lines(text)
        return _count_lines(Counter(lines).items() if repeated_lines else ((line, 1) for line in lines), settings)
    # Line endings are whitespace to every other pre-tokenizer: no need to split.
    return _count_chunked(normalize(text, settings.normalizer), settings.pre_tokenizer)


_PARALLEL_MIN_BYTES = 2_000_000


def _add_counts(counts: dict[str, int], more: dict[str, int]) -> None:
    """Add `more` into `counts`; new words go after the known ones, in their order."""
    for word, n in more.items():
        counts[word] = counts.get(word, 0) + n


def _count_file_forked(path: str, settings: TextSettings) -> dict[str, int] | None:
    """Read, decode and count a large file in two processes, split at the line break after its middle.

    None if the second process failed (a decoding error there, say): the
    caller then reads the file the ordinary way, which reports the problem
    with its position.
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            fh.seek(size // 2)
            cut = size
            offset = size // 2
            while chunk := fh.read(65536):
                nl = chunk.find(b"\n")
                if nl >= 0:
                    cut = offset + nl + 1
                    break
                offset += len(chunk)
    except OSError as exc:
        raise WordPieceError(f"{path}: cannot be read ({exc.strerror})") from None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the part after the cut (a line break never sits inside a UTF-8 character)
        status = 1
        try:
            os.close(read_end)
            counted = _count_range(path, cut, size, settings)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(counted, out, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as inp:
        try:
            try:
                counts = _count_range(path, 0, cut, settings)
            except OSError as exc:
                raise WordPieceError(f"{path}: cannot be read ({exc.strerror})") from None
            data = inp.read()
        except BaseException:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    _add_counts(counts, pickle.loads(data))
    return counts


def _count_metaspace_pieces(lines: Iterable[tuple[str, int]], settings: TextSettings, pieces: Counter[str]) -> None:
    """Count into `pieces` what Metaspace (split, as tokenizers' pre-tokenizer) makes of each line, one document
    each: the line is normalized, every plain space (" " only: a tab, a no-break space or U+3000 stays inside its
    word) becomes ▁, and every ▁ begins a word, and a line that does not start with a space gets one ▁ before it (not under
    prepend_scheme never; "first" prepends to each line, as each is an input of its own). So a run of k spaces
    makes k - 1 words "▁". A key is the word without its ▁, or, for a first word left without one (never), the
    word after a space (a piece never holds a space): _metaspace_words reads them back. Each line comes with the
    times it occurs: its pieces count that many times."""
    never = settings.pre_tokenizer == "metaspace-never"
    norm = settings.normalizer
    for line, times in lines:
        if norm != "none":
            line = normalize(line, norm)  # (a line at a time: the bert normalizer turns line breaks into spaces)
        if not line:
            continue
        if METASPACE_MARK in line:  # a ▁ in the text is one more place a word begins (tokenizers splits on it)
            line = line.replace(METASPACE_MARK, " ")
        split = line.split(" ")
        if not split[0]:  # the line starts with a space: that space is its first ▁
            del split[0]
        elif never:
            pieces[" " + split[0]] += times
            del split[0]
        if times == 1:
            pieces.update(split)
        else:
            for piece, n in Counter(split).items():
                pieces[piece] += n * times


def _metaspace_words(pieces: Counter[str]) -> dict[str, int]:
    """The word counts of _count_metaspace_pieces' keys, in order of first appearance."""
    return {(key[1:] if key[:1] == " " else METASPACE_MARK + key): n for key, n in pieces.items()}


def _count_chunked(text: str, pre: str) -> dict[str, int]:
    """Count whitespace-separated chunks at C speed, then pre-tokenize each distinct chunk once.

    A chunk's first appearance precedes its words' first appearances, so the
    order of first appearance is the one a scan of the whole text would give.
    """
    if any(ch in text for ch in _SPLIT_ONLY_SPACE):
        return dict(Counter(words_of(text, pre)))
    return _words_of_chunks(Counter(text.split()), pre)


def _words_of_chunks(chunks: Counter[str], pre: str) -> dict[str, int]:
    """The word counts of whitespace-separated chunks counted in `chunks` (in order of first appearance)."""
    if pre == "whitespace-split":
        return dict(chunks)
    counts: dict[str, int] = {}
    # An ASCII letters-and-digits chunk is one word to every pre-tokenizer here.
    plain = pre in ("whitespace", "bert")
    for chunk, n in chunks.items():
        if plain and chunk.isalnum() and chunk.isascii():
            counts[chunk] = counts.get(chunk, 0) + n
            continue
        for word in words_of(chunk, pre):
            counts[word] = counts.get(word, 0) + n
    return counts


_BLOCK_BYTES = 1 << 18  # a large file is read, normalized and split this much at a time (256 KB: larger
# blocks leave the memory allocator holding far more than a block; 1 MB blocks peaked at about 130 MB)


def _count_range(path: str, start: int, end: int, settings: TextSettings) -> dict[str, int]:
    """The word counts of bytes start..end of a file (start and end just after line breaks)."""
    if settings.pre_tokenizer != "byte-level":
        return _count_file_streamed(path, start, end, settings)
    with open(path, "rb") as fh:  # byte-level reads whole lines as documents: the range at once
        head = fh.read(8192)
        if wide_encoding(head):
            raise _NotStreamable()  # UTF-16 or UTF-32: decode_text reads the whole file
        binary_head = _looks_binary(head)
        fh.seek(start)
        data = fh.read(end - start)
    return count_text(_decode_block(data, binary_head, start == 0), settings)


def _decode_block(data: bytes, binary_head: bool, file_start: bool) -> str:
    """A block's text, as decode_text would give it; _NotStreamable where decode_text would refuse the file."""
    if binary_head and b"\x00" in data:
        raise _NotStreamable()  # a binary file (decode_text says so, with the position)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _NotStreamable() from None
    return text[1:] if file_start and text.startswith("\ufeff") else text  # the byte order mark


class _NotStreamable(Exception):
    """A block that the streaming count cannot take as it is: the whole file is read instead."""


def _count_file_streamed(path: str, start: int, end: int, settings: TextSettings) -> dict[str, int]:
    """The word counts of bytes start..end of a file, read a block at a time (each block ends
    after a line break, which never sits inside a UTF-8 character): only one block's text and
    the counts are in memory, not the whole text and all its words.

    Raises _NotStreamable when a block does not decode, or holds characters that str.split()
    takes for whitespace although the pre-tokenizers do not: reading the whole file then
    says where the problem is, or counts the way count_text does. (Metaspace counts each block's
    lines: _count_metaspace_pieces.)
    """
    metaspace = settings.pre_tokenizer in METASPACE
    chunks: Counter[str] = Counter()
    with open(path, "rb") as fh:
        head = fh.read(8192)
        if wide_encoding(head):
            raise _NotStreamable()  # UTF-16 or UTF-32: decode_text reads the whole file
        binary_head = _looks_binary(head)  # then a NUL byte anywhere makes decode_text refuse the file
        fh.seek(start)
        left = end - start
        carry = b""
        while left > 0 or carry:
            block = fh.read(min(_BLOCK_BYTES, left)) if left > 0 else b""
            left = left - len(block) if block else 0
            data = carry + block
            carry = b""
            if left > 0:
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    carry = data  # no line break yet: read on
                    continue
                data, carry = data[:cut], data[cut:]
            text = _decode_block(data, binary_head, start == 0)
            start = -1  # later blocks are not the file's start
            if metaspace:
                _count_metaspace_pieces(((line, 1) for line in split_lines(text)), settings, chunks)
                continue
            text = normalize(text, settings.normalizer)
            if any(ch in text for ch in _SPLIT_ONLY_SPACE):
                raise _NotStreamable()
            chunks.update(text.split())
    return _metaspace_words(chunks) if metaspace else _words_of_chunks(chunks, settings.pre_tokenizer)


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {col} (byte {offset})"


# Byte order marks, longest first (UTF-32 LE's begins with UTF-16 LE's).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xef\xbb\xbf", "utf-8"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def wide_encoding(data: bytes) -> str | None:
    """"utf-16-le", "utf-16-be", "utf-32-le" or "utf-32-be" when the bytes start with that byte order mark, or
    (no mark) when their first 4 KB look like UTF-16 text: a NUL byte in most pairs, always on the same side
    (Latin text saved as UTF-16 by Windows' Notepad or PowerShell); None for anything else (UTF-8)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return None if codec == "utf-8" else codec
    head = data[:4096]
    pairs = len(head) // 2
    if pairs < 2:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    guess = ("utf-16-le" if odd >= 0.4 * pairs and even <= 0.02 * pairs else
             "utf-16-be" if even >= 0.4 * pairs and odd <= 0.02 * pairs else None)
    if guess is None:
        return None
    text = head[:pairs * 2].decode(guess, errors="replace")  # text, not a binary format with a NUL in each pair:
    controls = sum(1 for ch in text if ch < " " and ch not in "\t\n\r")  # few control characters
    return guess if controls <= 0.05 * len(text) else None


def decode_unicode(data: bytes, wide: str | None = None) -> str:
    """The text of UTF-8 bytes, or of UTF-16 or UTF-32 ones (`wide`, else wide_encoding's guess), without a byte
    order mark. Raises UnicodeDecodeError."""
    text = data.decode(wide or wide_encoding(data) or "utf-8")
    return text[1:] if text.startswith("\ufeff") else text


def decode_text(data: bytes, name: str) -> str:
    """Decode UTF-8, UTF-16 or UTF-32 bytes (a byte order mark or none), refusing binary data, with the
    position of any problem."""
    wide = wide_encoding(data)
    if wide:
        try:
            return decode_unicode(data, wide)
        except UnicodeDecodeError as exc:
            kind = wide[:6].upper()
            raise WordPieceError(
                f"{name} looks like {kind} text, but its bytes {exc.start}–{exc.end - 1} are not valid {kind}; "
                "save it as UTF-8 and try again"
            ) from None
    nul = data.find(b"\x00")
    if nul >= 0 and _looks_binary(data):
        raise WordPieceError(
            f"{name} looks like a binary file, not text (NUL byte at {_position(data, nul)})"
        )
    try:
        return decode_unicode(data, "utf-8")
    except UnicodeDecodeError as exc:
        raise WordPieceError(
            f"{name} is not valid UTF-8 text: byte 0x{data[exc.start]:02x} at "
            f"{_position(data, exc.start)}; save it as UTF-8 (or UTF-16) and try again"
        ) from None


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


STDIN = "-"  # as a corpus path: standard input, as command-line tools read it


def _check_file(path: str) -> None:
    if path == STDIN:
        return
    if not os.path.exists(path):
        raise WordPieceError(f"{path}: no such file")
    if os.path.isdir(path):
        raise WordPieceError(f"{path} is a directory; give the text files inside it")


def read_file_bytes(path: str) -> bytes:
    _check_file(path)
    if path == STDIN:
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise WordPieceError(f"{path}: cannot be read ({exc.strerror})") from None


def read_text_file(path: str) -> str:
    return decode_text(read_file_bytes(path), path)


def parse_word_counts(text: str, name: str, notes: list[str] | None = None) -> dict[str, int]:
    """Parse ``word<TAB>count`` lines; errors name the line.

    A first line whose count is not a number (``word<TAB>count``) is a header: it is skipped,
    and a sentence saying so is added to `notes`.
    """
    counts: dict[str, int] = {}
    first = True
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        header, first = first, False
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
            if header:
                if notes is not None:
                    notes.append(f"{name}, line {number}: {_show(line)} was read as a header line and skipped "
                                 "(its count is not a number)")
                continue
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


def _is_regular_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # read_text_file says why


def load_word_counts(
    corpus_paths: Iterable[str], word_count_paths: Iterable[str], settings: TextSettings, workers: int = 1,
    notes: list[str] | None = None,
) -> dict[str, int]:
    """Word counts from text files and TSV files, in the order given.

    A text file is read a block at a time (see _count_file_streamed), and with
    ``workers=2`` (POSIX, single-threaded callers such as the command line) one
    of 2 MB or more is counted in two processes, half each; the result is the
    same as counting the whole text at once, in the same order of first appearance.
    """
    counts: dict[str, int] = {}
    for path in corpus_paths:
        _check_file(path)
        found = None
        if path != STDIN and _is_regular_file(path):  # a pipe (or /dev/stdin) cannot seek: read it whole
            try:
                size = os.path.getsize(path)
                if workers > 1 and hasattr(os, "fork") and size >= _PARALLEL_MIN_BYTES:
                    found = _count_file_forked(path, settings)
                elif settings.pre_tokenizer != "byte-level" and size > 0:  # (/proc files say 0: read whole)
                    found = _count_file_streamed(path, 0, size, settings)
            except _NotStreamable:
                found = None  # read whole below: it says what is wrong, or counts the odd text
            except OSError as exc:
                raise WordPieceError(f"{path}: cannot be read ({exc.strerror})") from None
        if found is None:
            found = count_text(read_text_file(path), settings)
        if counts:
            _add_counts(counts, found)
        else:
            counts = found
    for path in word_count_paths:
        _add_counts(counts, parse_word_counts(read_text_file(path), path, notes))
    return counts
