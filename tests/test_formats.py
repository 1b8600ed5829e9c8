"""wordpiece_core/formats.py: the files a training writes, and the folder it writes them into.

Its fast paths must not change what is written: trace.jsonl lines formatted from a template equal
json.dumps of `step_json`; tokenizer.json spliced by `pretty_json` is the same document. The output
folder stages its files inside --out, and sweeps exactly the names a training writes.
"""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import TOY, examples
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train
from wordpiece_core.formats import pretty_json, step_json, tokenizer_json, trace_lines


odd_words = st.text(alphabet='ab"\\\n\t\u00e9\u0000\U0001f600', min_size=1, max_size=6)


@examples(60, fast=12)
def test_trace_lines_equal_json_of_step_json(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(st.dictionaries(odd_words, st.integers(1, 9), min_size=1, max_size=10),
           st.sampled_from(["wordpiece", "bpe"]), st.sampled_from([0, 3]))
    def check(corpus, algorithm, top_k):
        cfg = TrainerConfig(algorithm=algorithm, vocab_size=40, prefix="##" if algorithm == "wordpiece" else None,
                            top_k=top_k)
        t = train(corpus, cfg)
        lines = list(trace_lines(t))
        assert len(lines) == len(t.steps)
        for line, step in zip(lines, t.steps):
            assert "\n" not in line
            assert line == json.dumps(step_json(step, cfg.tie_break), ensure_ascii=False)  # byte for byte

    check()


@pytest.mark.parametrize("algorithm,prefix", [("wordpiece", "##"), ("bpe", None), ("bpe", "##")])
def test_pretty_json_is_the_same_document(algorithm, prefix):
    words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5, 'qu"o\\te': 2, "\u00e9t\u00e9": 3}
    t = train(words, TrainerConfig(algorithm=algorithm, vocab_size=40, prefix=prefix,
                                   special_tokens=("[UNK]", "[CLS]", "[SEP]")))
    doc = tokenizer_json(t, "none", "whitespace")
    text = pretty_json(doc)
    assert json.loads(text) == doc
    assert text.startswith("{\n  \"version\"")  # indented like Hugging Face's files


def test_pretty_json_falls_back_when_a_token_looks_like_its_mark():
    t = train(TOY, TrainerConfig(algorithm="bpe", vocab_size=20, prefix=None, special_tokens=("\x00vocab\x00",)))
    doc = tokenizer_json(t, "none", "whitespace")
    assert json.loads(pretty_json(doc)) == doc


def test_the_files_are_staged_inside_the_output_folder(tmp_path, monkeypatch):
    """Staged inside --out itself, so a mount point as --out never sees a cross-device rename."""
    from wordpiece_core import formats

    out = tmp_path / "out"
    folder = formats.OutputFolder(str(out))
    folder.prepare()
    assert os.path.dirname(folder.staging) == str(out)
    renames = []
    real = os.replace
    monkeypatch.setattr(formats.os, "replace", lambda a, b: (renames.append((a, b)), real(a, b)))
    folder.write({"vocab.txt": "a\n"})
    assert renames and all(os.path.dirname(os.path.dirname(a)) == str(out) for a, _ in renames)
    assert os.listdir(out) == ["vocab.txt"]  # no staging folder left


def test_the_files_swept_from_an_earlier_training_are_exactly_the_ones_we_write():
    from helpers import TOY, train_bpe, train_wordpiece
    from wordpiece_core.formats import OUTPUT_NAMES, output_files

    written = set(output_files(train_bpe(TOY, 20), "none", "whitespace"))
    written |= set(output_files(train_wordpiece(TOY, 20), "none", "whitespace"))
    assert written == set(OUTPUT_NAMES)
