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
from math import gcd
from typing import Any

from .errors import WordPieceError
from .special_tokens import BERT_SPECIALS, CLS, SEP, UNK
from .tokenizer_schema import validate_tokenizer_doc
from .trace import TIE_RULES, MergeStep, Training, exact_text, loglik_change, merge_token


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
    """BERT's post-processor (Template.bert()) as tokenizers' TemplateProcessing, when CLS and SEP exist."""
    from .pipeline import Template

    if CLS not in vocab or SEP not in vocab:
        return None
    template = Template.bert()

    def items(parts: tuple[tuple[str, int], ...]) -> list[dict[str, Any]]:
        return [{"Sequence": {"id": name[1:], "type_id": type_id}} if name in ("$A", "$B")
                else {"SpecialToken": {"id": name, "type_id": type_id}} for name, type_id in parts]

    return {
        "type": "TemplateProcessing",
        "single": items(template.single),
        "pair": items(template.pair),
        "special_tokens": {tok: {"id": tok, "ids": [vocab[tok]], "tokens": [tok]} for tok in (CLS, SEP)},
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
            "merges": [list(m) for m in training.merges],
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


_json_string = json.encoder.encode_basestring  # a JSON string literal, as ensure_ascii=False writes it


def step_json(step: MergeStep, tie_rule: str) -> dict[str, Any]:
    """One line of trace.jsonl."""
    score = step.score
    num, den = score.numerator, score.denominator
    return {
        "step": step.step,
        "left": step.left,
        "right": step.right,
        "new_token": step.new_token,
        "pair_count": step.pair_count,
        "left_count": step.left_count,
        "right_count": step.right_count,
        "score": num / den,
        "score_exact": exact_text(score),
        "ties": step.ties,
        "tie_rule": tie_rule,
        "vocab_size": step.vocab_size,
        "new_token_existed": step.new_token_existed,
        "merged_count": step.merged_count,
        "words_touched": len(step.words_touched),
        "loglik_delta": step.loglik_delta,
        "scaled_score": num * step.vocab_size_before / den,
        "candidates": [
            {
                "rank": c.rank, "left": c.left, "right": c.right, "new_token": c.new_token,
                "pair_count": c.pair_count, "left_count": c.left_count, "right_count": c.right_count,
                "score": c.score_float, "score_exact": exact_text(c.score), "loglik_delta": c.loglik_delta,
            }
            for c in step.candidates
        ],
    }


_STEP_LINE = (
    '{"step": %d, "left": %s, "right": %s, "new_token": %s, "pair_count": %d, "left_count": %d, '
    '"right_count": %d, "score": %r, "score_exact": "%s", "ties": %d, "tie_rule": %s, "vocab_size": %d, '
    '"new_token_existed": %s, "merged_count": %d, "words_touched": %d, "loglik_delta": %r, '
    '"scaled_score": %r, "candidates": [%s]}'
)
_CANDIDATE = (
    '{"rank": %d, "left": %s, "right": %s, "new_token": %s, "pair_count": %d, "left_count": %d, '
    '"right_count": %d, "score": %r, "score_exact": "%s", "loglik_delta": %r}'
)


def _ratio(num: int, den: int) -> tuple[float, str]:
    """num / den as JSON writes a Fraction's float, and its exact text in lowest terms."""
    g = gcd(num, den)
    n, d = num // g, den // g
    return num / den, (str(n) if d == 1 else f"{n}/{d}")


def trace_lines(training: Training) -> list[str]:
    """The lines of trace.jsonl: `step_json` of every step, encoded.

    Formatted from templates straight from the trace's columns, without making a
    record per step and candidate; a test checks each line equals
    ``json.dumps(step_json(step), ensure_ascii=False)`` character for character.
    """
    steps = training.steps
    wp = steps.algorithm == "wordpiece"
    rule_text = _json_string(training.config.tie_break)
    quoted = [_json_string(t) for t in steps.tokens]
    tokens, prefix = steps.tokens, steps.prefix
    c_left, c_right, c_pair, c_lc, c_rc = (steps.c_left_id, steps.c_right_id, steps.c_pair_count,
                                          steps.c_left_count, steps.c_right_count)
    c_merged, c_new, starts = steps.c_merged, steps.c_new_count, steps.cand_start
    logliks = steps.loglik_deltas()
    touched = steps.touched_counts()
    lines = []
    for i in range(len(steps)):
        a, b = steps.left_id[i], steps.right_id[i]
        pc, lc, rc = steps.pair_count[i], steps.left_count[i], steps.right_count[i]
        den = lc * rc if wp else 1
        score, exact = _ratio(pc, den)
        total = steps.total[i]
        cands = []
        for r in range(starts[i], starts[i + 1]):
            ca, cb = c_left[r], c_right[r]
            cp, cl, cr = c_pair[r], c_lc[r], c_rc[r]
            c_score, c_exact = _ratio(cp, cl * cr if wp else 1)
            cands.append(_CANDIDATE % (
                r - starts[i] + 1, quoted[ca], quoted[cb], _json_string(merge_token(tokens[ca], tokens[cb], prefix)),
                cp, cl, cr, c_score, c_exact, loglik_change(total, cl, cr, c_merged[r], ca == cb, c_new[r]),
            ))
        lines.append(_STEP_LINE % (
            i + 1, quoted[a], quoted[b], quoted[steps.new_id[i]], pc, lc, rc, score, exact, steps.ties[i],
            rule_text, steps.vocab_size[i], "true" if steps.existed[i] else "false", steps.merged_count[i],
            touched[i], logliks[i], pc * steps.vocab_size_before(i) / den, ", ".join(cands),
        ))
    return lines


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


def pretty_json(doc: dict[str, Any]) -> str:
    """JSON indented like Hugging Face's own files, written quickly.

    ``json.dumps(indent=...)`` runs the pure-Python encoder, slow on a large
    vocabulary; here the model's vocab and merges are written one entry per
    line by the C encoder and spliced into the indented rest.
    """
    model = doc.get("model")
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), dict):
        return json.dumps(doc, ensure_ascii=False, indent=2)
    encode = json.JSONEncoder(ensure_ascii=False).encode
    marks = {"vocab": "\x00vocab\x00", "merges": "\x00merges\x00"}
    shell = {**doc, "model": {k: (marks[k] if k in marks and model[k] else v) for k, v in model.items()}}
    text = json.dumps(shell, ensure_ascii=False, indent=2)
    if any(text.count(encode(m)) != 1 for k, m in marks.items() if model.get(k)):  # a token spelled like a mark
        return json.dumps(doc, ensure_ascii=False, indent=2)
    pad = "\n" + " " * 6
    vocab = "{" + pad + ("," + pad).join(f"{_json_string(t)}: {i}" for t, i in model["vocab"].items()) + "\n    }"
    text = text.replace(encode(marks["vocab"]), vocab, 1)
    if model.get("merges"):
        merges = "[" + pad + ("," + pad).join(
            f"[{_json_string(m[0])}, {_json_string(m[1])}]" if isinstance(m, list) and len(m) == 2 else encode(m)
            for m in model["merges"]
        ) + "\n    ]"
        text = text.replace(encode(marks["merges"]), merges, 1)
    return text


