"""Models: how one pre-tokenized word becomes tokens, with a trace of how.

- `WordPieceModel`: greedy longest-match-first (the course, the tutorial “WordPiece from scratch”, the likelihood article). At each
  position the longest piece in the vocabulary wins; pieces after the first
  carry the ``##`` prefix. If some position has no piece at all, the WHOLE word
  becomes one ``[UNK]`` (the course: "bum" is ``[UNK]``, not ``b ##u [UNK]``), as
  does a word longer than ``max_input_chars_per_word`` characters.
- `BPEModel`: merges applied by rank, as Hugging Face's BPE does: repeatedly the
  lowest-rank pair present, leftmost first. A character missing from the
  vocabulary becomes ``[UNK]`` (one per character) when ``[UNK]`` is in the
  vocabulary, and is dropped otherwise (as Hugging Face does). The course's
  replay, "apply each merge in learned order", is `apply_in_order`; for merges a
  trainer produced the two always agree. A hand-made list can make them differ:
  with merges [a+bc, b+c], "abc" becomes ``abc`` by rank (b+c first, then a+bc,
  whose rank is lower) but ``a bc`` in order (a+bc is looked for before bc exists).

Each returns `WordResult`: tokens, their (start, end) character spans inside the
word, and the trace. The Unigram model (Viterbi over a word's lattice) is unigram/model.py's
`UnigramModel`, built on the same base and returning the same `WordResult`.
"""

from __future__ import annotations

import heapq
import threading
from dataclasses import dataclass, field, replace

from .errors import WordPieceError
from .special_tokens import UNK
from .reference import new_token
from .replay import merge_everywhere
from .wordpiece_match import BYTES_PER_CHAR, LinMaxMatch

# Results kept per model for words seen before (as tokenizers caches them): words of at most CACHE_WORD_CHARS
# characters, CACHE_CHARS characters of them in all. A kept character holds a token and a span at most, about
# CACHE_BYTES_PER_CHAR bytes (measured: 85 for BPE, 127 for WordPiece with ##): the cache is bounded by CACHE_BYTES
# (32 MB) whatever is typed (before: 100,000 words of any length, about 2 GB of 201-letter words).
CACHE_WORD_CHARS = 64
CACHE_CHARS = 200_000
CACHE_BYTES_PER_CHAR = 160
CACHE_BYTES = CACHE_CHARS * CACHE_BYTES_PER_CHAR
SCAN_CHARS = 2_000  # the untraced scan's characters per position at most; a vocabulary that needs more: LinMaxMatch
# Held while a model builds the index it encodes with (LinMaxMatch's tries, Unigram's trie): one build at a time, so
# sessions that meet a new tokenizer together do not each build it (its peak is counted once, in the store).
BUILDING = threading.Lock()
TRACED_CHARS = 200  # a longer word's trace covers its first TRACED_CHARS characters (its tokens, all of it)


@dataclass(frozen=True)
class ScanStep:
    """WordPiece: one position of the longest-match scan."""

    position: int  # character index in the word
    tried: tuple[str, ...]  # candidates looked up, longest first
    found: str | None  # the piece taken, or None: the word becomes [UNK]


@dataclass(frozen=True)
class MergeApplied:
    """BPE: one merge applied while encoding a word."""

    rank: int
    left: str
    right: str
    new_token: str
    split_after: tuple[str, ...]


@dataclass(frozen=True)
class WordResult:
    word: str
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]  # character spans inside `word`
    scan: tuple[ScanStep, ...] = field(default=())
    merges: tuple[MergeApplied, ...] = field(default=())
    initial_split: tuple[str, ...] = field(default=())
    unknown: bool = False  # WordPiece: the whole word became [UNK]
    reason: str = ""
    traced_chars: int = 0  # when the trace covers only the word's first characters (TRACED_CHARS): how many
    lattice: tuple = ()  # Unigram: every piece covering part of the word (unigram/model.py's LatticeEdge), the best path marked


def _with_bounded_trace(model: CachedModel, word: str) -> WordResult:
    """A long word's tokens, with the trace of its first TRACED_CHARS characters only: a trace grows with
    the square of the word's length (BPE keeps the split after each merge), the tokens do not."""
    result = model.tokenize(word)
    head = model.tokenize(word[:TRACED_CHARS], True)
    return replace(result, scan=head.scan, merges=head.merges, initial_split=head.initial_split,
                   traced_chars=TRACED_CHARS)


