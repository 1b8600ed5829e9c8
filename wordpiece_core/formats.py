"""Files: what a merge training (BPE, WordPiece) writes, in Hugging Face's formats where one exists, and the
output folder every training writes into (a Unigram training's files are unigram/files.py's, which uses the
normalizer and pre-tokenizer JSON here).

- ``tokenizer.json``: Hugging Face's single-file format; ``tokenizers.Tokenizer.from_file``
  loads it with the same normalizer, pre-tokenizer and model.
- ``vocab.txt``: one token per line, in id order (BERT's format).
- ``merges.txt`` and ``vocab.json`` (BPE only): ``left right`` per line in merge order,
  and the token → id map (GPT-2's pair of files).
- ``trace.jsonl``: one JSON object per merge step.
- ``training.json``: the settings, the stop reason and a summary.

`OutputFolder` (and `write_outputs`, which uses it) writes everything into a staging folder
first and moves the files into place only when all of them are written, so a failure leaves
nothing half-written.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from .errors import WordPieceError
from .special_tokens import BERT_PAIR, BERT_SINGLE, CLS, SEP, UNK
from .steps import Steps
from .records import MergeStep, exact_text, loglik_change, score_terms
from .reference import TIE_RULES, new_token
from .trace import Training


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
    """The pre-tokenizer's tokenizer.json section (Metaspace's serves as its decoder too)."""
    if name in ("metaspace", "metaspace-never", "metaspace-first"):
        return {"type": "Metaspace", "replacement": "\u2581",
                "prepend_scheme": {"metaspace": "always", "metaspace-never": "never"}.get(name, "first"), "split": True}
    if name == "byte-level":
        return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": True, "use_regex": True}
    return {"type": {"whitespace": "Whitespace", "whitespace-split": "WhitespaceSplit", "bert": "BertPreTokenizer"}[name]}


def _template(vocab: dict[str, int]) -> dict[str, Any] | None:
    """BERT's post-processor (special_tokens.BERT_SINGLE, _PAIR) as tokenizers' TemplateProcessing, when CLS and
    SEP exist."""
    if CLS not in vocab or SEP not in vocab:
        return None
    def items(parts: tuple[tuple[str, int], ...]) -> list[dict[str, Any]]:
        return [{"Sequence": {"id": name[1:], "type_id": type_id}} if name in ("$A", "$B")
                else {"SpecialToken": {"id": name, "type_id": type_id}} for name, type_id in parts]

    return {
        "type": "TemplateProcessing",
        "single": items(BERT_SINGLE),
        "pair": items(BERT_PAIR),
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


# trace.jsonl's layout, defined once: each line is a step's fields in this order (`step_json` makes the
# line's object; `step_lines` formats the same fields from the trace's columns with these templates).
STEP_FIELDS = (
    ("step", "%d"), ("left", "%s"), ("right", "%s"), ("new_token", "%s"), ("pair_count", "%d"),
    ("left_count", "%d"), ("right_count", "%d"), ("score", "%r"), ("score_exact", '"%s"'), ("ties", "%d"),
    ("tie_rule", "%s"), ("vocab_size", "%d"), ("new_token_existed", "%s"), ("merged_count", "%d"),
    ("words_touched", "%d"), ("loglik_delta", "%r"), ("scaled_score", "%r"), ("candidates", "[%s]"),
)
CANDIDATE_FIELDS = (
    ("rank", "%d"), ("left", "%s"), ("right", "%s"), ("new_token", "%s"), ("pair_count", "%d"),
    ("left_count", "%d"), ("right_count", "%d"), ("score", "%r"), ("score_exact", '"%s"'), ("loglik_delta", "%r"),
)


def _line_template(fields: tuple[tuple[str, str], ...]) -> str:
    """A JSON object's line with a %-format for each field's value."""
    return "{" + ", ".join(f'"{name}": {code}' for name, code in fields) + "}"


_STEP_LINE, _CANDIDATE = _line_template(STEP_FIELDS), _line_template(CANDIDATE_FIELDS)


def _object(fields: tuple[tuple[str, str], ...], *values: Any) -> dict[str, Any]:
    assert len(values) == len(fields)
    return dict(zip((name for name, _ in fields), values))


def step_json(step: MergeStep, tie_rule: str) -> dict[str, Any]:
    """One line of trace.jsonl, as an object: the step's fields (STEP_FIELDS)."""
    score = step.score
    return _object(
        STEP_FIELDS, step.step, step.left, step.right, step.new_token, step.pair_count, step.left_count,
        step.right_count, score.numerator / score.denominator, exact_text(score), step.ties, tie_rule,
        step.vocab_size, step.new_token_existed, step.merged_count, len(step.words_touched), step.loglik_delta,
        score.numerator * step.vocab_size_before / score.denominator,
        [_object(CANDIDATE_FIELDS, c.rank, c.left, c.right, c.new_token, c.pair_count, c.left_count,
                 c.right_count, c.score_float, exact_text(c.score), c.loglik_delta)
         for c in step.candidates])


