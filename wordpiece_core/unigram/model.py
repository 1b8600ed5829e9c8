"""The Unigram model: a word's most probable split over a vocabulary of pieces with log-probabilities, with the
lattice as its trace (every piece that covers each position, and the best path).

It splits as tokenizers' `Unigram` does (and as the course's `encode_word`, whose tie rule is the same):

- positions left to right, at each the pieces that start there, shorter first; a piece ending at a position
  replaces the best path found so far there only when its path scores strictly more (the sum of
  log-probabilities), so on a tie the path found first stays;
- a character that no piece of one character covers gets the unknown piece, scored the vocabulary's lowest
  score minus 10 (`UNK_PENALTY`), so a path through it usually loses (not always: it is one step, where
  the alternative may need several); a model without an unknown piece cannot encode a word with such a
  character at all;
- tokens with the unknown piece's id next to each other (uncovered characters, and the unknown piece
  itself where the text spells it) become one token, which shows their text and has that id
  (tokenizers' `fuse_unk`, always on for Unigram); with `byte_fallback` and all <0xXX> pieces in the
  vocabulary, that text becomes its UTF-8 bytes' pieces instead;
- a piece listed twice is its last copy (its id and score), as tokenizers reads the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from ..errors import WordPieceError
from ..models import BUILDING, TRACED_CHARS, CachedModel, WordResult
from ..trie import K, Trie

UNK_PENALTY = 10.0  # tokenizers' K_UNK_PENALTY
# An untraced word's trie walks may take this many steps a character on average (plus the slack, for short words);
# a real vocabulary takes a few (its pieces that begin at a position), the worst file up to 1,000.
LATTICE_STEPS_PER_CHAR = 100
LATTICE_STEPS_SLACK = 10_000
TRIE_BYTES_PER_CHAR = 200  # what the trie of the pieces weighs a character, at most (as LinMaxMatch's tries)


@dataclass(frozen=True)
class LatticeEdge:
    """A piece covering word[start:end] with its log-probability; `best` when it lies on the best path."""

    start: int
    end: int
    piece: str
    score: float
    unknown: bool = False
    best: bool = False


class UnigramModel(CachedModel):
    kind = "unigram"

    def __init__(self, pieces: list[tuple[str, float]], unk_id: int | None = None, byte_fallback: bool = False) -> None:
        self.pieces = pieces
        self.vocab = {piece: i for i, (piece, _) in enumerate(pieces)}  # a repeated piece: its last copy
        self.scores = {piece: pieces[i][1] for piece, i in self.vocab.items()}
        if unk_id is not None and not 0 <= unk_id < len(pieces):
            raise WordPieceError(f"the Unigram model's unk_id {unk_id} is not one of its {len(pieces):,} pieces")
        self.unk_id = unk_id
        self.unk_token = pieces[unk_id][0] if unk_id is not None else None
        self.byte_fallback = byte_fallback
        self.min_score = min((score for _, score in pieces), default=0.0)
        self.unk_score = self.min_score - UNK_PENALTY
        self.longest = max((len(piece) for piece, _ in pieces), default=0)
        # The traced lattice tries only the lengths pieces have, shorter first: the same edges as trying every
        # length. Untraced, the pieces starting at a position are found by walking a trie of the pieces
        # (trie.py, made at the first untraced word): a step a character, however many lengths the pieces have.
        self.lengths = sorted({len(piece) for piece, _ in pieces if piece})
        self._trie: Trie[float] | None = None
        self._cache: dict[str, WordResult] = {}

    def tokenize(self, word: str, trace: bool = False) -> WordResult:
        if not trace:
            return self._untraced(word)
        if len(word) > TRACED_CHARS:
            # The lattice of the first characters only (it grows with the vocabulary); the path it marks is the
            # best split of those characters, which may end differently from the whole word's.
            head = self._tokenize(word[:TRACED_CHARS], True)
            return replace(self._tokenize(word, False), lattice=head.lattice, traced_chars=TRACED_CHARS)
        return self._tokenize(word, True)

    def edges(self, word: str) -> Iterator[LatticeEdge]:
        """The word's lattice: every piece that starts at each position, by start, then shorter first, and the
        unknown piece where no single character is one."""
        scores, n = self.scores, len(word)
        for start in range(n):
            single = False
            for length in self.lengths:
                end = start + length
                if end > n:
                    break
                piece = word[start:end]
                score = scores.get(piece)
                if score is not None:
                    single = single or end == start + 1
                    yield LatticeEdge(start, end, piece, score)
            if not single:
                yield LatticeEdge(start, start + 1, self.unk_token or "", self.unk_score, unknown=True)

    @property
    def index_bytes(self) -> int:
        """What the trie of the pieces weighs (made or not), at most (trie.py's measure)."""
        return TRIE_BYTES_PER_CHAR * sum(map(len, self.scores))

    def _tokenize(self, word: str, trace: bool) -> WordResult:
        n = len(word)
        if trace:
            edges = list(self.edges(word))
            path = self._best_path(edges, n)
            uncovered = any(edge.unknown for edge in edges)
        else:
            path, uncovered = self._best_path_by_trie(word)
        if self.unk_id is None and uncovered:
            raise WordPieceError(f"the word {word[:40]!r} cannot be covered and the Unigram model has no unk_id")
        tokens: list[str] = []
        spans: list[tuple[int, int]] = []
        after_unknown = False
        for edge in path:
            unknown = edge.unknown or (self.unk_id is not None and self.vocab.get(edge.piece) == self.unk_id)
            if unknown and after_unknown:  # tokens of the unknown id side by side: one token
                tokens[-1] += word[edge.start:edge.end]
                spans[-1] = (spans[-1][0], edge.end)
            else:
                tokens.append(word[edge.start:edge.end] if edge.unknown else edge.piece)
                spans.append((edge.start, edge.end))
            after_unknown = unknown
        tokens, spans = self._unknowns(tokens, spans)
        lattice: tuple[LatticeEdge, ...] = ()
        if trace:
            on_path = {id(e) for e in path}
            lattice = tuple(replace(e, best=True) if id(e) in on_path else e for e in edges)
        return WordResult(word, tuple(tokens), tuple(spans), lattice=lattice,
                          unknown=any(edge.unknown for edge in path))

    @staticmethod
    def _best_path(edges: list[LatticeEdge], n: int) -> list[LatticeEdge]:
        """The best path through the lattice's edges (by start, then shorter first: the order tokenizers walks
        them in; a later edge replaces the best into its end only when it scores strictly more)."""
        best_score: list[float | None] = [0.0] + [None] * n
        best_edge: list[LatticeEdge | None] = [None] * (n + 1)
        for edge in edges:
            here = best_score[edge.start]
            assert here is not None  # every position is reached: one character, or the unknown piece
            candidate, there = here + edge.score, best_score[edge.end]
            if there is None or candidate > there:
                best_score[edge.end] = candidate
                best_edge[edge.end] = edge
        path: list[LatticeEdge] = []
        end = n
        while end > 0:
            last = best_edge[end]
            assert last is not None
            path.append(last)
            end = last.start
        path.reverse()
        return path

    def _best_path_by_trie(self, word: str) -> tuple[list[LatticeEdge], bool]:
        """`_best_path` of the word's lattice, its edges found by walking the trie of the pieces from each position
        (in the same order) and never made; and whether some position has no piece of one character.

        A walk costs a step a character it reads; a word whose walks take more than LATTICE_STEPS_PER_CHAR steps
        a character on average (a file whose pieces are runs of one letter of every length, and a run typed) is
        refused in one line, so a text's work is bounded by its length whatever the file holds."""
        if self._trie is None:
            with BUILDING:
                if self._trie is None:
                    trie: Trie[float] = Trie()
                    trie.insert(0, {piece: score for piece, score in self.scores.items() if piece})
                    trie.forget_building()
                    self._trie = trie
        first_code, first_child, more, score_at = self._trie.first_code, self._trie.first_child, self._trie.more, \
            self._trie.value
        n, unk_score = len(word), self.unk_score
        best: list[float | None] = [0.0] + [None] * n
        came_from, via_piece = [0] * (n + 1), [True] * (n + 1)
        steps = LATTICE_STEPS_PER_CHAR * n + LATTICE_STEPS_SLACK
        uncovered = False
        for start in range(n):
            here = best[start]
            assert here is not None  # every position is reached: one character, or the unknown piece
            node, end, single = 0, start, False
            while end < n:
                c = ord(word[end])
                node = first_child[node] if first_code[node] == c else more.get(node * K + c, -1)
                if node < 0:
                    break
                end += 1
                score = score_at.get(node)
                if score is not None:
                    single = single or end == start + 1
                    candidate, there = here + score, best[end]
                    if there is None or candidate > there:
                        best[end], came_from[end], via_piece[end] = candidate, start, True
            steps -= end - start
            if steps < 0:
                raise WordPieceError(
                    f"the word {word[:20]!r}… ({n:,} characters) holds more pieces of this vocabulary than this app "
                    f"encodes: at most {LATTICE_STEPS_PER_CHAR} a character on average (this vocabulary's pieces run "
                    f"up to {self.longest:,} characters)")
            if not single:
                uncovered = True
                candidate, there = here + unk_score, best[start + 1]
                if there is None or candidate > there:
                    best[start + 1], came_from[start + 1], via_piece[start + 1] = candidate, start, False
        path: list[LatticeEdge] = []
        end = n
        while end > 0:
            start = came_from[end]
            if via_piece[end]:
                piece = word[start:end]
                path.append(LatticeEdge(start, end, piece, self.scores[piece]))
            else:
                path.append(LatticeEdge(start, end, self.unk_token or "", unk_score, unknown=True))
            end = start
        path.reverse()
        return path, uncovered

    def _unknowns(self, tokens: list[str], spans: list[tuple[int, int]]) -> tuple[list[str], list[tuple[int, int]]]:
        """With byte_fallback, an unknown run as its UTF-8 bytes' pieces (when all are in the vocabulary)."""
        if not self.byte_fallback:
            return tokens, spans
        out_tokens: list[str] = []
        out_spans: list[tuple[int, int]] = []
        for token, span in zip(tokens, spans):
            pieces = [f"<0x{byte:02X}>" for byte in token.encode("utf-8")] if token not in self.vocab else []
            if pieces and all(p in self.vocab for p in pieces):
                out_tokens += pieces
                out_spans += [span] * len(pieces)
            else:
                out_tokens.append(token)
                out_spans.append(span)
        return out_tokens, out_spans

    def id_of(self, token: str) -> int | None:
        """A token's id: an unknown run's is the unknown piece's."""
        return self.vocab.get(token, self.unk_id)
