"""The WordPiece training loop of the Hugging Face course (“WordPiece tokenization”), as printed there: recount everything each step.

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


def main() -> None:
    """`python course_loop.py words.tsv VOCAB OUT_VOCAB_TXT`: the loop end to end, as a process."""
    import sys

    path, vocab_size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, encoding="utf-8") as fh:
        counts = {w: int(c) for w, c in (line.rstrip("\n").split("\t") for line in fh if line.strip())}
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(course_wordpiece(counts, vocab_size)) + "\n")


if __name__ == "__main__":
    main()