def trace_lines(training: Training, start: int = 0, stop: int | None = None) -> Iterator[str]:
    """The lines of trace.jsonl, one at a time: `step_json` of every step (from `start` to `stop`), encoded.

    Formatted from templates straight from the trace's columns, without making a
    record per step and candidate; a test checks each line equals
    ``json.dumps(step_json(step), ensure_ascii=False)`` character for character.
    """
    return step_lines(training.steps, training.config.tie_break, start, stop)


def step_lines(steps: Steps, tie_break: str, start: int = 0, stop: int | None = None,
               first_step: int = 0) -> Iterator[str]:
    """`trace_lines` of `steps`, a part of a training that begins at step `first_step` (0-based)."""
    wp = steps.algorithm == "wordpiece"
    rule_text = _json_string(tie_break)
    quoted = [_json_string(t) for t in steps.tokens]
    tokens, prefix = steps.tokens, steps.prefix
    c_left, c_right, c_pair, c_lc, c_rc = (steps.c_left_id, steps.c_right_id, steps.c_pair_count,
                                          steps.c_left_count, steps.c_right_count)
    c_merged, c_new, starts = steps.c_merged, steps.c_new_count, steps.cand_start
    stop = len(steps) if stop is None else stop
    logliks = steps.loglik_deltas(start, stop)  # (only this range's: each part's writer computes its own)
    touched = steps.touched_counts(start, stop)
    for i in range(start, stop):
        a, b = steps.left_id[i], steps.right_id[i]
        pc, lc, rc = steps.pair_count[i], steps.left_count[i], steps.right_count[i]
        den = lc * rc if wp else 1
        score, exact = score_terms(pc, den)
        total = steps.total[i]
        cands = []
        for r in range(starts[i], starts[i + 1]):
            ca, cb = c_left[r], c_right[r]
            cp, cl, cr = c_pair[r], c_lc[r], c_rc[r]
            c_score, c_exact = score_terms(cp, cl * cr if wp else 1)
            made = new_token(tokens[ca], tokens[cb], prefix)
            cands.append(_CANDIDATE % (
                r - starts[i] + 1, quoted[ca], quoted[cb], _json_string(made), cp, cl, cr, c_score, c_exact,
                loglik_change(total, cl, cr, c_merged[r], ca == cb, c_new[r], made == tokens[ca], made == tokens[cb]),
            ))
        yield _STEP_LINE % (
            first_step + i + 1, quoted[a], quoted[b], quoted[steps.new_id[i]], pc, lc, rc, score, exact, steps.ties[i],
            rule_text, steps.vocab_size[i], "true" if steps.existed[i] else "false", steps.merged_count[i],
            touched[i - start], logliks[i - start], pc * steps.vocab_size_before(i) / den, ", ".join(cands),
        )


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


@runtime_checkable
class Written(Protocol):
    """A file that writes itself (trace_file.TraceFile)."""

    def write_to(self, path: str) -> None: ...


Content = str | Iterable[str] | Written  # a file's text, its pieces in order (written one by one), or the trace


def output_files(training: Training, normalizer: str, pre_tokenizer: str, add_prefix_space: bool = False,
                 trace: Written | None = None) -> dict[str, Content]:
    """File name → content for everything a training writes.

    trace: trace.jsonl (the large one: about 2 KB a step) as a file that writes itself, instead of
    one string; the command line gives a `trace_file.TraceFile`, which writes most of it during the
    training, in a second process, and the rest holding one line at a time."""
    vocab = training.vocab
    settings = {"normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "add_prefix_space": add_prefix_space,
                "files": list(output_names(training.config.algorithm))}
    files: dict[str, Content] = {
        "tokenizer.json": pretty_json(tokenizer_json(training, normalizer, pre_tokenizer, add_prefix_space)),
        "vocab.txt": vocab_txt(training),
        "trace.jsonl": trace if trace is not None else trace_jsonl(training),
        "training.json": json.dumps(summary_json(training, settings), ensure_ascii=False, indent=2),
    }
    if training.config.algorithm == "bpe":
        files["merges.txt"] = merges_txt(training)
        files["vocab.json"] = "{\n" + ",\n".join(f"  {_json_string(t)}: {i}" for i, t in enumerate(vocab)) + "\n}"
    return files


OUTPUT_NAMES = ("tokenizer.json", "vocab.txt", "trace.jsonl", "training.json", "merges.txt", "vocab.json")