def vocab_txt(training: Training) -> str:
    return "".join(t + "\n" for t in training.vocab)


def merges_txt(training: Training) -> str:
    return "".join(f"{a} {b}\n" for a, b in training.merges)


def trace_jsonl(training: Training) -> str:
    return "".join(line + "\n" for line in trace_lines(training))


def output_files(training: Training, normalizer: str, pre_tokenizer: str, add_prefix_space: bool = False) -> dict[str, str]:
    """File name → content for everything a training writes."""
    vocab = training.vocab
    files = {
        "tokenizer.json": pretty_json(tokenizer_json(training, normalizer, pre_tokenizer, add_prefix_space)),
        "vocab.txt": vocab_txt(training),
        "trace.jsonl": trace_jsonl(training),
        "training.json": json.dumps(
            summary_json(training, {"normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "add_prefix_space": add_prefix_space}),
            ensure_ascii=False, indent=2,
        ),
    }
    if training.config.algorithm == "bpe":
        files["merges.txt"] = merges_txt(training)
        files["vocab.json"] = "{\n" + ",\n".join(f"  {_json_string(t)}: {i}" for i, t in enumerate(vocab)) + "\n}"
    return files


OUTPUT_NAMES = ("tokenizer.json", "vocab.txt", "trace.jsonl", "training.json", "merges.txt", "vocab.json")


class OutputFolder:
    """Where a training's files go: checked and prepared before training, filled all at once.

    `prepare()` runs before the training: it creates `--out` if needed and a staging folder
    inside it (so the final renames never cross file systems, even when `--out` is a mount
    point), so a folder that cannot be written is reported before any work is done.
    `write()` writes every file into the staging folder, then moves them into place and
    removes the files of an earlier training that this one does not write (the folder then
    holds exactly one training's files). `close()` (also on errors and on SIGTERM, through
    the command line's handler) removes the staging folder, and `--out` itself if it was
    created here and never filled.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.staging: str | None = None
        self.created = False
        self.moving = False  # the files are being moved into place (not all or nothing any more)
        self.filled = False

    def prepare(self) -> None:
        path = self.path
        if os.path.exists(path) and not os.path.isdir(path):
            raise WordPieceError(f"--out {path} is an existing file; give a directory")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise WordPieceError(f"--out {path}: the folder {parent} does not exist")
        try:
            if not os.path.isdir(path):
                os.mkdir(path)
                self.created = True
            self.staging = tempfile.mkdtemp(prefix=".wordpiece-", dir=path)
        except OSError as exc:
            self.close()
            raise WordPieceError(f"--out {path} cannot be written: {exc.strerror or exc}") from None

    def write(self, files: dict[str, str]) -> list[str]:
        if self.staging is None:
            self.prepare()
        assert self.staging is not None
        try:
            for name, content in files.items():
                with open(os.path.join(self.staging, name), "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(content)
            self.moving = True
            for name in files:
                os.replace(os.path.join(self.staging, name), os.path.join(self.path, name))
            self.moving, self.filled = False, True
            for name in OUTPUT_NAMES:  # an earlier training's files that this one does not write
                old = os.path.join(self.path, name)
                if name not in files and os.path.isfile(old):
                    os.remove(old)
        except OSError as exc:
            raise WordPieceError(f"could not write into {self.path}: {exc.strerror or exc}") from None
        finally:
            self.close()
        return [os.path.join(self.path, name) for name in files]

    def close(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if self.created and not self.filled:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
            self.created = False


def write_outputs(path: str, files: dict[str, str]) -> list[str]:
    """Write all files into `path` (created if needed), all or nothing."""
    return OutputFolder(path).write(files)


# ----- reading ------------------------------------------------------------------------

_NORMALIZER_NAMES = {None: "none", "Lowercase": "lowercase"}
_PRE_NAMES = {"Whitespace": "whitespace", "WhitespaceSplit": "whitespace-split", "BertPreTokenizer": "bert",
              "ByteLevel": "byte-level"}


def tokenizer_from_training(training: Training, normalizer: str, pre_tokenizer: str, add_prefix_space: bool = False):
    """A ready-to-use `Tokenizer` for a training (the same one its tokenizer.json describes)."""
    return tokenizer_from_json(tokenizer_json(training, normalizer, pre_tokenizer, add_prefix_space), "the training")


def _unsupported(where: str, what: object, name: str) -> WordPieceError:  # what: a type name, or None
    return WordPieceError(f"{name}: the {where} {what!r} is not supported here "
                          "(supported: WordPiece or BPE models with the normalizers none, Lowercase, BertNormalizer "
                          "and the pre-tokenizers Whitespace, WhitespaceSplit, BertPreTokenizer, ByteLevel)")


def _normalizer_name(spec: dict | None, name: str) -> str:
    if spec is None:
        return "none"
    kind = spec.get("type")
    if kind == "Sequence" and len((spec.get("normalizers") or [])) == 1:
        return _normalizer_name(spec["normalizers"][0], name)
    if kind == "Lowercase":
        return "lowercase"
    if kind == "BertNormalizer":
        lower = spec.get("lowercase", True)
        strip = spec.get("strip_accents")
        strip = lower if strip is None else strip
        if not spec.get("clean_text", True) or not spec.get("handle_chinese_chars", True) or strip != lower:
            raise _unsupported("normalizer", "BertNormalizer with these options", name)
        return "bert" if lower else "bert-cased"
    raise _unsupported("normalizer", kind, name)


def _pre_tokenizer(spec: dict | None, name: str) -> tuple[str, bool]:
    if spec is None:
        raise WordPieceError(f"{name}: no pre-tokenizer is set; this tool needs one to find words")
    kind = spec.get("type")
    if kind == "Sequence" and len((spec.get("pretokenizers") or [])) == 1:
        return _pre_tokenizer(spec["pretokenizers"][0], name)
    if kind not in _PRE_NAMES:
        raise _unsupported("pre-tokenizer", kind, name)
    if kind == "ByteLevel" and not spec.get("use_regex", True):
        raise _unsupported("pre-tokenizer", "ByteLevel without its regex", name)
    return _PRE_NAMES[kind], bool(spec.get("add_prefix_space", False))


def _template_from(spec: dict | None, name: str):
    from .pipeline import Template

    if spec is None:
        return None, None
    kind = spec.get("type")
    if kind == "Sequence":
        template, trim = None, None
        for sub in (spec.get("processors") or []):
            t, tr = _template_from(sub, name)
            template = template or t
            trim = trim if tr is None else tr
        return template, trim
    if kind == "ByteLevel":
        return None, bool(spec.get("add_prefix_space", True))
    if kind == "BertProcessing":
        cls, sep = spec["cls"][0], spec["sep"][0]
        return Template.bert(cls, sep), None
    if kind == "TemplateProcessing":
        def parse(items):
            out = []
            for item in items:
                if "SpecialToken" in item:
                    out.append((item["SpecialToken"]["id"], item["SpecialToken"].get("type_id") or 0))
                else:
                    out.append(("$" + item["Sequence"]["id"], item["Sequence"].get("type_id") or 0))
            return tuple(out)
        return Template(parse(spec.get("single") or []), parse(spec.get("pair") or [])), None
    raise _unsupported("post-processor", kind, name)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def parse_json(text: str, name: str) -> Any:
    """JSON text → Python, with a sentence for each way it can fail."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise WordPieceError(f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise WordPieceError(f"{name} is nested too deeply to be a tokenizer file") from None


def tokenizer_from_json(doc: dict, name: str):
    """Build a `Tokenizer` from a tokenizer.json document."""
    from .models import BPEModel, WordPieceModel
    from .pipeline import Tokenizer

    validate_tokenizer_doc(doc, name)
    model_spec = doc["model"]
    kind = model_spec.get("type")
    vocab = model_spec.get("vocab")
    if kind == "WordPiece" or (kind is None and "continuing_subword_prefix" in model_spec and "merges" not in model_spec):
        if not isinstance(vocab, dict):
            raise WordPieceError(f"{name}: the WordPiece model has no vocabulary")
        model: WordPieceModel | BPEModel = WordPieceModel(vocab, (model_spec.get("unk_token") or UNK), (model_spec.get("continuing_subword_prefix") or "##"),
                               (100 if model_spec.get("max_input_chars_per_word") is None else model_spec["max_input_chars_per_word"]))
    elif kind == "BPE" or (kind is None and "merges" in model_spec):
        if not isinstance(vocab, dict):
            raise WordPieceError(f"{name}: the BPE model has no vocabulary")
        if model_spec.get("dropout"):
            raise _unsupported("BPE option", "dropout", name)
        if model_spec.get("end_of_word_suffix"):
            raise _unsupported("BPE option", "end_of_word_suffix", name)
        if model_spec.get("byte_fallback"):
            raise _unsupported("BPE option", "byte_fallback", name)
        merges = []
        for m in model_spec.get("merges") or []:
            pair = tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1))
            if len(pair) != 2:
                raise WordPieceError(f"{name}: a merge {m!r} is not a pair of tokens")
            merges.append(pair)
        model = BPEModel(vocab, merges, model_spec.get("unk_token"), model_spec.get("continuing_subword_prefix"))
    else:
        raise _unsupported("model", kind, name)
    normalizer = _normalizer_name(doc.get("normalizer"), name)
    pre, add_prefix_space = _pre_tokenizer(doc.get("pre_tokenizer"), name)
    template, trim_prefix = _template_from(doc.get("post_processor"), name)
    specials = tuple(t["content"] for t in (doc.get("added_tokens") or []) if t.get("content") in vocab)
    decoder_spec = doc.get("decoder") or {}
    decoder = {"WordPiece": "wordpiece", "ByteLevel": "byte-level"}.get(str(decoder_spec.get("type")))
    return Tokenizer(model, normalizer, pre, add_prefix_space, specials, template,
                     trim_prefix_space=trim_prefix, decoder=decoder)


