"""SentencePiece's normalization map (a file's ``Precompiled`` normalizer: T5, ALBERT, XLNet, mBART, XLM-R).

A SentencePiece model carries its normalization as a compiled table, ``precompiled_charsmap``: a little-endian
u32 (the size of a trie in bytes), the trie (a darts-clone double array of u32 units over UTF-8 bytes), then the
replacement strings, each ended by a zero byte. A key found in the trie gives the offset of its replacement.

tokenizers applies it in an odd way, which this module copies because its encodings depend on it:

- the text is cut into extended grapheme clusters;
- a cluster shorter than 6 bytes is looked up whole, and if *any prefix* of it is a key, the whole cluster is
  replaced by the replacement of the *shortest* such prefix (so a full-width ``Ａ`` followed by a combining accent
  becomes ``A``, the accent gone);
- otherwise each character of the cluster is looked up on its own, kept when it is not a key.

Offsets follow tokenizers' change-based alignment (`normalizers._aligned`): a replacement's characters stand for
the characters they replace; extra ones are insertions, a shorter replacement removes the rest.
"""

from __future__ import annotations

import sys
from array import array

from .errors import WordPieceError

SHORT_CLUSTER = 6  # bytes: a cluster shorter than this is looked up whole (tokenizers' `grapheme.len() < 6`)


class Precompiled:
    """A parsed ``precompiled_charsmap``."""

    def __init__(self, charsmap: bytes) -> None:
        if len(charsmap) < 4:
            raise WordPieceError("a Precompiled normalizer's map is shorter than its 4-byte header")
        size = int.from_bytes(charsmap[:4], "little")
        units = size // 4
        if units < 1 or 4 + 4 * units > len(charsmap):
            raise WordPieceError(f"a Precompiled normalizer's map says its trie holds {size:,} bytes, but the map "
                                 f"holds {len(charsmap) - 4:,} after its header")
        trie = array("I")
        trie.frombytes(charsmap[4:4 + 4 * units])
        if sys.byteorder == "big":
            trie.byteswap()
        self.trie = trie
        self.normalized = charsmap[4 + 4 * units:]
        try:
            self.normalized.decode("utf-8")
        except UnicodeDecodeError:
            raise WordPieceError("a Precompiled normalizer's replacement strings are not UTF-8") from None
        self._found: dict[str, str | None] = {}

    def _unit(self, position: int) -> int:
        if position >= len(self.trie):
            raise WordPieceError("this file's Precompiled normalizer map is malformed (its trie points outside "
                                 "itself); tokenizers stops on it too")
        return self.trie[position]

    def _first_value(self, key: bytes) -> int | None:
        """darts-clone's common prefix search, stopped at the first (shortest) prefix that is a key."""
        unit = self._unit(0)
        node = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        for byte in key:
            if byte == 0:
                break
            node ^= byte
            unit = self._unit(node)
            if unit & ((1 << 31) | 0xFF) != byte:
                return None
            node ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                return self._unit(node) & ((1 << 31) - 1)
        return None

    def transform(self, chunk: str) -> str | None:
        """The replacement of the shortest prefix of `chunk` that is a key, or None."""
        if chunk in self._found:
            return self._found[chunk]
        index = self._first_value(chunk.encode("utf-8"))
        out: str | None = None
        if index is not None:
            if index > len(self.normalized):
                raise WordPieceError("this file's Precompiled normalizer map is malformed (a key points past its "
                                     "replacement strings); tokenizers stops on it too")
            end = self.normalized.find(b"\0", index)
            try:
                out = self.normalized[index:end if end >= 0 else len(self.normalized)].decode("utf-8")
            except UnicodeDecodeError:
                raise WordPieceError("this file's Precompiled normalizer map is malformed (a replacement starts "
                                     "inside a character); tokenizers stops on it too") from None
        if len(self._found) < 100_000:
            self._found[chunk] = out
        return out

    def stream(self, text: str) -> list[tuple[str, int]]:
        """The normalized text as (character, change) pairs, as tokenizers' Precompiled builds them."""
        import regex

        out: list[tuple[str, int]] = []
        for cluster in regex.findall(r"\X", text):
            if len(cluster.encode("utf-8")) < SHORT_CLUSTER and (norm := self.transform(cluster)) is not None:
                _replace(out, cluster, norm)
                continue
            for ch in cluster:
                if (norm := self.transform(ch)) is not None:
                    _replace(out, ch, norm)
                else:
                    out.append((ch, 0))
        return out

    def apply(self, chars: list[str], sources: list[int]) -> tuple[list[str], list[int]]:
        from .normalizers import _aligned

        return _aligned(self.stream("".join(chars)), sources) if chars else (chars, sources)


def _replace(out: list[tuple[str, int]], old: str, new: str) -> None:
    """tokenizers' `replace`: the new characters replace the old; extra ones are insertions (the last ones), and
    a shorter replacement's last character (or the one before, if it is empty) removes the rest."""
    diff = len(new) - len(old)
    out.extend((c, 0) for c in new)
    if diff > 0:
        for k in range(len(out) - diff, len(out)):
            out[k] = (out[k][0], 1)
    elif diff < 0 and out:
        ch, change = out[-1]
        out[-1] = (ch, change + diff)
