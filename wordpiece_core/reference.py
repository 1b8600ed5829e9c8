"""The training loop in a few lines: the plain, slow, obviously correct version of both trainers.

Every step recounts every pair from scratch. The fast engine (merging.py) makes exactly
the same merges with its bookkeeping; the property tests check that on random corpora, the
Train page shows this file, and replay.py uses `count` and `ranked` to rebuild any step's
full candidate table.

- WordPiece (Hugging Face course, "WordPiece tokenization"): score = count(ab) / (count(a) × count(b)).
- BPE (Hugging Face course, "Byte-Pair Encoding tokenization"): score = count(ab).
- Ties: "first" takes the pair seen first when scanning the words in order of first
  appearance, left to right (the course's code); "hf" takes the pair whose tokens have the
  smallest ids (Hugging Face's tokenizers).
"""

from __future__ import annotations

from fractions import Fraction

Pair = tuple[str, str]


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


def ranked(pairs: dict[Pair, int], tokens: dict[str, int], first: dict[Pair, int], ids: dict[str, int],
           algorithm: str, tie_break: str = "first", min_frequency: int = 0) -> list[Pair]:
    """The candidate pairs, best first: the highest score, then the tie rule."""
    tie = (lambda p: (ids[p[0]], ids[p[1]])) if tie_break == "hf" else (lambda p: (first[p],))
    kept = [p for p, c in pairs.items() if c >= max(min_frequency, 1)]  # rarer pairs never merge
    return sorted(kept, key=lambda p: (-score(algorithm, pairs[p], tokens[p[0]], tokens[p[1]]), *tie(p)))


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
          tie_break: str = "first", min_frequency: int = 0, prefix: str | None = "##",
          min_score: Fraction | None = None) -> tuple[list[dict], list[str], dict[str, list[str]]]:
    """Merge the best pair until the vocabulary has `vocab_size` tokens; return the steps, vocabulary and splits."""
    words = [w for w, c in word_counts.items() if w and c > 0]
    freqs = [word_counts[w] for w in words]
    # Start from characters; inside a word they carry the prefix: "hugs" → h ##u ##g ##s.
    splits = [[w[0]] + [prefix + c for c in w[1:]] if prefix else list(w) for w in words]
    alphabet = {t for split in splits for t in split}
    if prefix and algorithm == "bpe":  # Hugging Face's BpeTrainer also keeps every bare character
        alphabet |= {c for w in words for c in w}
    vocab = list(dict.fromkeys(special_tokens)) + sorted(alphabet - set(special_tokens))
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
        new = a + (b[len(prefix):] if prefix and b.startswith(prefix) else b)  # h + ##u → hu
        ties = sum(1 for p in best if score(algorithm, pairs[p], tokens[p[0]], tokens[p[1]]) == top)
        steps.append(dict(left=a, right=b, new_token=new, pair_count=pairs[a, b], left_count=tokens[a],
                          right_count=tokens[b], score=top, ties=ties, new_token_existed=new in vocab))
        if new not in vocab:
            vocab.append(new)
        splits = [merge(split, a, b, new) for split in splits]  # merge it everywhere
    return steps, vocab, dict(zip(words, splits))
