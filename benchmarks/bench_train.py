"""Benchmarks: one table, ratios against reference implementations measured in the same run.

    python benchmarks/bench_train.py            # full size (2M tokens, vocabulary 8,000)
    python benchmarks/bench_train.py --quick    # a smaller run to check the script

Rows:
1. BPE (--tie-break hf) vs tokenizers' BpeTrainer, end to end from the same text
   file (start-up, reading, pre-tokenizing, training, writing), target ≤ 1.25×.
2. WordPiece (the real score) vs tokenizers' WordPieceTrainer (BPE inside), target ≤ 2×.
3. WordPiece vs the course's recount loop on the 5,000 most frequent English words,
   target ≥ 100× faster.
4. Encoding throughput (MB/s) of the trained WordPiece and BPE tokenizers, ours vs
   tokenizers loading the same tokenizer.json, one `encode` call per line of a
   held-out text, single-threaded both; target within 10×.
Each end-to-end contender runs in its own process, the two alternating; wall
time is the best of --repeat runs and peak memory is the process's maximum
resident set size (for ours, the larger of the main process and the forked
word-counting child: wait4 reports the maximum over the process tree).
Both use both cores: tokenizers through its thread pool, ours by counting the
second half of the text in a forked process.
The text is sampled from real English word frequencies (wordfreq), cached in
benchmarks/.cache/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

HF_SCRIPT = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
kind, path, vocab, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if kind == "bpe":
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=["[UNK]"], show_progress=False)
else:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    trainer = trainers.WordPieceTrainer(vocab_size=vocab, special_tokens=["[UNK]"], show_progress=False)
tok.pre_tokenizer = pre_tokenizers.Whitespace()
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


def run_process(cmd: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time (s) and peak RSS (MB) of a command run `repeat` times."""
    best, peak = float("inf"), 0.0
    env = {**os.environ, "PYTHONPATH": ROOT}
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err = proc.stderr.read().decode() if proc.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{err}")
        best = min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak


def ours(algorithm: str, path: str, vocab: int, out: str) -> list[str]:
    return [sys.executable, "-m", "wordpiece_core", "train", path, "--algorithm", algorithm,
            "--vocab-size", str(vocab), "--tie-break", "hf", "--pre-tokenizer", "whitespace",
            "--special-tokens", "[UNK]", "--top-k", "0", "--quiet", "--out", out]


def hf(kind: str, path: str, vocab: int, out: str) -> list[str]:
    return [sys.executable, "-c", HF_SCRIPT, kind, path, str(vocab), os.path.join(out, "hf.json")]


def course_row(n_words: int, vocab: int) -> tuple[float, float]:
    from course_loop import course_wordpiece

    from wordpiece_core.sampling import expected_counts
    from wordpiece_core.wordpiece import train_wordpiece

    counts = expected_counts("en", n_words)
    start = time.perf_counter()
    course_vocab = course_wordpiece(counts, vocab)
    slow = time.perf_counter() - start
    fast = float("inf")
    for _ in range(7):  # a run of a few hundredths of a second: take the best of several
        start = time.perf_counter()
        t = train_wordpiece(counts, vocab, special_tokens=["[UNK]"], top_k=0)
        fast = min(fast, time.perf_counter() - start)
    assert t.vocab == course_vocab, "the course loop and the trainer disagree"
    return fast, slow