def output_names(algorithm: str) -> tuple[str, ...]:
    """The files a training of `algorithm` writes (training.json lists them as "files")."""
    return OUTPUT_NAMES if algorithm == "bpe" else OUTPUT_NAMES[:4]


def _ours(path: str) -> set[str]:
    """The files of our names in the folder `path` that an earlier training of this tool wrote: those its
    training.json lists, or every name for a folder written before training.json listed them; none
    when the folder holds no training.json of ours."""
    try:
        with open(os.path.join(path, "training.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return set()
    if not isinstance(doc, dict) or not {"algorithm", "tie_rule", "stop_reason"} <= doc.keys():
        return set()  # a training.json, but not one this tool wrote
    listed = doc.get("files")
    if listed is None:
        return set(OUTPUT_NAMES)
    return {name for name in listed if name in OUTPUT_NAMES} if isinstance(listed, list) else set()


def _refuse_folders_named(path: str, names: Iterable[str]) -> None:
    """A folder inside `path` with the name of a file to write stops the run before anything is written."""
    folders = [name for name in names if os.path.isdir(os.path.join(path, name))]
    if folders:
        raise WordPieceError(
            f"--out {path} holds a folder named {', '.join(folders)}, where this training writes a file of that "
            "name; move or rename the folder, or give another --out (nothing was written)")


class OutputFolder:
    """Where a training's files go: checked and prepared before training, filled all at once.

    `prepare()` runs before the training: it creates `--out` if needed and a staging folder
    inside it (so the final renames never cross file systems, even when `--out` is a mount
    point), so a folder that cannot be written is reported before any work is done. It also
    refuses to replace a file of one of our names that no earlier training of this tool wrote
    (a user's own vocab.json), unless `overwrite`, and any folder of one of our names (no file can
    replace it: nothing is written, `overwrite` or not).
    `write()` writes every file into the staging folder, then moves them into place and
    removes the files an earlier training of this tool wrote that this one does not write (the
    folder then holds exactly one training's files, and nothing of the user's is removed). `close()` (also on errors and on SIGTERM, through
    the command line's handler) removes the staging folder, and `--out` itself if it was
    created here and never filled.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.ours: set[str] = set()  # the files an earlier training of this tool wrote here
        self.staging: str | None = None
        self.created = False
        self.moving = False  # the files are being moved into place (not all or nothing any more)
        self.filled = False

    def prepare(self, writing: Iterable[str] = OUTPUT_NAMES, overwrite: bool = False) -> None:
        """Check and make the folder before any work; `writing`: the names the training will write."""
        path = self.path
        if os.path.exists(path) and not os.path.isdir(path):
            raise WordPieceError(f"--out {path} is an existing file; give a directory")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise WordPieceError(f"--out {path}: the folder {parent} does not exist")
        if os.path.isdir(path):
            self.ours = _ours(path)
            _refuse_folders_named(path, writing)  # no file can replace one, --overwrite or not: nothing is written
            foreign = [name for name in writing if name not in self.ours and os.path.lexists(os.path.join(path, name))]
            if foreign and not overwrite:
                raise WordPieceError(
                    f"--out {path} holds {', '.join(foreign)}, which no earlier training of this tool wrote; "
                    "give another folder, or --overwrite to replace "
                    f"{'it' if len(foreign) == 1 else 'them'}")
        try:
            if not os.path.isdir(path):
                os.mkdir(path)
                self.created = True
            self.staging = tempfile.mkdtemp(prefix=".wordpiece-", dir=path)
        except OSError as exc:
            self.close()
            raise WordPieceError(f"--out {path} cannot be written: {exc.strerror or exc}") from None

    def write(self, files: Mapping[str, Content]) -> list[str]:
        if self.staging is None:
            self.prepare()
        assert self.staging is not None
        try:
            for name, content in files.items():
                if isinstance(content, Written):
                    content.write_to(os.path.join(self.staging, name))
                    continue
                with open(os.path.join(self.staging, name), "w", encoding="utf-8", newline="\n") as fh:
                    if isinstance(content, str):
                        fh.write(content)
                    else:
                        fh.writelines(content)
            _refuse_folders_named(self.path, files)  # (made since prepare: still all or nothing)
            self.moving = True
            for name in files:
                os.replace(os.path.join(self.staging, name), os.path.join(self.path, name))
            self.moving, self.filled = False, True
            for name in sorted(self.ours):  # an earlier training's files that this one does not write
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


def write_outputs(path: str, files: Mapping[str, Content], overwrite: bool = False) -> list[str]:
    """Write all files into `path` (created if needed), all or nothing."""
    folder = OutputFolder(path)
    folder.prepare(files.keys(), overwrite)
    return folder.write(files)