class CachedModel:
    """What every model shares (WordPiece's, BPE's, unigram/model.py's): a cache of the words seen before
    (results without a trace)."""

    _cache: dict[str, WordResult]
    _cached_chars: int = 0

    def _remember(self, word: str, result: WordResult) -> None:
        """Keep a word's untraced result, while the cache has room (see CACHE_CHARS)."""
        if len(word) <= CACHE_WORD_CHARS and self._cached_chars + len(word) <= CACHE_CHARS:
            self._cache[word] = result
            self._cached_chars += len(word)

    @property
    def cached_words(self) -> frozenset[str]:
        """The words whose untraced results are kept (at most CACHE_CHARS characters, each of at most
        CACHE_WORD_CHARS)."""
        return frozenset(self._cache)

    @property
    def cached_chars(self) -> int:
        """The characters of the words kept, counted as they are added."""
        return self._cached_chars

    @property
    def index_bytes(self) -> int:
        """What the model's own index for encoding weighs beyond its vocabulary, at most (none but WordPiece's)."""
        return 0

    def tokenize(self, word: str, trace: bool = False) -> WordResult:
        raise NotImplementedError

    def _tokenize(self, word: str, trace: bool) -> WordResult:
        raise NotImplementedError

    def _untraced(self, word: str) -> WordResult:
        """The word's tokens without a trace, from the cache when seen before (the first words seen are kept)."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        result = self._tokenize(word, False)
        self._remember(word, result)
        return result

    def tokenize_all(self, words: list[str], trace: bool = False) -> list[WordResult]:
        """`tokenize` for many words at once (one call: the cache is read in a loop)."""
        if trace:
            return [self.tokenize(word, True) for word in words]
        cached, tokenize = self._cache.get, self.tokenize
        return [cached(word) or tokenize(word) for word in words]


class WordPieceModel(CachedModel):
    kind = "wordpiece"

    def __init__(self, vocab: dict[str, int], unk_token: str = UNK, prefix: str = "##",
                 max_input_chars_per_word: int = 100, strict_unk: bool = True) -> None:
        self.vocab = vocab
        self.unk_token = unk_token
        self.prefix = prefix
        self.max_chars = max_input_chars_per_word
        # No piece longer than the vocabulary's longest token can match, so the scan tries none (the
        # tokens are the same). The trace tries every length, as the algorithm is taught (it covers a word's
        # first TRACED_CHARS characters only: tokenize). Untraced, the scan tries only the lengths some token
        # has, longest first (a word's first piece; a piece after it, counted without the prefix): a
        # position costs at most the characters of those lengths (a few hundred for a vocabulary of words). A
        # vocabulary whose lengths add up to more than SCAN_CHARS (a file with tokens of every length up
        # to 1,000 costs 500,000) is scanned by LinMaxMatch (wordpiece_match.py) instead, in time that
        # grows with the word alone: the same pieces, from tries made at its first untraced word.
        self.longest = max(map(len, vocab), default=0)
        self.first_lengths = sorted({len(t) for t in vocab if t}, reverse=True)  # ("" matches nothing)
        self.next_lengths = sorted({len(t) - len(prefix) for t in vocab if t.startswith(prefix) and len(t) > len(prefix)},
                                   reverse=True)
        self.linear = sum(self.first_lengths) + sum(self.next_lengths) > SCAN_CHARS
        self.vocab_chars = sum(map(len, vocab)) if self.linear else 0
        self._matcher: LinMaxMatch | None = None
        # Hugging Face refuses to encode an uncoverable word when [UNK] is missing from the
        # vocabulary; with strict_unk=False the word still becomes [UNK] (with no id), which
        # is what a viewer wants to show for a toy vocabulary without special tokens.
        self.strict_unk = strict_unk
        self._cache: dict[str, WordResult] = {}

    def _unk(self, word: str, scan: tuple[ScanStep, ...], reason: str) -> WordResult:
        if self.strict_unk and self.unk_token not in self.vocab:
            raise WordPieceError(
                f"the word {word[:40]!r} cannot be covered and the vocabulary has no {self.unk_token} token"
            )
        return WordResult(word, (self.unk_token,), ((0, len(word)),), scan=scan, unknown=True, reason=reason)

    def tokenize(self, word: str, trace: bool = False) -> WordResult:
        if not trace:
            return self._untraced(word)
        if len(word) > TRACED_CHARS and len(word) <= self.max_chars:
            return _with_bounded_trace(self, word)
        return self._tokenize(word, True)

    @property
    def index_bytes(self) -> int:
        """What LinMaxMatch's tries weigh (made or not), at most (0 when the scan needs none): the store
        counts it with the vocabulary."""
        return BYTES_PER_CHAR * self.vocab_chars

    def _tokenize(self, word: str, trace: bool) -> WordResult:
        if len(word) > self.max_chars:
            return self._unk(word, (), f"longer than {self.max_chars} characters")
        if not trace and self.linear:
            return self._matched(word)
        vocab, prefix = self.vocab, self.prefix
        tokens: list[str] = []
        spans: list[tuple[int, int]] = []
        scan: list[ScanStep] = []
        start, n = 0, len(word)
        reach = self.longest - len(prefix)  # the most characters a piece after the first can hold
        while start < n:
            # Longest first: traced, every length (as the algorithm is taught); untraced, only the lengths tokens
            # have (the same pieces: a length no token has matches nothing).
            most = min(n - start, self.longest if start == 0 else reach)
            lengths = (range(most, 0, -1) if trace else
                       (k for k in (self.first_lengths if start == 0 else self.next_lengths) if k <= most))
            found, end = None, start
            tried: list[str] = []
            for length in lengths:
                end = start + length
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                if trace:
                    tried.append(piece)
                if piece in vocab:
                    found = piece
                    break
            if trace:
                scan.append(ScanStep(start, tuple(tried), found))
            if found is None:
                return self._unk(word, tuple(scan), _no_match(word, start))
            tokens.append(found)
            spans.append((start, end))
            start = end
        return WordResult(word, tuple(tokens), tuple(spans), scan=tuple(scan))

    def _matched(self, word: str) -> WordResult:
        """The same pieces as the taught scan, without its trace, by LinMaxMatch."""
        if self._matcher is None:
            with BUILDING:  # (once: two sessions building it together would weigh twice)
                if self._matcher is None:
                    self._matcher = LinMaxMatch(self.vocab, self.prefix)
        tokens, (stuck, exact) = self._matcher.split(word)
        if stuck >= 0:
            return self._unk(word, (), _no_match(word, stuck) if exact else
                             "the vocabulary's pieces do not cover it" + (f" past character {stuck}" if stuck else ""))
        return WordResult(word, tuple(tokens), tuple(_spans_of(tokens, len(self.prefix))))


def _no_match(word: str, start: int) -> str:
    """Why a word became [UNK]: where the scan found no piece."""
    return f"nothing in the vocabulary matches from character {start + 1} ({word[start]!r}) on"


def _spans_of(symbols: list[str], prefix_len: int) -> list[tuple[int, int]]:
    """The character spans of a word's tokens when each character became one symbol: every token
    after the first carries the prefix once (BPE with a prefix), so it covers len(token) - prefix_len."""
    spans = []
    start = 0
    for i, symbol in enumerate(symbols):
        end = start + len(symbol) - (prefix_len if i else 0)
        spans.append((start, end))
        start = end
    return spans


class BPEModel(CachedModel):
    kind = "bpe"

    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]], unk_token: str | None = None,
                 prefix: str | None = None, fuse_unk: bool = False, ignore_merges: bool = False,
                 suffix: str | None = None, byte_fallback: bool = False) -> None:
        self.byte_fallback = byte_fallback  # an unknown character as its UTF-8 bytes' tokens <0xXX>, when all exist
        self.suffix = suffix or None  # end_of_word_suffix: a word's last character is spelled with it (CharBPE's </w>)
        self.fuse_unk = fuse_unk  # consecutive unknown characters become one [UNK] (tokenizers' fuse_unk)
        self.ignore_merges = ignore_merges  # a word in the vocabulary is one token, without merging (ignore_merges)
        self.vocab = vocab
        self.merges = list(merges)
        self.ranks = {pair: i for i, pair in enumerate(self.merges)}
        self.unk_token = unk_token if unk_token in vocab else None
        self.prefix = prefix or None
        self.joined = {pair: new_token(pair[0], pair[1], self.prefix) for pair in self.merges}  # pair -> its token
        self._cache: dict[str, WordResult] = {}

    def initial(self, word: str) -> tuple[list[str], list[tuple[int, int]] | None]:
        """Characters (prefixed after the first), unknown ones as [UNK] or dropped; and each
        symbol's character span, or None when every character is known (a symbol each)."""
        symbols = [word[0]] + [self.prefix + ch for ch in word[1:]] if self.prefix and word else list(word)
        if self.suffix is None and all(map(self.vocab.__contains__, symbols)):  # the common case: all known
            return symbols, None
        symbols = []
        spans: list[tuple[int, int]] = []
        unknown_before = False  # the character before was unknown (and became [UNK])
        last = len(word) - 1
        for i, ch in enumerate(word):
            s = ch if (i == 0 or not self.prefix) else self.prefix + ch
            if i == last and self.suffix is not None:
                s += self.suffix
            if s in self.vocab:
                symbols.append(s)
                unknown_before = False
            elif self.byte_fallback and all(f"<0x{byte:02X}>" in self.vocab for byte in s.encode("utf-8")):
                for byte in s.encode("utf-8"):  # the piece as written: a prefix's or suffix's bytes too, as tokenizers
                    symbols.append(f"<0x{byte:02X}>")
                    spans.append((i, i + 1))
                unknown_before = False
                continue
            elif self.unk_token is not None:
                if self.fuse_unk and unknown_before:
                    spans[-1] = (spans[-1][0], i + 1)  # fused with the unknown character before it
                    continue
                symbols.append(self.unk_token)
                unknown_before = True
            else:
                continue
            spans.append((i, i + 1))
        return symbols, spans

    def tokenize(self, word: str, trace: bool = False) -> WordResult:
        """Merges by rank: repeatedly the lowest-rank pair present, the leftmost among equals.

        The word's symbols form a linked list, and the pairs' (rank, position) sit in a heap (as tokenizers'
        `Word::merge_all` keeps them): a merge joins two symbols and pushes only the two pairs beside the new
        one, so a word of n characters costs about n log n, not n² (a 20,000-letter word took 19 s). An entry
        whose pair has changed since it was pushed is skipped when it comes up. A word seen before comes from
        the cache."""
        if not trace:
            cached = self._cache.get(word)
            if cached is not None:
                return cached
        elif len(word) > TRACED_CHARS:
            return _with_bounded_trace(self, word)
        if self.ignore_merges and word in self.vocab:
            return WordResult(word, (word,), ((0, len(word)),), initial_split=(word,))
        symbols, spans = self.initial(word)
        # Every character known (spans is None, the common case): the spans follow from the
        # tokens' lengths at the end. Otherwise they are merged along with the tokens.
        first = tuple(symbols)
        applied: list[MergeApplied] = []
        rank_of, joined = self.ranks.get, self.joined
        n = len(symbols)
        after = list(range(1, n + 1))  # after[i]: the position of the symbol after the one at i (n: none)
        before = list(range(-1, n - 1))  # before[i]: the one before it (-1: none)
        live: list[str | None] = list(symbols)  # the symbol at each position; None once merged into its left
        heap = [(rank, i) for i, rank in enumerate(map(rank_of, zip(symbols, symbols[1:])))
                if rank is not None]
        heapq.heapify(heap)
        while heap:
            rank, i = heapq.heappop(heap)
            a, j = live[i], after[i]
            if a is None or j >= n:
                continue  # this position was merged away, or is now the word's end
            b = live[j]
            assert b is not None
            if rank_of((a, b)) != rank:
                continue  # the pair here changed since this entry was pushed
            new = live[i] = joined[a, b]
            live[j] = None
            after[i] = after[j]
            if after[i] < n:
                before[after[i]] = i
            if spans is not None:
                spans[i] = (spans[i][0], spans[j][1])
            if before[i] >= 0 and (left := rank_of((live[before[i]] or "", new))) is not None:
                heapq.heappush(heap, (left, before[i]))
            if after[i] < n and (right := rank_of((new, live[after[i]] or ""))) is not None:
                heapq.heappush(heap, (right, i))
            if trace:
                applied.append(MergeApplied(rank, a, b, new, tuple(t for t in live if t is not None)))
        positions = [i for i in range(n) if live[i] is not None]
        symbols = [live[i] for i in positions]  # type: ignore[misc]
        if spans is None:
            spans = _spans_of(symbols, len(self.prefix) if self.prefix else 0)
        else:
            spans = [spans[i] for i in positions]
        result = WordResult(word, tuple(symbols), tuple(spans), merges=tuple(applied), initial_split=first)
        if not trace:
            self._remember(word, result)
        return result

    def apply_in_order(self, word: str) -> list[str]:
        """The course's replay: every merge in learned order, each over the whole word."""
        symbols, _ = self.initial(word)

        for a, b in self.merges:
            symbols = merge_everywhere(symbols, a, b, new_token(a, b, self.prefix))
        return symbols
