"""wordpiece_core/cli.py: the train command line (`python -m wordpiece_core train`, `wordpiece-lab`):
its files, and one clear line for every bad input."""

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, cli_env, run_cli


def train(tmp_path, *extra, files=None):
    out = tmp_path / "out"
    return run_cli("train", *(files or []), *extra, "--out", str(out)), out


@pytest.fixture
def toy_tsv(tmp_path):
    p = tmp_path / "toy.tsv"
    p.write_text("hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", encoding="utf-8")
    return p


@pytest.fixture
def course_txt(tmp_path):
    p = tmp_path / "course.txt"
    p.write_text(
        "This is the Hugging Face Course.\nThis chapter is about tokenization.\n"
        "This section shows several tokenizer algorithms.\n"
        "Hopefully, you will be able to understand how they are trained and generate tokens.\n",
        encoding="utf-8",
    )
    return p


def test_wordpiece_files_and_trace(tmp_path, toy_tsv):
    proc, out = train(tmp_path, "--word-counts", str(toy_tsv), "--algorithm", "wordpiece", "--vocab-size", "10",
                      "--special-tokens", "")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == ["tokenizer.json", "trace.jsonl", "training.json", "vocab.txt"]
    assert (out / "vocab.txt").read_text().split("\n")[:-1] == ["##g", "##n", "##s", "##u", "b", "h", "p", "##gs", "hu", "hugs"]
    steps = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert [(s["step"], s["left"], s["right"], s["new_token"]) for s in steps] == [
        (1, "##g", "##s", "##gs"), (2, "h", "##u", "hu"), (3, "hu", "##gs", "hugs")]
    assert (steps[0]["pair_count"], steps[0]["left_count"], steps[0]["right_count"], steps[0]["score"]) == (5, 20, 5, 0.05)
    assert [s["ties"] for s in steps] == [1, 6, 1]


@pytest.mark.slow
def test_bpe_files_load_in_hf_tokenizers(tmp_path, course_txt):
    tokenizers = pytest.importorskip("tokenizers")
    proc, out = train(tmp_path, "--algorithm", "bpe", "--vocab-size", "50", "--pre-tokenizer", "byte-level",
                      files=[str(course_txt)])
    assert proc.returncode == 0, proc.stderr
    assert (out / "merges.txt").read_text().splitlines()[:3] == ["Ġ t", "i s", "e r"]
    assert len((out / "merges.txt").read_text().splitlines()) == 19
    steps = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert steps[0]["score"] == steps[0]["pair_count"] == 7
    assert {"left_count", "right_count", "ties"} <= set(steps[0])
    tok = tokenizers.Tokenizer.from_file(str(out / "tokenizer.json"))
    assert tok.encode("This is not a token.").tokens == ["This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", "."]
    assert tok.get_vocab_size() == 50


def test_wordpiece_tokenizer_json_loads_with_bert_pipeline(tmp_path, course_txt):
    tokenizers = pytest.importorskip("tokenizers")
    proc, out = train(tmp_path, "--algorithm", "wordpiece", "--vocab-size", "70", "--pre-tokenizer", "bert",
                      files=[str(course_txt)])
    assert proc.returncode == 0, proc.stderr
    tok = tokenizers.Tokenizer.from_file(str(out / "tokenizer.json"))
    enc = tok.encode("This is the Hugging Face course!")
    assert enc.tokens == ["[CLS]", "Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e",
                          "c", "##o", "##u", "##r", "##s", "##e", "[UNK]", "[SEP]"]
    assert tok.decode(enc.ids) == "This is the Hugging Face course"


