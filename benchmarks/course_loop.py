"""The WordPiece training loop of the Hugging Face course ("WordPiece tokenization"), as printed there.

Kept only as the benchmark's slow reference (the trainers never use it): it recounts every pair of every
word at each step. `compute_pair_scores`, `merge_pair` and the loop are the course's code, character for
character, so the benchmark's ratio is against what the course teaches. Two things are not printed there
and are set by `course_wordpiece` instead: the word counts (the course's functions read the global
`word_freqs`, filled by its pre-tokenizer; here they come from a TSV file) and the special tokens (the
course starts its vocabulary with BERT's five; the benchmark's row passes `[UNK]` alone, as our command
line gets it). The course runs its loop at a notebook's top level, with global names; here it runs in a
function, with local ones, which if anything makes it a little faster. tests/test_golden.py checks that
this reproduces the course's printed 70-token vocabulary.
"""

from __future__ import annotations

from collections import defaultdict

word_freqs: dict[str, int] = {}


# ----- the course's code, as printed (only the global `word_freqs` above is set elsewhere) -----
def compute_pair_scores(splits):
    letter_freqs = defaultdict(int)
    pair_freqs = defaultdict(int)
    for word, freq in word_freqs.items():
        split = splits[word]
        if len(split) == 1:
            letter_freqs[split[0]] += freq
            continue
        for i in range(len(split) - 1):
            pair = (split[i], split[i + 1])
            letter_freqs[split[i]] += freq
            pair_freqs[pair] += freq
        letter_freqs[split[-1]] += freq

    scores = {
        pair: freq / (letter_freqs[pair[0]] * letter_freqs[pair[1]])
        for pair, freq in pair_freqs.items()
    }
    return scores


def merge_pair(a, b, splits):
    for word in word_freqs:
        split = splits[word]
        if len(split) == 1:
            continue
        i = 0
        while i < len(split) - 1:
            if split[i] == a and split[i + 1] == b:
                merge = a + b[2:] if b.startswith("##") else a + b
                split = split[:i] + [merge] + split[i + 2 :]
            else:
                i += 1
        splits[word] = split
    return splits


def course_wordpiece(counts: dict[str, int], vocab_size: int, special_tokens: list[str]) -> list[str]:
    """The course's alphabet, splits and training loop on `counts`; the vocabulary it ends with."""
    global word_freqs
    word_freqs = counts
    # The course, from its alphabet on:
    alphabet = []
    for word in word_freqs.keys():
        if word[0] not in alphabet:
            alphabet.append(word[0])
        for letter in word[1:]:
            if f"##{letter}" not in alphabet:
                alphabet.append(f"##{letter}")

    alphabet.sort()
    vocab = special_tokens + alphabet.copy()
    splits = {
        word: [c if i == 0 else f"##{c}" for i, c in enumerate(word)]
        for word in word_freqs.keys()
    }
    while len(vocab) < vocab_size:
        scores = compute_pair_scores(splits)
        best_pair, max_score = "", None
        for pair, score in scores.items():
            if max_score is None or max_score < score:
                best_pair = pair
                max_score = score
        splits = merge_pair(*best_pair, splits)
        new_token = (
            best_pair[0] + best_pair[1][2:]
            if best_pair[1].startswith("##")
            else best_pair[0] + best_pair[1]
        )
        vocab.append(new_token)
    return vocab


def main() -> None:
    """`python course_loop.py words.tsv VOCAB OUT_VOCAB_TXT`: the loop end to end, as a process ([UNK] only)."""
    import sys

    path, vocab_size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, encoding="utf-8") as fh:
        counts = {w: int(c) for w, c in (line.rstrip("\n").split("\t") for line in fh if line.strip())}
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(course_wordpiece(counts, vocab_size, ["[UNK]"])) + "\n")


if __name__ == "__main__":
    main()
