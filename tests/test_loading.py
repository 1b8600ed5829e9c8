"""Malformed tokenizer files get one sentence naming the problem, never a traceback:
from `encode --tokenizer` (exit code 2) and from the playground's loader."""

import copy
import json
import os
import subprocess
import sys

import pytest

from helpers import TOY
from trainers import train_bpe, train_wordpiece
from wordpiece_core.errors import WordPieceError
from wordpiece_core.formats import tokenizer_json
from wordpiece_ui.encodings import load_uploaded_tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WP = tokenizer_json(train_wordpiece(TOY, 30, special_tokens=("[UNK]", "[CLS]", "[SEP]")), "bert", "bert")
BPE = tokenizer_json(train_bpe(TOY, 30, special_tokens=("[UNK]",)), "none", "whitespace")


def changed(doc, path, value):
    doc = copy.deepcopy(doc)
    *parents, last = path
    target = doc
    for key in parents:
        target = target[key]
    target[last] = value
    return json.dumps(doc)


def nested(depth):
    return '{"model": ' * depth + "{}" + "}" * depth


# (file text, words the message must contain)
CASES = {
    "added_tokens holding ints": (changed(WP, ["added_tokens"], [1, 2]), "added_tokens[0] should be an object"),
    "added token without content": (changed(WP, ["added_tokens"], [{"id": 1}]), "added_tokens[0].content"),
    "max_input_chars_per_word a string": (changed(WP, ["model", "max_input_chars_per_word"], "100"),
                                          "model.max_input_chars_per_word should be a whole number"),
    "normalizer a string": (changed(WP, ["normalizer"], "lowercase"), "normalizer should be an object"),
    "BertProcessing without sep": (changed(WP, ["post_processor"], {"type": "BertProcessing", "cls": ["[CLS]", 1]}),
                                   "post_processor.sep should be a [token, id] pair"),
    "BertProcessing without cls": (changed(WP, ["post_processor"], {"type": "BertProcessing", "sep": ["[SEP]", 2]}),
                                   "post_processor.cls"),
    "100,000 levels of nesting": (nested(100_000), "nested too deeply"),
    "vocab a list": (changed(WP, ["model", "vocab"], ["a", "b"]), "model.vocab should be an object"),
    "vocab id a string": (changed(WP, ["model", "vocab"], {"a": "0"}), "model.vocab['a'] should be a whole number"),
    "merges of three": (changed(BPE, ["model", "merges"], [["a", "b", "c"]]), "model.merges[0] should be a pair"),
    "merges a number": (changed(BPE, ["model", "merges"], 5), "model.merges should be a list"),
    "unk_token a number": (changed(WP, ["model", "unk_token"], 3), "model.unk_token should be a text"),
    "pre_tokenizer a list": (changed(WP, ["pre_tokenizer"], []), "pre_tokenizer should be an object"),
    "lowercase a string": (changed(WP, ["normalizer", "lowercase"], "yes"), "normalizer.lowercase should be true or false"),
    "template item a string": (changed(WP, ["post_processor", "single"], ["[CLS]"]), "post_processor.single[0]"),
    "decoder a number": (changed(WP, ["decoder"], 7), "decoder should be an object"),
    "model a string": (changed(WP, ["model"], "WordPiece"), "model should be an object"),
    "top level a list": ("[1, 2]", "neither a tokenizer.json nor a vocab.json"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_playground_loader_names_the_field(case):
    text, words = CASES[case]
    with pytest.raises(WordPieceError) as err:
        load_uploaded_tokenizer("tokenizer.json", text.encode())
    assert words in str(err.value)


@pytest.mark.parametrize("case", ["added_tokens holding ints", "max_input_chars_per_word a string",
                                  "normalizer a string", "BertProcessing without sep", "100,000 levels of nesting"])
def test_the_command_line_says_it_in_one_line(tmp_path, case):
    text, words = CASES[case]
    path = tmp_path / "tokenizer.json"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "wordpiece_core", "encode", "--tokenizer", str(path), "hug"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert words in proc.stderr


NULLS = {
    "added_tokens": (WP, ["added_tokens"]),
    "model.merges": (BPE, ["model", "merges"]),
    "model.max_input_chars_per_word": (WP, ["model", "max_input_chars_per_word"]),
    "model.unk_token": (WP, ["model", "unk_token"]),
    "normalizer.normalizers": (WP, ["normalizer"], {"type": "Sequence", "normalizers": None}),
    "pre_tokenizer.pretokenizers": (WP, ["pre_tokenizer"], {"type": "Sequence", "pretokenizers": None}),
    "post_processor.processors": (WP, ["post_processor"], {"type": "Sequence", "processors": None}),
    "post_processor.single": (WP, ["post_processor", "single"]),
    "type_id": (WP, ["post_processor", "single"], [{"SpecialToken": {"id": "[CLS]", "type_id": None}},
                                                     {"Sequence": {"id": "A", "type_id": None}}]),
}


@pytest.mark.parametrize("field", sorted(NULLS))
def test_a_null_field_is_refused_or_read_as_absent_never_a_traceback(field):
    doc, path, *value = NULLS[field]
    text = changed(doc, path, value[0] if value else None)
    try:
        tok = load_uploaded_tokenizer("tokenizer.json", text.encode())
    except WordPieceError:
        return  # refused with a sentence: fine
    enc = tok.encode("hug hugs")
    assert enc.tokens and all(isinstance(t, str) for t in enc.tokens)
    assert all(isinstance(i, int) for i in enc.type_ids)
