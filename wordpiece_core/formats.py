"""Files: what a training writes, in Hugging Face's formats where one exists.

- ``tokenizer.json``: Hugging Face's single-file format; ``tokenizers.Tokenizer.from_file``
  loads it with the same normalizer, pre-tokenizer and model.
- ``vocab.txt``: one token per line, in id order (BERT's format).
- ``merges.txt`` and ``vocab.json`` (BPE only): ``left right`` per line in merge order,
  and the token → id map (GPT-2's pair of files).
- ``trace.jsonl``: one JSON object per merge step.
- ``training.json``: the settings, the stop reason and a summary.

`write_outputs` writes everything into a fresh temporary folder first and moves
the files into place only when all of them are written, so a failure leaves
nothing half-written.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any

from .errors import WordPieceError
from .trace import TIE_RULES, MergeStep, Training

UNK = "[UNK]"


def normalizer_json(name: str) -> dict[str, Any] | None:
    if name == "none":
        return None
    if name == "lowercase":
        return {"type": "Lowercase"}
    return {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": None,
        "lowercase": name == "bert",
    }


def pre_tokenizer_json(name: str, add_prefix_space: bool = False) -> dict[str, Any]:
    if name == "byte-level":
        return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": True, "use_regex": True}
    return {"type": {"whitespace": "Whitespace", "whitespace-split": "WhitespaceSplit", "bert": "BertPreTokenizer"}[name]}


def _template(vocab: dict[str, int]) -> dict[str, Any] | None:
    if "[CLS]" not in vocab or "[SEP]" not in vocab:
        return None

    def special(tok: str, type_id: int) -> dict[str, Any]:
        return {"SpecialToken": {"id": tok, "type_id": type_id}}

    def seq(name: str, type_id: int) -> dict[str, Any]:
        return {"Sequence": {"id": name, "type_id": type_id}}

    return {
        "type": "TemplateProcessing",
        "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
        "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
        "special_tokens": {
            tok: {"id": tok, "ids": [vocab[tok]], "tokens": [tok]} for tok in ("[CLS]", "[SEP]")
        },
    }


def tokenizer_json(training: Training, normalizer: str, pre_tokenizer: str, add_prefix_space: bool = False) -> dict[str, Any]:
    """The Hugging Face tokenizer.json document for a training."""
    cfg = training.config
    vocab_list = training.vocab
    vocab = {tok: i for i, tok in enumerate(vocab_list)}
    byte_level = pre_tokenizer == "byte-level"
    added = [
        {"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for t in dict.fromkeys(cfg.special_tokens)
    ]
    if cfg.algorithm == "wordpiece":
        model: dict[str, Any] = {
            "type": "WordPiece",
            "unk_token": UNK,
            "continuing_subword_prefix": cfg.prefix,
            "max_input_chars_per_word": 100,
            "vocab": vocab,
        }
        decoder: dict[str, Any] | None = {"type": "WordPiece", "prefix": cfg.prefix, "cleanup": True}
    else:
        model = {
            "type": "BPE",
            "dropout": None,
            "unk_token": UNK if UNK in vocab else None,
            "continuing_subword_prefix": cfg.prefix,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [[s.left, s.right] for s in training.steps],
        }
        decoder = {"type": "WordPiece", "prefix": cfg.prefix, "cleanup": True} if cfg.prefix else None
    processors = []
    if byte_level:
        processors.append({"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": True, "use_regex": True})
        decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    template = _template(vocab)
    if template is not None:
        processors.append(template)
    if not processors:
        post = None
    elif len(processors) == 1:
        post = processors[0]
    else:
        post = {"type": "Sequence", "processors": processors}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer_json(normalizer),
        "pre_tokenizer": pre_tokenizer_json(pre_tokenizer, add_prefix_space),
        "post_processor": post,
        "decoder": decoder,
        "model": model,
    }


def step_json(step: MergeStep, tie_rule: str) -> dict[str, Any]:
    """One line of trace.jsonl."""
    return {
        "step": step.step,
        "left": step.left,
        "right": step.right,
        "new_token": step.new_token,
        "pair_count": step.pair_count,
        "left_count": step.left_count,
        "right_count": step.right_count,
        "score": step.score_float,
        "score_exact": str(step.score),
        "ties": step.ties,
        "tie_rule": tie_rule,
        "vocab_size": step.vocab_size,
        "new_token_existed": step.new_token_existed,
        "merged_count": step.merged_count,
        "words_touched": len(step.words_touched),
        "loglik_delta": step.loglik_delta,
        "scaled_score": step.scaled_score,
        "candidates": [
            {
                "rank": c.rank, "left": c.left, "right": c.right, "new_token": c.new_token,
                "pair_count": c.pair_count, "left_count": c.left_count, "right_count": c.right_count,
                "score": c.score_float, "score_exact": str(c.score), "loglik_delta": c.loglik_delta,
            }
            for c in step.candidates
        ],
    }


def trace_lines(training: Training) -> list[str]:
    rule = training.config.tie_break
    return [json.dumps(step_json(s, rule), ensure_ascii=False) for s in training.steps]


def summary_json(training: Training, settings: dict[str, Any]) -> dict[str, Any]:
    cfg = training.config
    return {
        "algorithm": cfg.algorithm,
        "vocab_size_requested": cfg.vocab_size,
        "vocab_size": len(training.vocab),
        "merges": len(training.steps),
        "stop_reason": training.stop_reason,
        "special_tokens": list(cfg.special_tokens),
        "alphabet_size": len(training.initial_vocab) - len(dict.fromkeys(cfg.special_tokens)),
        "min_frequency": cfg.min_frequency,
        "tie_break": cfg.tie_break,
        "tie_rule": TIE_RULES[cfg.tie_break],
        "prefix": cfg.prefix,
        "words": len(training.words),
        "word_occurrences": sum(training.counts),
        **settings,
    }


def output_files(training: Training, normalizer: str, pre_tokenizer: str, add_prefix_space: bool = False) -> dict[str, str]:
    """File name → content for everything a training writes."""
    files = {
        "tokenizer.json": json.dumps(tokenizer_json(training, normalizer, pre_tokenizer, add_prefix_space), ensure_ascii=False, indent=2),
        "vocab.txt": "".join(t + "\n" for t in training.vocab),
        "trace.jsonl": "".join(line + "\n" for line in trace_lines(training)),
        "training.json": json.dumps(
            summary_json(training, {"normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "add_prefix_space": add_prefix_space}),
            ensure_ascii=False, indent=2,
        ),
    }
    if training.config.algorithm == "bpe":
        files["merges.txt"] = "".join(f"{s.left} {s.right}\n" for s in training.steps)
        files["vocab.json"] = json.dumps({t: i for i, t in enumerate(training.vocab)}, ensure_ascii=False, indent=2)
    return files


def check_output_dir(path: str) -> None:
    if os.path.exists(path) and not os.path.isdir(path):
        raise WordPieceError(f"--out {path} is an existing file; give a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise WordPieceError(f"--out {path}: the folder {parent} does not exist")


def write_outputs(path: str, files: dict[str, str]) -> list[str]:
    """Write all files into `path` (created if needed), all or nothing."""
    check_output_dir(path)
    parent = os.path.dirname(os.path.abspath(path))
    staging = tempfile.mkdtemp(prefix=".wordpiece-", dir=parent)
    try:
        for name, content in files.items():
            with open(os.path.join(staging, name), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(content)
        os.makedirs(path, exist_ok=True)
        for name in files:
            os.replace(os.path.join(staging, name), os.path.join(path, name))
    except OSError as exc:
        raise WordPieceError(f"could not write into {path}: {exc.strerror}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [os.path.join(path, name) for name in files]
