"""Training benchmark as users meet it: the command line with its defaults (the teaching trace on).

    python benchmarks/bench_train.py            # 2M tokens, vocabulary 8,000, and the course row
    python benchmarks/bench_train.py --large    # also 20M tokens, vocabulary 30,000 (several minutes)
    python benchmarks/bench_train.py --quick    # a smaller run to check the script
    python benchmarks/bench_train.py --unigram-only   # only the Unigram rows

Rows (the targets in the last column; ratios are ours ÷ reference, measured in the same run):
1. For each text setup (lowercase + BERT pre-tokenizer; no normalizer + whitespace) and each
   size: BPE (`--tie-break hf`) against tokenizers' BpeTrainer and WordPiece (the real score)
   against tokenizers' WordPieceTrainer (BPE inside), end to end from the same text file
   (start-up, reading, pre-tokenizing, training, writing every output file). Ours runs
   `python -m wordpiece_core train` with its defaults: 10 candidates recorded per step.
   An extra row with `--top-k 0` (no candidates recorded) is shown for reference only: it is
   a setting users do not start from, and the targets are about the default rows.
   Each timed run writes into a new --out folder, as a first training does. One more row
   (BPE, lowercase + BERT) runs into the folder of the run before: replacing an earlier
   run's files costs the time to free them (its trace.jsonl is about 18 MB at 2M tokens).
2. WordPiece against the course's recount loop on the 5,000 most frequent English words at
   vocabulary 1,800, both end to end as processes writing their vocabulary. The loop is the
   course's code as printed (benchmarks/course_loop.py; tests/test_golden.py checks it).
3. Unigram (the command line's defaults: the tokenizers rule, Metaspace) against tokenizers'
   UnigramTrainer (its defaults, <unk>), end to end from the same text, the same words: tokenizers is fed
   each line without its line end (`train_from_iterator` over the file's lines, read in its process; its
   `train([path])` would keep each line's "\n" in the line's last word, 70 % vocabulary overlap at 2M,
   so it would not be the same work); and on wordfreq-en, ours from
   sample_corpora/wordfreq-en.tsv (--word-counts, as the app trains it), tokenizers from a text holding
   the same words as many times as counted (it has no word-count input). Target ≤ 3× time, ≤ 2× memory.
4. Encoding throughput (MB/s) of the trained tokenizers, ours vs tokenizers loading the same
   tokenizer.json, one `encode` call per line of held-out text, single-threaded both.
Each end-to-end contender runs in its own process, the two alternating, the disks synced
before each run; wall time is the best of --repeat runs. Peak memory is taken in one more, untimed run of each: the largest sum,
over the process and all its children alive at once (ours forks a trace writer and, for large
texts, two counting processes), of their proportional set sizes (PSS: a page shared by two
processes counts half in each), read from /proc every 10 ms. A sum, not the largest single
process: processes that run at the same time need their memory at the same time.
The text is sampled from real English word frequencies (wordfreq), cached in benchmarks/.cache/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from process_memory import tree_pss_bytes  # noqa: E402

HF_SCRIPT = r"""
import sys
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
kind, path, vocab, out, normalizer, pre = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
if kind == "bpe":
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=["[UNK]"], show_progress=False)
elif kind == "unigram":
    tok = Tokenizer(models.Unigram())
    trainer = trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<unk>"], unk_token="<unk>",
                                      show_progress=False)
else:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    trainer = trainers.WordPieceTrainer(vocab_size=vocab, special_tokens=["[UNK]"], show_progress=False)
if normalizer == "lowercase":
    tok.normalizer = normalizers.Lowercase()
tok.pre_tokenizer = {"bert": pre_tokenizers.BertPreTokenizer, "metaspace": pre_tokenizers.Metaspace,
                     "whitespace-split": pre_tokenizers.WhitespaceSplit}.get(pre, pre_tokenizers.Whitespace)()
if pre == "metaspace":  # the same words as ours: each line without its line end (train([path]) keeps the "\n" in
    def lines():       # a line's last word, "▁word\n", and makes "\n" a piece); lines as ours: split at "\n" only
        with open(path, encoding="utf-8", newline="") as fh:
            for line in fh.read().split("\n"):
                yield line[:-1] if line.endswith("\r") else line
    tok.train_from_iterator(lines(), trainer)
else:  # (to the other pre-tokenizers a line end is a space: train([path]) sees the words ours sees)
    tok.train([path], trainer)
tok.save(out)
"""


def make_text(n_tokens: int) -> str:
    from wordpiece_core.sampling import sample_lines

    os.makedirs(os.path.join(HERE, ".cache"), exist_ok=True)
    path = os.path.join(HERE, ".cache", f"en-{n_tokens}.txt")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(sample_lines("en", n_tokens, top_n=50_000, seed=1)) + "\n")
    return path


def peak_memory(cmd: list[str]) -> float:
    """The largest summed PSS (MB) of a command's process tree, sampled every 10 ms (one untimed run)."""
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": ROOT}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_pss_bytes(proc.pid))
        time.sleep(0.01)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return peak / 1024 / 1024


