"""WordPiece's longest-match-first split of a word in one left-to-right pass: LinMaxMatch.

The scan as it is taught (`models.WordPieceModel` with a trace, `reference`) tries the longest piece at a
position, then shorter ones: its work at each position grows with the vocabulary's longest token, and a
file whose tokens have every length from 1 to 1,000 costs about a thousand lookups a character. LinMaxMatch
(Song, Salcianu, Song, Dopson and Zhou, "Fast WordPiece Tokenization", EMNLP 2021) cuts the same pieces in
time that grows with the word alone, as Aho–Corasick's automaton matches many strings at once.

The vocabulary is kept as two tries: the pieces that begin a word (every token, whole), and the pieces
that continue one (the tokens that start with the prefix, without it). The scan walks the trie one
character at a time. When the next character leads nowhere from a node, the longest-match scan would have
cut, from the characters read since the last cut, the pieces the node lists (its *failure pops*), and the
rest of them leads to one node of the continuing pieces' trie (its *failure link*): the scan emits those
pieces, moves there, and tries the character again. Both are computed once per node, shallow nodes first;
a node whose characters cannot all be cut into pieces has no link, and the word is then unknown.

Failure pops are kept as linked cells in reverse order, (last piece, (the one before, … None)), so a node
shares the list of its parent and adds only its own pieces.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

from .trie import K, Trie

FIRST, NEXT = 0, 1  # the two roots: the pieces that begin a word, the pieces that continue one
STUCK_STEPS, STUCK_SLACK = 16, 1_000  # `_stuck_at`'s trie steps: this many a character of the word, plus the slack
BYTES_PER_CHAR = 200  # what the tries weigh a character of the vocabulary, at most (measured at their peak: 98–167)

Pops = tuple | None  # (piece, the pops before it) … None: the failure pops, last first


class LinMaxMatch:
    """The tries of one WordPiece vocabulary (trie.py), with their failure links and pops (see the module
    docstring)."""

    def __init__(self, vocab: Iterable[str], prefix: str) -> None:
        trie: Trie[str] = Trie(roots=2)
        cut = len(prefix)
        vocab = [t for t in vocab if t]
        trie.insert(FIRST, {t: t for t in vocab})
        trie.insert(NEXT, {t[cut:]: t for t in vocab if t.startswith(prefix) and len(t) > cut})

        first_code, first_child, more, token = trie.first_code, trie.first_child, trie.more, trie.value
        parent, code, depth = trie.parent, trie.code, trie.depth
        fail = array("i", [-1]) * trie.nodes
        pops: list[Pops] = [None] * trie.nodes
        for v in sorted(range(2, trie.nodes), key=depth.__getitem__):  # shallow nodes first
            if v in token:  # the scan cuts the token this node spells, and goes on with nothing read
                fail[v], pops[v] = NEXT, (token[v], None)
                continue
            u, c = parent[v], code[v]
            z, acc = fail[u], pops[u]  # the parent's cut, then what its link's node cuts, … until c leads on
            while z >= 0:
                child = first_child[z] if first_code[z] == c else more.get(z * K + c, -1)
                if child >= 0:
                    fail[v], pops[v] = child, acc
                    break
                for piece in _forward(pops[z]):
                    acc = (piece, acc)
                z = fail[z]
        trie.forget_building()
        self.trie, self.fail, self.pops, self.cut = trie, fail, pops, cut
        self.nodes = trie.nodes

    def split(self, word: str) -> tuple[list[str], tuple[int, bool]]:
        """The longest-match-first pieces of `word`, and (-1, True); or, when it cannot be cut into pieces, the
        pieces before the scan stops and (the position where no piece matches, True), or (a position the
        scan stops after, False) when finding it would cost more than its bound (`_stuck_at`)."""
        trie, fail, pops = self.trie, self.fail, self.pops
        first_code, first_child, more = trie.first_code, trie.first_child, trie.more
        out: list[str] = []
        u = FIRST
        for ch in word:
            c = ord(ch)
            v = first_child[u] if first_code[u] == c else more.get(u * K + c, -1)
            while v < 0:
                if fail[u] < 0:
                    return out, self._stuck_at(word, out)
                out.extend(_forward(pops[u]))
                u = fail[u]
                v = first_child[u] if first_code[u] == c else more.get(u * K + c, -1)
            u = v
        while u > NEXT:  # the word's end: cut what was read since the last cut
            if fail[u] < 0:
                return out, self._stuck_at(word, out)
            out.extend(_forward(pops[u]))
            u = fail[u]
        return out, (-1, True)

    def _stuck_at(self, word: str, out: list[str]) -> tuple[int, bool]:
        """Where the longest-match scan finds no piece, resumed after the pieces already cut (`out`): each
        position's longest piece is the deepest token on the trie's path from it. Bounded by STUCK_STEPS a
        character of the word (a walk may read up to the longest token, at every position): past it, the
        position where the cut pieces end, and False (the scan stops somewhere after it)."""
        child, token = self.trie.child, self.trie.value
        at = len(out[0]) + sum(len(t) - self.cut for t in out[1:]) if out else 0
        root = FIRST if at == 0 else NEXT
        steps = STUCK_STEPS * len(word) + STUCK_SLACK
        start = at
        while True:
            node, end, j = root, -1, at
            while j < len(word):
                node = child(node, ord(word[j]))
                if node < 0:
                    break
                j += 1
                if node in token:
                    end = j
            steps -= j - at + 1
            if end < 0:
                return at, True
            if steps < 0:
                return start, False
            at, root = end, NEXT


def _forward(cells: Pops) -> list[str]:
    """The pieces of a reversed cell list, first to last."""
    pieces: list[str] = []
    while cells is not None:
        pieces.append(cells[0])
        cells = cells[1]
    pieces.reverse()
    return pieces
