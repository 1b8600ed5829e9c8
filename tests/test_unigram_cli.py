"""`python -m wordpiece_core train --algorithm unigram`: the course rule end to end (its files, tokenizers reading
them, the trace), and every option that does not fit stopping the run with one line."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, run_cli

SENTENCES = str(ROOT / "sample_corpora" / "course-sentences.txt")
TOY = str(ROOT / "sample_corpora" / "course-toy.tsv")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def course_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("unigram")
    done = run_cli("train", SENTENCES, "--algorithm", "unigram", "--unigram-rule", "course", "--pre-tokenizer",
                   "metaspace", "--vocab-size", "101", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    return out


def test_the_course_rule_writes_the_files_and_tokenizers_splits_as_the_course(course_run):
    tokenizers = pytest.importorskip("tokenizers")
    assert sorted(p.name for p in course_run.iterdir()) == ["tokenizer.json", "trace.jsonl", "training.json",
                                                            "vocab.txt"]
    theirs = tokenizers.Tokenizer.from_file(str(course_run / "tokenizer.json"))
    text = "This is the Hugging Face course."
    expected = ["▁This", "▁is", "▁the", "▁Hugging", "▁Face", "▁", "c", "ou", "r", "s", "e", "."]  # the course's
    assert theirs.encode(text).tokens == expected
    assert theirs.decode(theirs.encode(text).ids) == text
    ours = run_cli("encode", "--tokenizer", str(course_run / "tokenizer.json"), text)
    assert ours.returncode == 0, ours.stderr
    encoded = json.loads(ours.stdout)
    assert encoded["tokens"] == expected and encoded["ids"] == theirs.encode(text).ids
    assert [tuple(o) for o in encoded["offsets"]] == [tuple(o) for o in theirs.encode(text).offsets]


def test_vocab_txt_holds_the_pieces_with_their_log_probabilities(course_run):
    rows = [line.split("\t") for line in (course_run / "vocab.txt").read_text(encoding="utf-8").splitlines()]
    assert rows[0] == ["<unk>", "0.0"]
    scores = [float(s) for _, s in rows[1:]]
    assert len(rows) == 99  # the course's loop stops at 98 pieces; <unk> besides
    assert scores == sorted(scores, reverse=True) and all(s < 0 for s in scores)
    model = json.loads((course_run / "tokenizer.json").read_text(encoding="utf-8"))["model"]
    assert model["type"] == "Unigram" and model["unk_id"] == 0
    assert [[p, float(s)] for p, s in rows] == model["vocab"]


def test_the_trace_has_a_round_a_line_with_its_arithmetic(course_run):
    rounds = [json.loads(line) for line in (course_run / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    first = rounds[0]
    assert first["vocab_size"] == 300 and first["course_loss"] == 413.10377642940875
    assert first["loss"] == pytest.approx(413.10377642940875 - 31)
    for r in rounds:
        assert r["removed_scores"] == sorted(r["removed_scores"])
        assert all(s >= r["removed_scores"][-1] for _, s in r["kept"])  # the kept were no cheaper
        assert r["vocab_size_after"] == r["vocab_size"] - len(r["removed"])
    assert rounds[-1]["vocab_size_after"] == 98
    summary = json.loads((course_run / "training.json").read_text(encoding="utf-8"))
    assert summary["algorithm"] == "unigram" and summary["unigram_rule"] == "course"
    assert summary["rounds"] == len(rounds) and summary["vocab_size"] == 99
    assert "strictly better" in summary["tie_rule"] and "start" in summary["course_errata"]


def test_the_toy_word_counts_train_and_load(tmp_path):
    done = run_cli("train", "--word-counts", TOY, "--algorithm", "unigram", "--unigram-rule", "course",
                   "--vocab-size", "12", "--seed-size", "15", "--out", str(tmp_path), "--quiet")
    assert done.returncode == 0, done.stderr
    vocab = [line.split("\t")[0] for line in (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines()]
    assert vocab[0] == "<unk>" and {"h", "u", "g", "p", "n", "b", "s"} <= set(vocab)


@pytest.mark.parametrize("args, says", [
    (["--algorithm", "unigram", "--tie-break", "hf"], "--tie-break does not apply to unigram"),
    (["--algorithm", "unigram", "--min-frequency", "2"], "--min-frequency does not apply to unigram"),
    (["--algorithm", "bpe", "--seed-size", "30"], "--seed-size is for --algorithm unigram"),
    (["--algorithm", "unigram", "--prune-percent", "20"], "--prune-percent is not an option of --unigram-rule tokenizers"),
    (["--algorithm", "unigram", "--unigram-rule", "course", "--sub-iterations", "3"],
     "--sub-iterations is not an option of --unigram-rule course"),
    (["--algorithm", "wordpiece", "--pre-tokenizer", "metaspace"], "metaspace is for --algorithm unigram"),
    (["--algorithm", "unigram", "--pre-tokenizer", "byte-level"], "use --pre-tokenizer metaspace"),
    (["--algorithm", "unigram", "--unigram-rule", "course", "--seed-size", "100000"], "more than 2,000,000 splits"),
    (["--algorithm", "unigram", "--prune-percent", "0"], "must be above 0 and below 100"),
    (["--algorithm", "unigram", "--unigram-rule", "course", "--full-byte-alphabet"], "does not train on byte-level"),
    (["--algorithm", "unigram", "--unigram-rule", "course", "--add-prefix-space"], "does not train on byte-level"),
])
def test_options_that_do_not_fit_stop_the_run_with_one_line(tmp_path, args, says):
    done = run_cli("train", SENTENCES, "--vocab-size", "50", "--out", str(tmp_path / "out"), *args)
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_target_below_the_characters_says_where_it_stopped(tmp_path):
    done = run_cli("train", SENTENCES, "--algorithm", "unigram", "--unigram-rule", "course", "--vocab-size", "10",
                   "--out", str(tmp_path), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "more than the 10 asked for" in done.stderr
    summary = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    assert "only single characters" in summary["stop_reason"] and summary["vocab_size"] > 10


def test_special_tokens_that_are_also_pieces_leave_probabilities_that_sum_to_one(tmp_path):
    import math

    done = run_cli("train", "--word-counts", TOY, "--algorithm", "unigram", "--unigram-rule", "course",
                   "--special-tokens", "<unk>,h,hug", "--vocab-size", "20", "--out", str(tmp_path), "--quiet")
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines()]
    assert [p for p, _ in rows[:3]] == ["<unk>", "h", "hug"]
    assert sum(math.exp(float(s)) for _, s in rows[3:]) == pytest.approx(1.0)


def test_no_unknown_token_is_said(tmp_path):
    done = run_cli("train", SENTENCES, "--algorithm", "unigram", "--unigram-rule", "course", "--special-tokens", "",
                   "--vocab-size", "80", "--out", str(tmp_path), "--quiet")
    assert done.returncode == 0 and "no <unk> among the special tokens" in done.stderr


def test_a_seed_exactly_the_size_asked_says_no_round_was_needed():
    from wordpiece_core.algorithms import build_config, info
    from wordpiece_core.corpus import parse_word_counts

    counts = parse_word_counts("hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", "toy", [])
    first = info("unigram").run(counts, build_config("unigram", 100, pre_tokenizer="whitespace",
                                                     unigram_rule="course"), None)
    size = len(first.pieces)  # the whole seed
    again = info("unigram").run(counts, build_config("unigram", size, pre_tokenizer="whitespace",
                                                     unigram_rule="course"), None)
    assert not again.rounds and len(again.pieces) == size
    assert again.stop_reason == (f"the seed already holds the {size} tokens asked for (the characters and the "
                                 "substrings it keeps, with the special tokens): no round was needed")