def before_run(cmd: list[str], keep_out: bool = False) -> None:
    """Untimed, before each timed run: remove the command's `--out` folder (unless `keep_out`) and sync the disks."""
    if "--out" in cmd and not keep_out:
        shutil.rmtree(cmd[cmd.index("--out") + 1], ignore_errors=True)
    os.sync()


def run_process(cmd: list[str], repeat: int, memory: bool = True, keep_out: bool = False) -> tuple[float, float]:
    """Best wall time (s) of a command run `repeat` times, and its peak memory (MB, see peak_memory).

    Before each run (untimed) the disks are synced, and a command's `--out` folder is removed unless
    `keep_out`: each run then writes into a new folder, as a first training does. (Writing over an
    earlier run's files costs the time to free them: see the "into the folder of the run before" row.)"""
    best = float("inf")
    env = {**os.environ, "PYTHONPATH": ROOT}
    for _ in range(repeat):
        before_run(cmd, keep_out)
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, _ = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err = proc.stderr.read().decode() if proc.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{err}")
        best = min(best, elapsed)
    return best, (peak_memory(cmd) if memory else 0.0)


def ours(algorithm: str, path: str, vocab: int, out: str, normalizer: str, pre: str, top_k: int | None = None) -> list[str]:
    """The command line as a user types it: its defaults, plus the text setup and [UNK]."""
    cmd = [sys.executable, "-m", "wordpiece_core", "train", path, "--algorithm", algorithm,
           "--vocab-size", str(vocab), "--normalizer", normalizer, "--pre-tokenizer", pre,
           "--special-tokens", "[UNK]", "--quiet", "--out", out]
    if algorithm == "bpe":
        cmd += ["--tie-break", "hf"]  # BpeTrainer's rule, so both learn the same merges
    return cmd + (["--top-k", str(top_k)] if top_k is not None else [])


def ours_unigram(path: str, vocab: int, out: str, word_counts: bool = False) -> list[str]:
    """Unigram as a user types it: the command line's defaults (the tokenizers rule, 10 kept candidates
    recorded a round, <unk>), Metaspace for text, a word-count file's words as they are."""
    source = ["--word-counts", path] if word_counts else [path, "--pre-tokenizer", "metaspace"]
    return [sys.executable, "-m", "wordpiece_core", "train", *source, "--algorithm", "unigram",
            "--vocab-size", str(vocab), "--quiet", "--out", out]


def wordfreq_text(tmp: str) -> tuple[str, str]:
    """sample_corpora/wordfreq-en.tsv, and the same counts as a text (each word its count times, 1,000 a
    line) for tokenizers, which has no word-count input: both trainers see the same words and counts."""
    tsv = os.path.join(ROOT, "sample_corpora", "wordfreq-en.tsv")
    txt = os.path.join(tmp, "wordfreq-en.txt")
    with open(tsv, encoding="utf-8") as fh, open(txt, "w", encoding="utf-8") as out:
        words = []
        for line in fh:
            w, c = line.rstrip("\n").split("\t")
            words.extend([w] * int(c))
        for i in range(0, len(words), 1000):
            out.write(" ".join(words[i:i + 1000]) + "\n")
    return tsv, txt


def unigram_rows(sizes: list[tuple[int, int]], tmp: str, repeat: int) -> list[tuple]:
    """Unigram against UnigramTrainer (its defaults, <unk>): sampled text at each size, and wordfreq-en."""
    rows = []
    out = os.path.join(tmp, "unigram")
    for n_tokens, vocab in sizes:
        path = make_text(n_tokens)
        t_a, t_b, m_a, m_b = alternate(ours_unigram(path, vocab, out), hf("unigram", path, vocab, tmp, "none", "metaspace"),
                                       repeat)
        rows.append((f"Unigram vs UnigramTrainer, {n_tokens / 1e6:g}M tokens, vocab {vocab:,}, metaspace, default trace",
                     t_a, t_b, f"{t_a / t_b:.2f}×", "≤ 3× (memory ≤ 2×)", m_a, m_b))
    tsv, txt = wordfreq_text(tmp)
    vocab = sizes[0][1]
    t_a, t_b, m_a, m_b = alternate(ours_unigram(tsv, vocab, out, word_counts=True),
                                   hf("unigram", txt, vocab, tmp, "none", "whitespace-split"), repeat)
    rows.append((f"Unigram vs UnigramTrainer, wordfreq-en (10,000 words, {876_783:,} occurrences), vocab {vocab:,}, "
                 "ours from the TSV, tokenizers from the same counts as text", t_a, t_b, f"{t_a / t_b:.2f}×",
                 "≤ 3× (memory ≤ 2×)", m_a, m_b))
    return rows


