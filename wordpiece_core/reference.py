"""The training loop in a few lines: the plain, slow, obviously correct version of both merge trainers.

This file is the specification of BPE and WordPiece (Unigram's plain trainers are unigram/reference.py, the
course's loop, and unigram/em.py, tokenizers'). Every rule of the two merge trainers is a named function here: how a
word starts (`initial_split`), the alphabet (`alphabet`), the token a merge makes (`new_token`),
the score (`score`), the tie rule (`tie_key`), and the loop (`train`), which recounts every pair
from scratch at every step. The fast engine (the `engine` package) makes exactly the same
merges with its bookkeeping; where it needs a faster form of a rule, that form sits beside its
use and a test checks it against the function here. The Train page shows this file, and
replay.py uses `count` and `ranked` to rebuild any step's full candidate table.

- WordPiece (Hugging Face course, "WordPiece tokenization"): score = count(ab) / (count(a) × count(b)).
- BPE (Hugging Face course, "Byte-Pair Encoding tokenization"): score = count(ab).
- Ties: see TIE_RULES.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

Pair = tuple[str, str]

WORDPIECE_PREFIX = "##"  # WordPiece writes every character after a word's first with it: hugs → h ##u ##g ##s

TIE_RULES = {  # in words; `tie_key` is the rule itself
    "first": "the pair seen first when scanning words in order of first appearance, left to right (the course)",
    "hf": "the pair with the smallest (id of left, id of right), as Hugging Face's BpeTrainer does",
}


def initial_split(word: str, prefix: str | None) -> list[str]:
    """How a word starts: its characters, those after the first with the prefix ("hugs" → h ##u ##g ##s)."""
    return [word[0]] + [prefix + c for c in word[1:]] if prefix else list(word)


def alphabet(words: Iterable[str], algorithm: str, prefix: str | None, special_tokens: Iterable[str] = ()) -> list[str]:
    """The initial tokens, sorted by code point: every token of the initial splits (special tokens left out).

    With a prefix, BPE's alphabet also holds every character on its own, as Hugging Face's
    BpeTrainer (and so its WordPieceTrainer) has it."""
    words = [w for w in words if w]
    tokens = {t for w in words for t in initial_split(w, prefix)}
    if prefix and algorithm == "bpe":
        tokens |= {c for w in words for c in w}
    return sorted(tokens - set(special_tokens))


def strip_prefix(token: str, prefix: str | None) -> str:
    """The token without its continuing-subword prefix (##ug → ug); other tokens as they are."""
    return token[len(prefix):] if prefix and token.startswith(prefix) else token


def new_token(left: str, right: str, prefix: str | None) -> str:
    """The token a merge makes: left + right, without right's prefix (h + ##u → hu, ##g + ##s → ##gs)."""
    return left + strip_prefix(right, prefix)


def count(splits: list[list[str]], freqs: list[int]) -> tuple[dict[Pair, int], dict[str, int], dict[Pair, int]]:
    """count(ab) of every adjacent pair, count(a) of every token, and the order pairs first appear in."""
    pairs: dict[Pair, int] = {}
    tokens: dict[str, int] = {}
    first: dict[Pair, int] = {}
    for split, f in zip(splits, freqs):  # every word, weighted by how often it occurs
        for t in split:
            tokens[t] = tokens.get(t, 0) + f
        for pair in zip(split, split[1:]):
            first.setdefault(pair, len(first))
            pairs[pair] = pairs.get(pair, 0) + f
    return pairs, tokens, first


def score(algorithm: str, ab: int, a: int, b: int) -> Fraction:
    """BPE counts the pair; WordPiece divides by both parts' counts, penalising common parts."""
    return Fraction(ab) if algorithm == "bpe" else Fraction(ab, a * b)


def tie_key(pair: Pair, tie_break: str, ids: dict[str, int], first: dict[Pair, int]) -> tuple[int, ...]:
    """Among pairs of the same score, the smaller key merges first (in words: TIE_RULES).

    "first": where a scan of the words, in order of first appearance, left to right, first meets
    the pair (the course's code); "hf": the ids of its two tokens (Hugging Face's tokenizers)."""
    return (ids[pair[0]], ids[pair[1]]) if tie_break == "hf" else (first[pair],)


def ranked(pairs: dict[Pair, int], tokens: dict[str, int], first: dict[Pair, int], ids: dict[str, int],
           algorithm: str, tie_break: str = "first", min_frequency: int = 0) -> list[Pair]:
    """The candidate pairs, best first: the highest score, then the tie rule."""
    kept = [p for p, c in pairs.items() if c >= max(min_frequency, 1)]  # rarer pairs never merge
    return sorted(kept, key=lambda p: (-score(algorithm, pairs[p], tokens[p[0]], tokens[p[1]]),
                                       *tie_key(p, tie_break, ids, first)))


def merge(split: list[str], a: str, b: str, new: str) -> list[str]:
    """Replace every (a, b) in a split by `new`, left to right ("a a a" + (a, a) → "aa a")."""
    out, i = [], 0
    while i < len(split):
        if i + 1 < len(split) and split[i] == a and split[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(split[i])
            i += 1
    return out


def train(word_counts: dict[str, int], algorithm: str, vocab_size: int, special_tokens: tuple[str, ...] = (),
          tie_break: str = "first", min_frequency: int = 0, prefix: str | None = WORDPIECE_PREFIX,
          min_score: Fraction | None = None) -> tuple[list[dict], list[str], dict[str, list[str]]]:
    """Merge the best pair until the vocabulary has `vocab_size` tokens; return the steps, vocabulary and splits."""
    words = [w for w, c in word_counts.items() if w and c > 0]
    freqs = [word_counts[w] for w in words]
    splits = [initial_split(w, prefix) for w in words]
    vocab = list(dict.fromkeys(special_tokens)) + alphabet(words, algorithm, prefix, special_tokens)
    steps = []
    while len(vocab) < vocab_size:
        pairs, tokens, first = count(splits, freqs)  # recount everything at every step
        best = ranked(pairs, tokens, first, {t: i for i, t in enumerate(vocab)}, algorithm, tie_break, min_frequency)
        if not best:
            break  # no pair left (or none frequent enough)
        a, b = best[0]
        top = score(algorithm, pairs[a, b], tokens[a], tokens[b])
        if min_score is not None and top < min_score:
            break
        new = new_token(a, b, prefix)
        ties = sum(1 for p in best if score(algorithm, pairs[p], tokens[p[0]], tokens[p[1]]) == top)
        steps.append(dict(left=a, right=b, new_token=new, pair_count=pairs[a, b], left_count=tokens[a],
                          right_count=tokens[b], score=top, ties=ties, new_token_existed=new in vocab))
        if new not in vocab:
            vocab.append(new)
        splits = [merge(split, a, b, new) for split in splits]  # merge it everywhere
    return steps, vocab, dict(zip(words, splits))