def encode_rows(train_path: str, vocab: int, n_tokens: int, repeat: int) -> list[tuple]:
    """Throughput of encoding held-out text with the tokenizers trained on `train_path`."""
    from tokenizers import Tokenizer as HFTokenizer

    from wordpiece_core.corpus import TextSettings, load_word_counts
    from wordpiece_core.formats import tokenizer_from_json, tokenizer_json
    from wordpiece_core.merging import train
    from wordpiece_core.sampling import sample_lines
    from wordpiece_core.trace import TrainerConfig

    lines = sample_lines("en", n_tokens, top_n=50_000, seed=7)  # not the training text
    size_mb = sum(len(line.encode("utf-8")) + 1 for line in lines) / 1e6
    counts = load_word_counts([train_path], [], TextSettings("none", "whitespace"))
    rows = []
    for algorithm in ("wordpiece", "bpe"):
        config = TrainerConfig(algorithm=algorithm, vocab_size=vocab, special_tokens=("[UNK]",), tie_break="hf",
                               prefix="##" if algorithm == "wordpiece" else None, top_k=0)
        doc = tokenizer_json(train(counts, config), "none", "whitespace")
        timings = {}
        for name, make in (("ours", lambda: tokenizer_from_json(doc, "bench")),
                           ("hf", lambda: HFTokenizer.from_str(json.dumps(doc)))):
            best = float("inf")
            for _ in range(repeat):
                tok = make()  # a fresh tokenizer each time: no word cache carried over
                start = time.perf_counter()
                for line in lines:
                    tok.encode(line)
                best = min(best, time.perf_counter() - start)
            timings[name] = best
        ours_mbs, hf_mbs = size_mb / timings["ours"], size_mb / timings["hf"]
        label = f"{'WordPiece' if algorithm == 'wordpiece' else 'BPE'} encoding, MB/s ({size_mb:.1f} MB held-out text)"
        rows.append((label, ours_mbs, hf_mbs, hf_mbs / ours_mbs, f"{hf_mbs / ours_mbs:.1f}× slower", "within 10×",
                     None, None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200k tokens, vocabulary 2,000, course vocabulary 300")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each contender, alternating; the best counts")
    args = parser.parse_args()
    n_tokens, vocab, course_vocab = (200_000, 2000, 300) if args.quick else (2_000_000, 8000, 600)
    path = make_text(n_tokens)
    # Byte-compile the package first, as pip does when it installs one (this
    # machine sets PYTHONDONTWRITEBYTECODE, so nothing would ever be cached and
    # every run would compile our modules again; tokenizers is compiled Rust).
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "wordpiece_core"), quiet=1)
    size_mb = os.path.getsize(path) / 1e6
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for algorithm, kind, label, target in [
            ("bpe", "bpe", "BPE (tie-break hf) vs tokenizers BpeTrainer", "≤ 1.25×"),
            ("wordpiece", "wordpiece", "WordPiece vs tokenizers WordPieceTrainer", "≤ 2×"),
        ]:
            # Alternate the two contenders so that a slow spell of the machine hits both.
            t_ours = t_ref = float("inf")
            m_ours = m_ref = 0.0
            for _ in range(args.repeat):
                t, m = run_process(ours(algorithm, path, vocab, os.path.join(tmp, algorithm)), 1)
                t_ours, m_ours = min(t_ours, t), max(m_ours, m)
                t, m = run_process(hf(kind, path, vocab, tmp), 1)
                t_ref, m_ref = min(t_ref, t), max(m_ref, m)
            rows.append((label, t_ours, t_ref, t_ours / t_ref, f"{t_ours / t_ref:.2f}×", target, m_ours, m_ref))
    fast, slow = course_row(5000, course_vocab)
    rows.append((f"WordPiece vs the course loop (5,000 words, vocab {course_vocab})", fast, slow, fast / slow,
                 f"{slow / fast:.0f}× faster", "≥ 100× faster", None, None))

    rows += encode_rows(path, vocab, n_tokens // 10, args.repeat)

    print(f"\nTraining benchmark: {n_tokens:,} tokens ({size_mb:.1f} MB) of English sampled from wordfreq, "
          f"vocabulary {vocab:,}; {os.cpu_count()} cores; best of {args.repeat}\n")
    print("| task | ours (s, or MB/s) | reference (s, or MB/s) | ratio | target | peak MB ours | peak MB reference |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for label, a, b, _, ratio, target, ma, mb in rows:
        mem_a = f"{ma:.0f}" if ma else "–"
        mem_b = f"{mb:.0f}" if mb else "–"
        print(f"| {label} | {a:.2f} | {b:.2f} | {ratio} | {target} | {mem_a} | {mem_b} |")


if __name__ == "__main__":
    main()
