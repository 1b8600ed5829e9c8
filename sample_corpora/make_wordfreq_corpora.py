"""Regenerate the wordfreq-*.tsv sample corpora (run once; the files are committed).

Each file lists a language's 10,000 most frequent purely alphabetic words from the
`wordfreq` package with the count they would have in a corpus of one million
words (at least 1). The app reads the files; it never needs wordfreq at run time.

    python sample_corpora/make_wordfreq_corpora.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from wordpiece_core.sampling import word_frequencies  # noqa: E402

LANGUAGES = ("en", "de", "fi", "tr")
WORDS = 10_000
CORPUS_TOKENS = 1_000_000


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for lang in LANGUAGES:
        rows = [(w, f) for w, f in word_frequencies(lang, WORDS * 2) if w.isalpha()][:WORDS]
        path = os.path.join(here, f"wordfreq-{lang}.tsv")
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for word, freq in rows:
                fh.write(f"{word}\t{max(1, round(freq * CORPUS_TOKENS))}\n")
        print(path, len(rows))


if __name__ == "__main__":
    main()
