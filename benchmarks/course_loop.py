"""The course's WordPiece training loop (seed 000), as printed there: recount everything each step.

Kept only as the benchmark's slow reference; the trainers never use it.
"""

from __future__ import annotations


def course_wordpiece(word_freqs: dict[str, int], vocab_size: int) -> list[str]:
    alphabet = []
    for word in word_freqs:
        if word[0] not in alphabet:
            alphabet.append(word[0])
        for letter in word[1:]:
            if f"##{letter}" not in alphabet:
                alphabet.append(f"##{letter}")
    alphabet.sort()
    vocab = ["[UNK]"] + alphabet
    splits = {w: [c if i == 0 else f"##{c}" for i, c in enumerate(w)] for w in word_freqs}
    while len(vocab) < vocab_size:
        letter_freqs: dict[str, int] = {}
        pair_freqs: dict[tuple[str, str], int] = {}
        for word, freq in word_freqs.items():
            split = splits[word]
            for i in range(len(split) - 1):
                letter_freqs[split[i]] = letter_freqs.get(split[i], 0) + freq
                pair = (split[i], split[i + 1])
                pair_freqs[pair] = pair_freqs.get(pair, 0) + freq
            letter_freqs[split[-1]] = letter_freqs.get(split[-1], 0) + freq
        best, best_score = None, None
        for pair, freq in pair_freqs.items():
            score = freq / (letter_freqs[pair[0]] * letter_freqs[pair[1]])
            if best_score is None or best_score < score:
                best, best_score = pair, score
        if best is None:
            break
        a, b = best
        new = a + b[2:] if b.startswith("##") else a + b
        for word in word_freqs:
            split = splits[word]
            i = 0
            while i < len(split) - 1:
                if split[i] == a and split[i + 1] == b:
                    split = split[:i] + [new] + split[i + 2 :]
                else:
                    i += 1
            splits[word] = split
        vocab.append(new)
    return vocab