def hf(kind: str, path: str, vocab: int, out: str, normalizer: str, pre: str) -> list[str]:
    return [sys.executable, "-c", HF_SCRIPT, kind, path, str(vocab), os.path.join(out, "hf.json"), normalizer, pre]


def alternate(a: list[str], b: list[str], repeat: int) -> tuple[float, float, float, float]:
    """Best wall time and peak memory of two commands run alternately."""
    t_a = t_b = float("inf")
    for _ in range(repeat):
        t_a = min(t_a, run_process(a, 1, memory=False)[0])
        t_b = min(t_b, run_process(b, 1, memory=False)[0])
    return t_a, t_b, peak_memory(a), peak_memory(b)


def course_words(n_words: int, tmp: str) -> str:
    """The course row's corpus: a TSV of the `n_words` most frequent English words and their counts."""
    from wordpiece_core.sampling import expected_counts

    counts = expected_counts("en", n_words)
    tsv = os.path.join(tmp, "words.tsv")
    with open(tsv, "w", encoding="utf-8") as fh:
        fh.writelines(f"{w}\t{c}\n" for w, c in counts.items())
    return tsv


def ours_course(tsv: str, vocab: int, out: str, top_k: int | None = None) -> list[str]:
    """The course row's command line: WordPiece on a word-count file, with its defaults."""
    cmd = [sys.executable, "-m", "wordpiece_core", "train", "--word-counts", tsv, "--algorithm", "wordpiece",
           "--vocab-size", str(vocab), "--special-tokens", "[UNK]", "--quiet", "--out", out]
    return cmd + (["--top-k", str(top_k)] if top_k is not None else [])


def course_loop(tsv: str, vocab: int, out: str) -> list[str]:
    """The course's recount loop (course_loop.py) as a process writing its vocabulary to `out`."""
    return [sys.executable, os.path.join(HERE, "course_loop.py"), tsv, str(vocab), out]


def course_row(n_words: int, vocab: int, tmp: str) -> tuple[float, float]:
    """Ours (command-line defaults) and the course loop, each a process from a TSV to a written vocabulary."""
    tsv = course_words(n_words, tmp)
    out = os.path.join(tmp, "course")
    fast, _ = run_process(ours_course(tsv, vocab, out), 3, memory=False)
    slow, _ = run_process(course_loop(tsv, vocab, os.path.join(tmp, "course-vocab.txt")), 1, memory=False)
    with open(os.path.join(out, "vocab.txt"), encoding="utf-8") as a, \
            open(os.path.join(tmp, "course-vocab.txt"), encoding="utf-8") as b:
        same = a.read() == b.read()
    assert same, "the course loop and the trainer disagree"
    return fast, slow


def encode_rows(train_path: str, vocab: int, n_tokens: int, repeat: int) -> list[tuple]:
    """Throughput of encoding held-out text with the tokenizers trained on `train_path`."""
    from tokenizers import Tokenizer as HFTokenizer

    from wordpiece_core.corpus import TextSettings, load_word_counts
    from wordpiece_core.formats import tokenizer_json
    from wordpiece_core.loading import tokenizer_from_json
    from wordpiece_core.engine import train
    from wordpiece_core.sampling import sample_lines
    from wordpiece_core.config import TrainerConfig

    lines = sample_lines("en", n_tokens, top_n=50_000, seed=7)  # not the training text
    size_mb = sum(len(line.encode("utf-8")) + 1 for line in lines) / 1e6
    counts = load_word_counts([train_path], [], TextSettings("none", "whitespace"))
    rows = []
    for algorithm in ("wordpiece", "bpe"):
        config = TrainerConfig(algorithm=algorithm, vocab_size=vocab, special_tokens=("[UNK]",), tie_break="hf",
                               prefix="##" if algorithm == "wordpiece" else None, top_k=0)
        doc = tokenizer_json(train(counts, config), "none", "whitespace")
        timings = {"ours": float("inf"), "hf": float("inf")}
        for _ in range(repeat):  # the two alternate, so a slow spell of the machine falls on both
            for name, make in (("ours", lambda: tokenizer_from_json(doc, "bench")),
                               ("hf", lambda: HFTokenizer.from_str(json.dumps(doc)))):
                tok = make()  # a fresh tokenizer each time: no word cache carried over
                start = time.perf_counter()
                for line in lines:
                    tok.encode(line)
                timings[name] = min(timings[name], time.perf_counter() - start)
        ours_mbs, hf_mbs = size_mb / timings["ours"], size_mb / timings["hf"]
        label = f"{'WordPiece' if algorithm == 'wordpiece' else 'BPE'} encoding, MB/s ({size_mb:.1f} MB held-out text)"
        rows.append((label, ours_mbs, hf_mbs, hf_mbs / ours_mbs, f"{hf_mbs / ours_mbs:.1f}× slower", "within 4×",
                     None, None))
    return rows