@pytest.mark.parametrize("tie_break,order", [("hf", ["a ##b", "b ##a"]), ("first", ["b ##a", "a ##b"])])
def test_tie_break_and_options(tmp_path, tie_break, order):
    # "ba" and "ab" (5 each) make two pairs of count 5 that tie. The course's rule takes the one
    # met first in the corpus (b ##a, in "ba"); BpeTrainer's the smallest ids: the alphabet is
    # sorted by code point (##a 2, ##b 3, a 4, b 5 after the two special tokens), so a ##b (4, 3)
    # comes before b ##a (5, 2). "cd" (2) is below --min-frequency 5 and is never merged.
    words = tmp_path / "words.tsv"
    words.write_text("ba\t5\nab\t5\ncd\t2\n", encoding="utf-8")
    proc, out = train(tmp_path, "--word-counts", str(words), "--algorithm", "bpe", "--vocab-size", "30",
                      "--tie-break", tie_break, "--min-frequency", "5", "--special-tokens", "[UNK],[PAD]",
                      "--continuing-prefix", "##")
    assert proc.returncode == 0, proc.stderr
    assert (out / "merges.txt").read_text(encoding="utf-8").split("\n")[-3:] == [*order, ""]
    vocab = (out / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert vocab[:6] == ["[UNK]", "[PAD]", "##a", "##b", "##d", "a"]
    assert vocab[-3:] == [order[0].replace(" ##", ""), order[1].replace(" ##", ""), ""]
    assert "min frequency" in proc.stderr  # it stopped there, not at the vocabulary size
    steps = [json.loads(line) for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(s["ties"], s["tie_rule"]) for s in steps] == [(2, tie_break), (1, tie_break)]


BAD = [
    # (files to create, extra args, words the message must contain)
    ({"empty.txt": b""}, ["empty.txt"], "no words"),
    ({"blank.txt": b"  \n\t\n   \n"}, ["blank.txt"], "no words"),
    ({"bin.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)}, ["bin.txt"], "binary"),
    ({"latin.txt": "caf\u00e9 ol\u00e9\n".encode("latin-1")}, ["latin.txt"], "line 1, column 4"),
    ({}, ["missing.txt"], "no such file"),
    ({"dir/x.txt": b"a b"}, ["dir"], "is a directory"),
    ({"ok.txt": b"a b c"}, ["ok.txt", "--vocab-size", "0"], "above 0"),
    ({"ok.txt": b"a b c"}, ["ok.txt", "--vocab-size", "-3"], "above 0"),
    ({"ok.txt": b"a b c"}, ["ok.txt", "--vocab-size", "many"], "not a whole number"),
    ({"ok.txt": b"a b c"}, ["ok.txt", "--algorithm", "sentencepiece"], "invalid choice"),
    ({"c.tsv": b"hug\t10\npug\n"}, ["--word-counts", "c.tsv"], "line 2"),
    ({"c.tsv": b"hug\t10\npug\t-5\n"}, ["--word-counts", "c.tsv"], "line 2: the count -5 is negative"),
    ({"c.tsv": b"hug\t1\npug\tten\n"}, ["--word-counts", "c.tsv"], "line 2: the count 'ten' is not a whole number"),
    ({"c.tsv": b"hug\t\n"}, ["--word-counts", "c.tsv"], "line 1: the count is missing"),
    ({"ok.txt": b"a b c", "outfile": b"x"}, ["ok.txt", "--out", "outfile"], "is an existing file"),
    ({}, [], "at least one corpus file"),
]


@pytest.mark.slow
@pytest.mark.parametrize("files,args,message", BAD, ids=[b[2] + "-" + str(i) for i, b in enumerate(BAD)])
def test_bad_input_one_clear_line(tmp_path, files, args, message):
    for name, data in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    base = ["train", "--algorithm", "wordpiece", "--vocab-size", "50", "--out", "out"]
    proc = run_cli(*base, *args, cwd=tmp_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert not (tmp_path / "out").exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".wordpiece-")]


def test_unreachable_vocab_size_says_how_far_it_got(tmp_path, toy_tsv):
    proc, out = train(tmp_path, "--word-counts", str(toy_tsv), "--algorithm", "bpe", "--vocab-size", "100000")
    assert proc.returncode == 0
    assert "stopped at 15 of the 100000 tokens" in proc.stderr
    assert "no pair is left" in proc.stderr
    assert len((out / "vocab.txt").read_text().splitlines()) == 15


@pytest.mark.slow
def test_long_word_and_odd_unicode_train(tmp_path):
    p = tmp_path / "odd.txt"
    word = ("abcdefghij" * 1_000)  # a merge training's longest word: 10,000 characters (one more is refused)
    odd = ("e\u0301 n\u0303o\u0308 \U0001F468\u200d\U0001F469\u200d\U0001F467 \u202eevil\u202c \x00nul "
           "\ufb01ne \ufb00 \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u0130stanbul \u03a3\u039f\u03a3 "
           "\u200b\u200c \U0001F600\U0001F3FD caf\u00e9")
    p.write_text(word + "\n" + odd + "\n" + odd + "\n", encoding="utf-8")
    for algo, pre, norm in [("wordpiece", "bert", "bert"), ("bpe", "byte-level", "none"), ("wordpiece", "whitespace", "lowercase")]:
        out = tmp_path / f"out-{algo}-{pre}"
        proc = run_cli("train", str(p), "--algorithm", algo, "--vocab-size", "300", "--pre-tokenizer", pre,
                   "--normalizer", norm, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        assert (out / "tokenizer.json").exists()


def test_help_documents_defaults():
    proc = run_cli("train", "--help")
    assert proc.returncode == 0
    for word in ["--word-counts", "--special-tokens", "--tie-break", "--min-frequency", "default"]:
        assert word in proc.stdout


# ----- the output folder --------------------------------------------------------


def test_a_folder_that_cannot_be_written_is_refused_before_training(tmp_path, course_txt):
    proc = run_cli("train", str(course_txt), "--algorithm", "wordpiece", "--vocab-size", "60", "--out", "/proc/wordpiece-out")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: --out /proc/wordpiece-out cannot be written")
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    if os.access(readonly, os.W_OK):  # root ignores permissions: a read-only bind is not available everywhere
        pytest.skip("running as root: permissions do not stop writes here")
    proc = run_cli("train", str(course_txt), "--algorithm", "wordpiece", "--vocab-size", "60", "--out", str(readonly / "x"))
    assert proc.returncode == 2 and "cannot be written" in proc.stderr


@pytest.mark.slow
def test_a_second_training_leaves_only_its_own_files(tmp_path, toy_tsv):
    out = tmp_path / "out"
    assert run_cli("train", "--word-counts", str(toy_tsv), "--algorithm", "bpe", "--vocab-size", "20", "--out", str(out)).returncode == 0
    assert {"merges.txt", "vocab.json"} <= set(os.listdir(out))
    (out / "notes.md").write_text("mine")  # not ours: kept
    assert run_cli("train", "--word-counts", str(toy_tsv), "--algorithm", "wordpiece", "--vocab-size", "20",
               "--out", str(out)).returncode == 0
    assert sorted(os.listdir(out)) == ["notes.md", "tokenizer.json", "trace.jsonl", "training.json", "vocab.txt"]


@pytest.mark.slow
def test_sigterm_while_training_leaves_nothing_behind(tmp_path):
    import signal
    import time

    from wordpiece_core.sampling import sample_lines

    big = tmp_path / "big.txt"
    big.write_text("\n".join(sample_lines("en", 120_000, top_n=20_000, seed=3)) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "wordpiece_core", "train", str(big), "--algorithm", "wordpiece",
                             "--vocab-size", "40000", "--out", str(out)], stderr=subprocess.PIPE, text=True,
                            env=cli_env())
    deadline = time.time() + 30
    while not (out.exists() and any(p.startswith(".wordpiece-") for p in os.listdir(out))) and time.time() < deadline:
        time.sleep(0.05)
    assert out.exists()  # the staging folder is made before training
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "terminated; nothing was written" in err and "Traceback" not in err
    assert not out.exists()  # made by this run and never filled: removed with its staging folder


def test_dash_reads_the_corpus_from_standard_input(tmp_path):
    out = tmp_path / "out"
    proc = run_cli("train", "-", "--algorithm", "wordpiece", "--vocab-size", "20", "--out", str(out),
                   stdin="hug hug pug pun bun hugs\n" * 3)
    assert proc.returncode == 0, proc.stderr
    steps = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert (steps[0]["left"], steps[0]["right"]) == ("##g", "##s")


@pytest.mark.parametrize("count", ["1" + "0" * 30, "1" + "0" * 400])
def test_counts_too_large_are_refused_with_the_limit(tmp_path, count):
    tsv = tmp_path / "huge.tsv"
    tsv.write_text(f"hug\t{count}\npug\t5\n", encoding="utf-8")
    proc, out = train(tmp_path, "--word-counts", str(tsv), "--algorithm", "wordpiece", "--vocab-size", "20")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "9,223,372,036,854,775,807 (2^63 − 1)" in proc.stderr and not out.exists()


@pytest.mark.slow
def test_a_word_count_file_with_a_header_line_is_read_and_the_header_named(tmp_path):
    tsv = tmp_path / "counts.tsv"
    tsv.write_text("word\tcount\nhug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", encoding="utf-8")
    r = run_cli("train", "--word-counts", str(tsv), "--algorithm", "wordpiece", "--vocab-size", "10",
            "--special-tokens", "", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "line 1: 'word\\tcount' was read as a header line and skipped" in r.stderr
    assert "word" not in (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8").split("\n")
    bad = tmp_path / "bad.tsv"
    bad.write_text("hug\t10\npug\tmany\n", encoding="utf-8")  # only a first line can be a header
    r = run_cli("train", "--word-counts", str(bad), "--algorithm", "wordpiece", "--vocab-size", "10", "--out", str(tmp_path / "out2"))
    assert r.returncode != 0 and "line 2: the count 'many' is not a whole number" in r.stderr


@pytest.mark.slow
def test_the_project_installs_with_a_wordpiece_lab_command(tmp_path, toy_tsv):
    """pyproject.toml: `pip install .` into a fresh virtual environment gives the command line as `wordpiece-lab`."""
    import venv

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    import shutil

    src = tmp_path / "src"  # a copy: building in place would leave build/ and *.egg-info in the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "wordpiece_core", src / "wordpiece_core",
                    ignore=shutil.ignore_patterns("__pycache__"))
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", str(src)],
                             capture_output=True, text=True)
    if install.returncode != 0 and "setuptools" in install.stderr:
        pytest.skip("no setuptools wheel reachable to build the project: " + install.stderr[-300:])
    assert install.returncode == 0, install.stderr
    out = tmp_path / "out"
    r = subprocess.run([str(env_dir / "bin" / "wordpiece-lab"), "train", "--word-counts", str(toy_tsv), "--algorithm",
                        "wordpiece", "--vocab-size", "10", "--special-tokens", "", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (out / "vocab.txt").read_text(encoding="utf-8").split("\n")[:3] == ["##g", "##n", "##s"]
    usage = subprocess.run([str(env_dir / "bin" / "wordpiece-lab"), "--help"], capture_output=True, text=True)
    assert usage.stdout.startswith("usage: wordpiece-lab")


@pytest.mark.slow
def test_a_users_own_files_of_our_names_stop_the_run_unless_overwrite(tmp_path, toy_tsv):
    out = tmp_path / "out"
    out.mkdir()
    mine = {"vocab.json": '{"mine": 0}', "merges.txt": "m i\n", "tokenizer.json": "{}"}
    for name, text in mine.items():
        (out / name).write_text(text)
    args = ("train", "--word-counts", str(toy_tsv), "--algorithm", "bpe", "--vocab-size", "20", "--out", str(out))
    proc = run_cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "tokenizer.json, merges.txt, vocab.json" in proc.stderr
    assert "--overwrite" in proc.stderr
    assert {name: (out / name).read_text() for name in mine} == mine and sorted(os.listdir(out)) == sorted(mine)
    assert run_cli(*args, "--overwrite").returncode == 0
    assert (out / "vocab.json").read_text() != mine["vocab.json"]
    listed = json.loads((out / "training.json").read_text())["files"]
    assert sorted(listed) == sorted(os.listdir(out))


@pytest.mark.slow
def test_only_files_an_earlier_training_listed_are_removed(tmp_path, toy_tsv):
    out = tmp_path / "out"
    out.mkdir()
    (out / "merges.txt").write_text("mine\n")  # not a name WordPiece writes: left alone, no error
    assert run_cli("train", "--word-counts", str(toy_tsv), "--algorithm", "wordpiece", "--vocab-size", "20",
               "--out", str(out)).returncode == 0
    assert (out / "merges.txt").read_text() == "mine\n"
    # A folder of an earlier version (training.json without "files") counts as ours: its files are replaced.
    summary = json.loads((out / "training.json").read_text())
    del summary["files"]
    (out / "training.json").write_text(json.dumps(summary))
    (out / "vocab.json").write_text("{}")
    assert run_cli("train", "--word-counts", str(toy_tsv), "--algorithm", "wordpiece", "--vocab-size", "20",
               "--out", str(out)).returncode == 0
    assert sorted(os.listdir(out)) == ["tokenizer.json", "trace.jsonl", "training.json", "vocab.txt"]


@pytest.mark.slow
def test_a_folder_of_one_of_our_names_stops_the_run_before_anything_is_written_even_with_overwrite(tmp_path, toy_tsv):
    out = tmp_path / "out"
    out.mkdir()
    (out / "vocab.txt").mkdir()  # where WordPiece writes a file
    (out / "tokenizer.json").write_text("{}")  # the user's: --overwrite would replace it, but not half a training
    args = ("train", "--word-counts", str(toy_tsv), "--algorithm", "wordpiece", "--vocab-size", "20", "--out", str(out),
            "--overwrite")
    proc = run_cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "folder named vocab.txt" in proc.stderr and "nothing was written" in proc.stderr
    assert (out / "tokenizer.json").read_text() == "{}"
    assert sorted(os.listdir(out)) == ["tokenizer.json", "vocab.txt"] and not os.listdir(out / "vocab.txt")
