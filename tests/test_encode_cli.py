"""wordpiece_core/encode_cli.py: `python -m wordpiece_core encode --tokenizer FILE [TEXT ...]`.

One JSON line per text (with the trace when asked), a vocab.txt lowercased or not, and one clear
line with exit code 2 for a bad or malformed tokenizer file.
"""

import json

import pytest

from helpers import BERT_SPECIALS, CASES, COURSE, run_cli, train_wordpiece
from wordpiece_core import TextSettings, count_words
from wordpiece_core.formats import output_files, write_outputs


@pytest.mark.slow
def test_encode_cli(tmp_path):
    t = train_wordpiece(count_words(COURSE, TextSettings("none", "bert")), 70, special_tokens=BERT_SPECIALS)
    write_outputs(str(tmp_path), output_files(t, "none", "bert"))
    path = str(tmp_path / "tokenizer.json")
    proc = run_cli("encode", "--tokenizer", path, "Hugging", "HOgging")
    assert proc.returncode == 0, proc.stderr
    first, second = [json.loads(line) for line in proc.stdout.splitlines()]
    assert first["tokens"] == ["[CLS]", "Hugg", "##i", "##n", "##g", "[SEP]"]
    assert first["offsets"] == [[0, 0], [0, 4], [4, 5], [5, 6], [6, 7], [0, 0]]
    assert first["ids"] == [t.vocab.index(x) for x in first["tokens"]]
    assert second["tokens"] == ["[CLS]", "[UNK]", "[SEP]"]
    proc = run_cli("encode", "--tokenizer", path, "--trace", stdin="bum\nhello there\n")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 2 and lines[0]["trace"][0]["scan"][0]["tried"][0] == "bum"


@pytest.mark.slow
@pytest.mark.parametrize("content,message", [
    (b"", "is empty"),
    (b"{not json", "not valid JSON"),
    (b'{"model": {"type": "Unigram", "vocab": []}}', "model.vocab should be a non-empty list"),
    (b'{"model": {"type": "WordLevel", "vocab": {}}}', "'WordLevel' is not supported"),
    (b'{"model": {"type": "WordPiece", "vocab": {"a": 0}}, "pre_tokenizer": {"type": "UnicodeScripts"}}', "'UnicodeScripts'"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a UTF-8"),
])
def test_encode_cli_bad_tokenizer(tmp_path, content, message):
    p = tmp_path / "tok.json"
    p.write_bytes(content)
    proc = run_cli("encode", "--tokenizer", str(p), "hello")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("case", ["added_tokens holding ints", "max_input_chars_per_word a string",
                                  "normalizer a string", "BertProcessing without sep", "100,000 levels of nesting"])
def test_the_command_line_says_it_in_one_line(tmp_path, case):
    text, words = CASES[case]
    path = tmp_path / "tokenizer.json"
    path.write_text(text)
    proc = run_cli("encode", "--tokenizer", str(path), "hug")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert words in proc.stderr


@pytest.mark.slow
def test_encode_lowercase_or_not_for_a_vocab_txt(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhug\n##s\nh\n##u\n##g\n", encoding="utf-8")
    guessed = json.loads(run_cli("encode", "--tokenizer", str(vocab), "HUGS").stdout)
    lower = json.loads(run_cli("encode", "--tokenizer", str(vocab), "--lowercase", "HUGS").stdout)
    cased = json.loads(run_cli("encode", "--tokenizer", str(vocab), "--no-lowercase", "HUGS").stdout)
    assert guessed["tokens"] == lower["tokens"] == ["[CLS]", "hug", "##s", "[SEP]"]
    assert cased["tokens"] == ["[CLS]", "[UNK]", "[SEP]"]


def test_encode_opens_a_shelf_tokenizer_by_name():
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "wordpiece_core", "encode", "--tokenizer", "cl100k_base",
                           "--no-special-tokens", "Hello, world!"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ids"] == [9906, 11, 1917, 0]  # tiktoken's cl100k_base
