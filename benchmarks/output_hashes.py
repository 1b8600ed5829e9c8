"""Fingerprints of what the trainers write: run before and after a refactor, and compare.

    python benchmarks/output_hashes.py > before.txt      # on the old checkout
    python benchmarks/output_hashes.py > after.txt       # on the new one
    diff before.txt after.txt                            # nothing: the behaviour is the same

For each configuration below it runs the command line (`python -m wordpiece_core train`, in
process) into a new folder and prints the SHA-256 of every file written (tokenizer.json,
vocab.txt, merges.txt, vocab.json, trace.jsonl; training.json without its timing fields), then
the app's downloads of the same training (the trace as CSV, merges.txt, the handouts in HTML
and Markdown for the first steps). The set covers both algorithms, both tie rules, top-K 0, 1,
10 and 25, every normalizer and pre-tokenizer, every sample corpus, BPE with the ``##`` prefix,
the byte-level options, Unigram under both rules (the course's toy words and sentences, wordfreq
lists, the paragraphs with metaspace), and a 2M-token text (`--quick` leaves that one out).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

SAMPLES = os.path.join(ROOT, "sample_corpora")
TEXT = os.path.join(SAMPLES, "english-paragraphs.txt")
NORMALIZERS = ("none", "lowercase", "bert", "bert-cased")
PRE_TOKENIZERS = ("whitespace", "whitespace-split", "bert", "byte-level")


def configurations(quick: bool) -> list[tuple[str, list[str]]]:
    """(name, command-line arguments but --out) for every configuration fingerprinted."""
    rows: list[tuple[str, list[str]]] = []
    catalog = json.load(open(os.path.join(SAMPLES, "catalog.json"), encoding="utf-8"))
    for sample in catalog:
        path = os.path.join(SAMPLES, sample["file"])
        source = ["--word-counts", path] if path.endswith(".tsv") else [path]
        for algorithm in ("wordpiece", "bpe"):
            for tie in ("first", "hf"):
                rows.append((f"{sample['id']} {algorithm} {tie}", [
                    *source, "--algorithm", algorithm, "--vocab-size", str(sample["vocab_size"]),
                    "--tie-break", tie, "--normalizer", sample["normalizer"],
                    "--pre-tokenizer", sample["pre_tokenizer"], "--min-frequency", str(sample["min_frequency"])]))
    for normalizer in NORMALIZERS:
        for pre in PRE_TOKENIZERS:
            for algorithm in ("wordpiece", "bpe"):
                rows.append((f"paragraphs {normalizer} {pre} {algorithm}", [
                    TEXT, "--algorithm", algorithm, "--vocab-size", "400", "--normalizer", normalizer,
                    "--pre-tokenizer", pre]))
    en = os.path.join(SAMPLES, "wordfreq-en.tsv")
    for top_k in ("0", "1", "10", "25"):
        for algorithm in ("wordpiece", "bpe"):
            for tie in ("first", "hf"):
                rows.append((f"wordfreq-en {algorithm} {tie} top-k {top_k}", [
                    "--word-counts", en, "--algorithm", algorithm, "--vocab-size", "3000", "--tie-break", tie,
                    "--top-k", top_k]))
    for tie in ("first", "hf"):
        rows.append((f"wordfreq-en bpe ## {tie}", ["--word-counts", en, "--algorithm", "bpe", "--vocab-size", "3000",
                                                   "--tie-break", tie, "--continuing-prefix", "##"]))
        rows.append((f"wordfreq-de wordpiece min-score {tie}", [
            "--word-counts", os.path.join(SAMPLES, "wordfreq-de.tsv"), "--algorithm", "wordpiece", "--vocab-size",
            "5000", "--tie-break", tie, "--min-score", "1/100000", "--min-frequency", "3"]))
    rows.append(("paragraphs byte-level full alphabet prefix space", [
        TEXT, "--algorithm", "bpe", "--vocab-size", "600", "--pre-tokenizer", "byte-level",
        "--full-byte-alphabet", "--add-prefix-space"]))
    for row in unigram_configurations():
        rows.append(row)
    if not quick:
        from bench_train import make_text

        big = make_text(2_000_000)
        for algorithm in ("wordpiece", "bpe"):
            for tie in ("first", "hf"):
                rows.append((f"2M {algorithm} {tie}", [big, "--algorithm", algorithm, "--vocab-size", "8000",
                                                      "--tie-break", tie, "--normalizer", "lowercase",
                                                      "--pre-tokenizer", "bert"]))
    return rows


def unigram_configurations() -> list[tuple[str, list[str]]]:
    """Unigram under both rules: the course's toy words and sentences (the catalog's suggestions), a wordfreq
    list, the paragraphs with the metaspace pre-tokenizer, and a text of tabs, runs of spaces and other spaces
    (odd_whitespace_text: Metaspace keeps them in words, or as words "▁")."""
    toy = os.path.join(SAMPLES, "course-toy.tsv")
    sentences = os.path.join(SAMPLES, "course-sentences.txt")
    en = os.path.join(SAMPLES, "wordfreq-en.tsv")
    rows: list[tuple[str, list[str]]] = []
    for rule in ("course", "tokenizers"):
        rows += [
            (f"unigram {rule} course-toy", ["--word-counts", toy, "--algorithm", "unigram", "--unigram-rule", rule,
                                            "--vocab-size", "11"]),
            (f"unigram {rule} course-sentences", [sentences, "--algorithm", "unigram", "--unigram-rule", rule,
                                                  "--vocab-size", "101", "--pre-tokenizer", "metaspace"]),
            (f"unigram {rule} paragraphs metaspace top-k 3", [TEXT, "--algorithm", "unigram", "--unigram-rule", rule,
                                                              "--vocab-size", "300", "--pre-tokenizer", "metaspace",
                                                              "--normalizer", "lowercase", "--top-k", "3"]),
        ]
    rows.append(("unigram tokenizers wordfreq-en", ["--word-counts", en, "--algorithm", "unigram", "--vocab-size",
                                                    "1000"]))
    rows.append(("unigram tokenizers odd whitespace metaspace", [odd_whitespace_text(), "--algorithm", "unigram",
                                                                 "--vocab-size", "200", "--pre-tokenizer",
                                                                 "metaspace"]))
    rows.append(("unigram course wordfreq-en seed 180", ["--word-counts", en, "--algorithm", "unigram",
                                                         "--unigram-rule", "course", "--vocab-size", "100",
                                                         "--seed-size", "180", "--prune-percent", "20"]))
    rows.append(("unigram tokenizers wordfreq-de options", [
        "--word-counts", os.path.join(SAMPLES, "wordfreq-de.tsv"), "--algorithm", "unigram", "--vocab-size", "800",
        "--shrinking-factor", "0.5", "--sub-iterations", "3", "--max-piece-length", "8", "--seed-size", "20000"]))
    return rows


def odd_whitespace_text() -> str:
    """A text whose Metaspace words hold tabs, runs of spaces, no-break spaces and U+3000 (indented like source
    code): the paragraphs' sentences, reshaped the same way every time. Written once to a temporary file."""
    path = os.path.join(tempfile.gettempdir(), "wordpiece-lab-odd-whitespace.txt")
    with open(TEXT, encoding="utf-8") as fh:
        words = fh.read().split()
    lines = []
    for i in range(0, len(words), 7):
        gaps = ["  " if (i + j) % 5 == 0 else "\u3000" if (i + j) % 11 == 0 else "\u00a0" if (i + j) % 13 == 0
                else " " for j in range(6)]
        chunk = words[i:i + 7]
        line = chunk[0] + "".join(g + w for g, w in zip(gaps, chunk[1:]))
        lines.append(["", "    ", "\t", "  \t", "        "][(i // 7) % 5] + line + (" " if i % 3 == 0 else ""))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def digest(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()[:16]


def files_of(folder: str) -> dict[str, str]:
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as fh:
            data = fh.read()
        if name == "training.json":  # its timing and version fields change from run to run
            record = json.loads(data)
            for field in ("seconds", "elapsed_seconds", "created", "written_at", "version"):
                record.pop(field, None)
            data = json.dumps(record, sort_keys=True).encode()
        out[name] = digest(data)
    return out


def app_downloads(args: list[str]) -> dict[str, str]:
    """The app's downloads that the command line does not write, for the same training."""
    from wordpiece_core import formats
    from wordpiece_ui import handout, tables
    from wordpiece_core.cli import build_parser

    parsed = build_parser().parse_args(["train", *args, "--out", "unused"])
    if parsed.algorithm == "unigram":
        return unigram_downloads(parsed)
    training = train_in_process(parsed)
    n = len(training.steps)
    if not n:
        return {}
    last = min(n, 5)
    return {
        "app trace.csv": digest(tables.steps_frame(training, shorten=False).to_csv(index=False)),
        "app merges.txt": digest(formats.merges_txt(training)),
        "app handout.html": digest(handout.as_html(training, "corpus", "Corpus", 1, last, "http://localhost/?step=1")),
        "app handout.md": digest(handout.as_markdown(training, "corpus", "Corpus", 1, last, "http://localhost/?step=1")),
    }


def unigram_downloads(args) -> dict[str, str]:
    """A Unigram training's handouts (its files are the command line's)."""
    from wordpiece_core import cli, train
    from wordpiece_core.corpus import TextSettings, load_word_counts
    from wordpiece_ui import unigram_handout

    config = cli.config_from_args(args)
    settings = TextSettings(args.normalizer, args.pre_tokenizer, args.add_prefix_space)
    counts = load_word_counts(args.corpus, args.word_counts, settings, 1, [])
    training = train(counts, config)
    words = sorted(counts.items(), key=lambda wn: (-wn[1], wn[0]))
    last = min(len(training.rounds), 3)
    if not last:
        return {}
    return {
        "app handout.html": digest(unigram_handout.as_html(training, words, "Corpus", 1, last, "http://localhost/")),
        "app handout.md": digest(unigram_handout.as_markdown(training, words, "Corpus", 1, last, "http://localhost/")),
        "app worksheet.md": digest(unigram_handout.as_markdown(training, words, "Corpus", 1, last, "http://localhost/",
                                                               answers=False)),
    }


def train_in_process(args):
    """The training the command line makes for `args` (as the app's downloads would start from)."""
    from wordpiece_core import cli, train

    from wordpiece_core.corpus import TextSettings, load_word_counts

    config = cli.config_from_args(args)
    settings = TextSettings(args.normalizer, args.pre_tokenizer, args.add_prefix_space)
    counts = load_word_counts(args.corpus, args.word_counts, settings, 1, [])
    return train(counts, config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave the 2M-token text out")
    parser.add_argument("--no-app", action="store_true", help="only the command line's files")
    opts = parser.parse_args()
    from wordpiece_core.cli import main as cli_main

    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, args) in enumerate(configurations(opts.quick)):
            out = os.path.join(tmp, str(k))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = cli_main(["train", *args, "--out", out, "--quiet"])
            print(f"# {name}: exit {code}")
            if code:
                print(f"  stderr {digest(err.getvalue())}")
                continue
            for file, h in files_of(out).items():
                print(f"  {file} {h}")
            if not opts.no_app:
                for file, h in app_downloads(args).items():
                    print(f"  {file} {h}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
