"""A prefix tree of strings over code points, compact enough for a vocabulary of a million characters.

Nodes are numbers; the first `roots` of them are roots (LinMaxMatch keeps two tries in one: the pieces that
begin a word and the pieces that continue one). A node's first child is kept in two arrays (its character, its
node); only its other children go in a dict keyed node × K + character. Most nodes of a vocabulary's trie have
one child (the tails of long tokens), so the dict holds about one entry per token, not per character.

Texts are inserted in sorted order: a text shares with the one before it their common beginning, whose nodes
are on the path kept, and adds a node per other character (no lookup per character).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Generic, TypeVar

K = 0x110000  # an edge's key: node × K + the character's code point (every code point is below K)

V = TypeVar("V")


class Trie(Generic[V]):
    """Nodes, their children, and the value of each node that ends an inserted text (`value`)."""

    def __init__(self, roots: int = 1) -> None:
        self.first_code = array("i", [-1]) * roots  # a node's first child's code point, -1 when it has none
        self.first_child = array("i", [-1]) * roots
        self.more: dict[int, int] = {}  # node × K + code point → child, for the children after the first
        self.parent = array("i", [-1]) * roots
        self.code = array("i", [0]) * roots  # the code point of the edge into a node
        self.depth = array("i", [0]) * roots
        self.value: dict[int, V] = {}  # node → the value of the text it ends

    @property
    def nodes(self) -> int:
        return len(self.first_code)

    def insert(self, root: int, texts: Mapping[str, V]) -> None:
        """Each text under `root` (its node gets the text's value)."""
        first_code, first_child, more = self.first_code, self.first_child, self.more
        parent, code, depth = self.parent, self.code, self.depth
        path = [root]  # the nodes of the text before, by depth
        before = ""
        for text in sorted(texts):
            common = _common_length(before, text)
            del path[common + 1:]
            node = path[-1]
            for ch in text[common:]:
                c, child = ord(ch), len(parent)
                if first_code[node] < 0:
                    first_code[node], first_child[node] = c, child
                else:
                    more[node * K + c] = child
                parent.append(node)
                code.append(c)
                depth.append(len(path))
                first_code.append(-1)
                first_child.append(-1)
                path.append(child)
                node = child
            self.value[node] = texts[text]
            before = text

    def child(self, node: int, c: int) -> int:
        """The node the character with code point c leads to from `node`, or -1."""
        if self.first_code[node] == c:
            return self.first_child[node]
        return self.more.get(node * K + c, -1)

    def forget_building(self) -> None:
        """Let go of what only building needed (parents, edge characters, depths)."""
        self.parent = self.code = self.depth = array("i")


def _common_length(a: str, b: str) -> int:
    """How many characters a and b begin with alike (a binary search of slices, compared in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low