SETUPS = [("lowercase", "bert"), ("none", "whitespace")]  # normalizer, pre-tokenizer
TARGETS = {(8000, "bpe"): 0.9, (8000, "wordpiece"): 1.0, (30000, "bpe"): 0.8, (30000, "wordpiece"): 1.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200k tokens, vocabulary 2,000, course vocabulary 300")
    parser.add_argument("--large", action="store_true", help="also 20M tokens at vocabulary 30,000")
    parser.add_argument("--encoding-only", action="store_true", help="only the two encoding rows")
    parser.add_argument("--unigram-only", action="store_true", help="only the Unigram rows")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each contender, alternating; the best counts")
    args = parser.parse_args()
    sizes = [(200_000, 2000)] if args.quick else [(2_000_000, 8000)] + ([(20_000_000, 30000)] if args.large else [])
    course_vocab = 300 if args.quick else 1800
    # Byte-compile the package first, as pip does when it installs one (this machine sets
    # PYTHONDONTWRITEBYTECODE, so every run would compile our modules again; tokenizers is compiled Rust).
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "wordpiece_core"), quiet=1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.encoding_only:
            rows += unigram_rows(sizes, tmp, args.repeat)
        for n_tokens, vocab in ([] if args.encoding_only or args.unigram_only else sizes):
            path = make_text(n_tokens)
            size = f"{n_tokens / 1e6:g}M tokens, vocab {vocab:,}"
            for normalizer, pre in SETUPS:
                setup = f"{normalizer} + {pre}"
                for algorithm, label in (("bpe", "BPE (tie-break hf) vs BpeTrainer"),
                                         ("wordpiece", "WordPiece vs WordPieceTrainer")):
                    out = os.path.join(tmp, algorithm)
                    t_a, t_b, m_a, m_b = alternate(ours(algorithm, path, vocab, out, normalizer, pre),
                                                   hf(algorithm, path, vocab, tmp, normalizer, pre), args.repeat)
                    target = TARGETS.get((vocab, algorithm))
                    rows.append((f"{label}, {size}, {setup}, default trace", t_a, t_b, f"{t_a / t_b:.2f}×",
                                 f"≤ {target}×" if target else "–", m_a, m_b))
                    if normalizer == "lowercase":  # for reference: no candidates recorded (not a default)
                        t_k, m_k = run_process(ours(algorithm, path, vocab, out, normalizer, pre, top_k=0), args.repeat)
                        rows.append((f"{label}, {size}, {setup}, --top-k 0 (not the default)", t_k, t_b,
                                     f"{t_k / t_b:.2f}×", "–", m_k, m_b))
                    if normalizer == "lowercase" and algorithm == "bpe":  # a second run into the same --out
                        cmd = ours(algorithm, path, vocab, out, normalizer, pre)
                        run_process(cmd, 1, memory=False)  # untimed: every timed run replaces a default run's files
                        t_r, _ = run_process(cmd, args.repeat, memory=False, keep_out=True)
                        rows.append((f"{label}, {size}, {setup}, default trace, into the folder of the run before",
                                     t_r, t_b, f"{t_r / t_b:.2f}×", "–", None, None))
        if not args.encoding_only and not args.unigram_only:
            fast, slow = course_row(5000, course_vocab, tmp)
            rows.append((f"WordPiece vs the course loop (5,000 words, vocab {course_vocab:,}), end to end", fast, slow,
                         f"{slow / fast:.0f}× faster", "≥ 100× faster", None, None))
        n_tokens, vocab = sizes[0]
        rows += [] if args.unigram_only else [(label, a, b, ratio, target, None, None)
                 for label, a, b, _, ratio, target, _, _ in encode_rows(make_text(n_tokens), vocab, n_tokens // 10,
                                                                          args.repeat)]

    print(f"\nTraining benchmark: English sampled from wordfreq; {os.cpu_count()} cores; best of {args.repeat}; "
          "ours = `python -m wordpiece_core train` with its defaults unless the row says otherwise\n")
    print("| task | ours (s, or MB/s) | reference (s, or MB/s) | ratio | target | peak MB ours | peak MB reference |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for label, a, b, ratio, target, ma, mb in rows:
        mem_a = f"{ma:.0f}" if ma else "–"
        mem_b = f"{mb:.0f}" if mb else "–"
        print(f"| {label} | {a:.2f} | {b:.2f} | {ratio} | {target} | {mem_a} | {mem_b} |")


if __name__ == "__main__":
    main()