def guess_lowercase(tokens: list[str], file_name: str = "vocab.txt") -> bool:
    """Whether a vocab.txt looks uncased: named vocab.txt and no token starts with a capital."""
    return file_name.lower().endswith("vocab.txt") and not any(
        t[:1].isupper() for t in tokens if not t.startswith("["))


def load_tokenizer(path: str, merges_path: str | None = None, lowercase: bool | None = None):
    """Load tokenizer.json, a BERT-style vocab.txt, or vocab.json (+ merges.txt beside it).

    A vocab.txt does not say whether its model lowercases the text first: `lowercase` says
    so (True: the `bert` normalizer, False: `bert-cased`); None guesses, as `guess_lowercase`.
    """
    from .corpus import read_file_bytes
    from .models import BPEModel, WordPieceModel
    from .pipeline import Template, Tokenizer

    data = read_file_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise WordPieceError(f"{path} is not a UTF-8 text file; expected tokenizer.json, vocab.txt or vocab.json") from None
    base = os.path.basename(path).lower()
    stripped = text.lstrip()
    if stripped.startswith("{") or (stripped.startswith("[") and _is_json(stripped)):
        doc = parse_json(text, path)
        if isinstance(doc, dict) and "model" in doc:
            return tokenizer_from_json(doc, path)
        if isinstance(doc, dict) and doc and all(isinstance(v, int) and not isinstance(v, bool) for v in doc.values()):
            merges_file = merges_path or os.path.join(os.path.dirname(path), "merges.txt")
            if not os.path.exists(merges_file):
                raise WordPieceError(f"{path} is a vocab.json; put merges.txt beside it")
            merges = []
            for line in read_file_bytes(merges_file).decode("utf-8").splitlines():
                if not line.strip() or line.startswith("#version"):
                    continue
                parts = line.split(" ")
                if len(parts) != 2:
                    raise WordPieceError(f"{merges_file}: the line {line!r} is not 'left right'")
                merges.append((parts[0], parts[1]))
            byte_level = any("Ġ" in t for t in doc)
            model = BPEModel(doc, merges, UNK if UNK in doc else None)
            return Tokenizer(model, "none", "byte-level" if byte_level else "whitespace",
                             special_tokens=tuple(t for t in doc if t.startswith(("<|", "[")) and t.endswith(("|>", "]"))))
        raise WordPieceError(f"{path} is JSON but neither a tokenizer.json nor a vocab.json")
    if "\x00" in text:
        raise WordPieceError(f"{path} looks like a binary file, not a vocabulary")
    tokens = [line.rstrip("\r") for line in text.split("\n")]
    while tokens and tokens[-1] == "":
        tokens.pop()
    if not tokens:
        raise WordPieceError(f"{path} is empty")
    vocab: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        vocab.setdefault(tok, i)
    cased = not guess_lowercase(tokens, base) if lowercase is None else not lowercase
    specials = tuple(t for t in BERT_SPECIALS if t in vocab)
    template = Template.bert() if CLS in vocab and SEP in vocab else None
    return Tokenizer(WordPieceModel(vocab), "bert-cased" if cased else "bert", "bert", False, specials, template,
                     decoder="wordpiece")
