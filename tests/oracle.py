"""The course's training loop, deliberately plain: recount everything, every step.

This is the oracle the incremental engine must agree with, step for step. It
follows seeds 000 (WordPiece) and 002 (BPE) line by line in spirit: count every
pair and token over the current splits, pick the best, merge it everywhere,
repeat. Scores are exact fractions; ties follow the configured rule.
"""

from __future__ import annotations

from fractions import Fraction


def oracle_train(word_counts, algorithm, vocab_size, special_tokens=(), tie_break="first",
                 min_frequency=0, prefix="##", min_score=None):
    words = [w for w, c in word_counts.items() if w and c > 0]
    freqs = {w: word_counts[w] for w in words}
    if prefix:
        splits = {w: [w[0]] + [prefix + c for c in w[1:]] for w in words}
    else:
        splits = {w: list(w) for w in words}
    alphabet = set()
    for w in words:
        alphabet.update(splits[w])
        if prefix and algorithm == "bpe":
            alphabet.update(w)
    vocab = list(dict.fromkeys(special_tokens))
    vocab += sorted(a for a in alphabet if a not in vocab)
    steps = []
    while len(vocab) < vocab_size:
        pair_counts, token_counts, first = {}, {}, {}
        for w in words:
            split = splits[w]
            for t in split:
                token_counts[t] = token_counts.get(t, 0) + freqs[w]
            for pair in zip(split, split[1:]):
                if pair not in pair_counts:
                    pair_counts[pair] = 0
                    first[pair] = len(first)
                pair_counts[pair] += freqs[w]
        ids = {t: i for i, t in enumerate(vocab)}
        best_key, best = None, []
        for pair, c in pair_counts.items():
            if c < max(min_frequency, 1):
                continue
            if algorithm == "bpe":
                score = Fraction(c)
            else:
                score = Fraction(c, token_counts[pair[0]] * token_counts[pair[1]])
            if best_key is None or score > best_key:
                best_key, best = score, [pair]
            elif score == best_key:
                best.append(pair)
        if not best:
            break
        if min_score is not None and best_key < min_score:
            break
        if tie_break == "hf":
            a, b = min(best, key=lambda p: (ids[p[0]], ids[p[1]]))
        else:
            a, b = min(best, key=lambda p: first[p])
        new = a + (b[len(prefix):] if prefix and b.startswith(prefix) else b)
        existed = new in vocab
        steps.append(dict(left=a, right=b, new_token=new, pair_count=pair_counts[(a, b)],
                          left_count=token_counts[a], right_count=token_counts[b],
                          score=best_key, ties=len(best), new_token_existed=existed))
        if not existed:
            vocab.append(new)
        for w in words:
            split, out, i = splits[w], [], 0
            while i < len(split):
                if i + 1 < len(split) and split[i] == a and split[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            splits[w] = out
    return steps, vocab, splits
