"""Agreement of our Unigram trainer (`--unigram-rule tokenizers`) with tokenizers' UnigramTrainer.

    python benchmarks/unigram_agreement.py            # the five corpora, a table
    python benchmarks/unigram_agreement.py --detail   # and each corpus's differing pieces

For each corpus both train on the same words with the same settings (vocabulary, special tokens <unk>, the
trainer's defaults): ours through `python -m wordpiece_core train --algorithm unigram` (the command line, its
defaults), tokenizers through `Tokenizer.train_from_iterator` with the same pre-tokenizer. Two figures a corpus:
- the vocabularies' overlap: |ours ∩ theirs| / |theirs|;
- held-out words split the same: the share of held-out words (each distinct word once) that our exported
  tokenizer.json, loaded in tokenizers, splits into the same tokens as tokenizers' own model.
Target: both ≥ 99 % on every corpus. Text corpora are split 2/3 for training, 1/3 held out (the prose by
sentence; python-source, 4,000 lines of Python's own standard library, by line: tabs, runs of spaces and
indentation, which Metaspace keeps as words "▁" and inside words); word-count lists (wordfreq) train on their
first 8,000 words and hold out the other 2,000.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPORA = ["english-paragraphs", "course-sentences", "wordfreq-en", "wordfreq-de", "wordfreq-fi", "python-source"]
VOCAB = {"english-paragraphs": 150, "course-sentences": 40, "wordfreq-en": 1500, "wordfreq-de": 1500,
         "wordfreq-fi": 1500, "python-source": 1500}
PYTHON_FILES = ("argparse.py", "difflib.py", "textwrap.py", "shlex.py", "fractions.py")  # this Python's own


def python_source(lines: int = 4000) -> list[str]:
    """The first `lines` lines of PYTHON_FILES, in that order, without their line ends."""
    import argparse as _argparse

    folder = os.path.dirname(_argparse.__file__)
    out: list[str] = []
    for name in PYTHON_FILES:
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            out += fh.read().split("\n")
    return out[:lines]


def _split(name: str) -> tuple[str, list[str], list[str], bool]:
    """The training text (a file's content), the training words as tokenizers is fed them, the held-out texts,
    and whether the corpus is a word-count list (its words used as they are)."""
    if name == "python-source":
        source = python_source()
        cut = len(source) * 2 // 3
        return "\n".join(source[:cut]) + "\n", source[:cut], source[cut:], False
    path = os.path.join(ROOT, "sample_corpora", f"{name}.{'tsv' if name.startswith('wordfreq') else 'txt'}")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if name.startswith("wordfreq"):
        rows = [line.split("\t") for line in text.splitlines() if "\t" in line]
        train, held = rows[:8000], rows[8000:]
        return ("".join(f"{w}\t{c}\n" for w, c in train), [" ".join([w] * int(c)) for w, c in train],
                [w for w, _ in held], True)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    cut = max(1, len(sentences) * 2 // 3)
    train_lines = sentences[:cut] if len(sentences) > 2 else sentences
    held = sentences[cut:] if len(sentences) > 2 else sentences
    return "\n".join(train_lines) + "\n", train_lines, held, False


def agreement(name: str, tmp: str) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    text, lines, held, counts = _split(name)
    vocab = VOCAB[name]
    source = os.path.join(tmp, f"{name}.{'tsv' if counts else 'txt'}")
    with open(source, "w", encoding="utf-8") as fh:
        fh.write(text)
    out = os.path.join(tmp, name)
    cmd = [sys.executable, "-m", "wordpiece_core", "train", *(["--word-counts", source] if counts else [source]),
           "--algorithm", "unigram", "--vocab-size", str(vocab), "--out", out, "--overwrite", "--quiet",
           *([] if counts else ["--pre-tokenizer", "metaspace"])]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr)
    theirs = Tokenizer(models.Unigram())
    theirs.pre_tokenizer = pre_tokenizers.WhitespaceSplit() if counts else pre_tokenizers.Metaspace()
    theirs.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<unk>"],
                                                               unk_token="<unk>", show_progress=False))
    ours = Tokenizer.from_file(os.path.join(out, "tokenizer.json"))
    a = {p for p, _ in json.loads(ours.to_str())["model"]["vocab"]}
    b = {p for p, _ in json.loads(theirs.to_str())["model"]["vocab"]}
    words = sorted({w for t in held for w, _ in theirs.pre_tokenizer.pre_tokenize_str(t)})
    if counts:
        words = sorted(set(held))
    same = [w for w in words if ours.model.tokenize(w) and
            [t.value for t in ours.model.tokenize(w)] == [t.value for t in theirs.model.tokenize(w)]]
    differ = [w for w in words if w not in set(same)]
    return {"corpus": name, "vocab": vocab, "ours": len(a), "theirs": len(b), "overlap": len(a & b) / len(b),
            "only_ours": sorted(a - b), "only_theirs": sorted(b - a), "held_out": len(words),
            "same_split": len(same) / len(words) if words else 1.0, "differ": differ[:20]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    print("| corpus | vocabulary | ours / theirs | overlap | held-out words | split the same | target |")
    print("|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [agreement(name, tmp) for name in CORPORA]
    for r in rows:
        print(f"| {r['corpus']} | {r['vocab']:,} | {r['ours']:,} / {r['theirs']:,} | {r['overlap']:.2%} | "
              f"{r['held_out']:,} | {r['same_split']:.2%} | ≥ 99 % both |")
    if args.detail:
        for r in rows:
            print(f"\n{r['corpus']}: only ours {r['only_ours'][:20]}; only theirs {r['only_theirs'][:20]}; "
                  f"split differently {r['differ']}")


if __name__ == "__main__":
    main()
