"""The files a Unigram training writes: tokenizer.json (a Unigram model tokenizers loads), vocab.txt (each piece
and its log-probability, tab-separated, as SentencePiece's .vocab), trace.jsonl (one line a round) and
training.json (the settings and why it stopped).

trace.jsonl, one object a round:
  round            1, 2, ...
  vocab_size       the vocabulary at the round's start (special tokens left out)
  loss             the corpus's negative log-likelihood under the round's model (natural log)
  course_loss      the same as the course's code prints it (each word's score starts at 1: + words)
  removed          the pieces removed this round, cheapest first
  removed_scores   their removal scores (how much the loss grows without each), in the same order
  kept             the `top_k` cheapest pieces that stayed: [[piece, removal score], ...]
  vocab_size_after the vocabulary at the round's end

Under `--unigram-rule tokenizers`, one object a round (sizes count the trainer's own "<UNK>", as its
arithmetic does):
  round            1, 2, ...
  em               the round's EM iterations: [{sub_iteration, size_before, size_after, objective (the
                   average negative log-likelihood of a word occurrence, before the M-step), tokens (on the
                   best splits), dropped (pieces expected fewer than 0.5 times), top: [[piece, expected count,
                   new log-probability], ...] the `top_k` most expected}]
  vocab_size       the size after EM (the pruning's start)
  pruning          null in the last round (EM left at most 1.1 × the vocabulary size); else {target
                   (max(1.1 × vocab size, shrinking factor × size)), candidates (how many had an
                   alternative), unused (pieces no best split used that were not their own best split),
                   removed (the candidates cut, highest loss first), removed_losses, kept: [[piece, loss,
                   [alternative pieces]], ...] the `top_k` cheapest candidates kept}
  vocab_size_after the size after the pruning
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..formats import normalizer_json, pre_tokenizer_json, pretty_json
from ..special_tokens import UNK_PIECE
from .records import EMRound, Round
from .reference import COURSE_ERRATA

if TYPE_CHECKING:
    from .training import UnigramTraining

TIE_RULE = ("course: a word's split changes only for a strictly better one (starts left to right, shorter pieces "
            "first); equal removal scores keep the vocabulary's order (characters by first appearance, then "
            "substrings by count, equal counts by first appearance)")
EM_TIE_RULE = ("tokenizers: seed substrings tied in places × length ordered by the piece, higher code points first; "
               "a best split keeps the first path found (the longer last piece) on a tie; candidates tied in loss "
               "keep the model's order; the corpus's characters by code point (tokenizers: a hash set's order)")
OUTPUT_NAMES = ("tokenizer.json", "vocab.txt", "trace.jsonl", "training.json")


def final_pieces(counts: dict[str, int], special_tokens: tuple[str, ...]) -> list[tuple[str, float]]:
    """The vocabulary as tokenizers stores it: the special tokens (score 0), then the pieces by log-probability,
    highest first (equal ones in the vocabulary's order)."""
    kept = {piece: count for piece, count in counts.items() if piece not in special_tokens}  # a special token wins
    total = sum(kept.values())
    pieces = sorted(((piece, math.log(count / total)) for piece, count in kept.items()), key=lambda item: -item[1])
    return [(token, 0.0) for token in special_tokens] + pieces


def tokenizer_json(pieces: list[tuple[str, float]], special_tokens: tuple[str, ...], normalizer: str,
                   pre_tokenizer: str) -> dict[str, Any]:
    """tokenizer.json of a Unigram model: vocab as [piece, log-probability], unk_id, and the text pipeline."""
    ids: dict[str, int] = {}
    for i, (piece, _) in enumerate(pieces):
        ids.setdefault(piece, i)
    decoder = pre_tokenizer_json(pre_tokenizer) if pre_tokenizer.startswith("metaspace") else None
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in special_tokens],
        "normalizer": normalizer_json(normalizer),
        "pre_tokenizer": pre_tokenizer_json(pre_tokenizer),
        "post_processor": None,
        "decoder": decoder,
        "model": {"type": "Unigram", "unk_id": ids.get(UNK_PIECE), "vocab": [[p, s] for p, s in pieces],
                  "byte_fallback": False},
    }


def vocab_txt(pieces: list[tuple[str, float]]) -> str:
    return "".join(f"{piece}\t{score!r}\n" for piece, score in pieces)


def round_json(r: Round, top_k: int) -> dict[str, Any]:
    n = len(r.removed)  # the removed are the first n of the scores, cheapest first
    return {
        "round": r.number,
        "vocab_size": len(r.counts),
        "loss": r.loss,
        "course_loss": r.course_loss,
        "removed": r.removed,
        "removed_scores": [score for _, score in r.scores[:n]],
        "kept": [[t, score] for t, score in r.scores[n:n + top_k]],
        "vocab_size_after": len(r.counts) - n,
    }


def em_round_json(r: EMRound, top_k: int) -> dict[str, Any]:
    p = r.pruning
    pruning: dict[str, Any] | None = None
    after = len(r.pieces)
    if p is not None:
        n_cut = len(p.cut)
        kept = len(p.pieces) - n_cut
        pruning = {"target": p.target, "candidates": len(p.pieces), "unused": list(p.unused), "removed": list(p.cut),
                   "removed_losses": list(p.losses[kept:]),
                   "kept": [[p.pieces[k], p.losses[k], list(p.alternatives[k])]
                            for k in range(kept - 1, max(-1, kept - 1 - top_k), -1)]}
        after = len(r.pieces) - len(p.unused) - n_cut
    return {
        "round": r.number,
        "em": [{"sub_iteration": e.sub_iteration, "size_before": e.size_before, "size_after": e.size_after,
                "objective": e.objective, "tokens": e.tokens, "dropped": list(e.dropped),
                "top": [list(t) for t in e.top]} for e in r.em],
        "vocab_size": len(r.pieces),
        "pruning": pruning,
        "vocab_size_after": after,
    }


def output_files(pieces: list[tuple[str, float]], rounds: Sequence[Round | EMRound], settings: dict[str, Any],
                 special_tokens: tuple[str, ...], top_k: int, stop_reason: str, words: int,
                 occurrences: int) -> dict[str, str]:
    summary = {
        "algorithm": "unigram",
        "unigram_rule": settings["unigram_rule"],
        "vocab_size_requested": settings["vocab_size"],
        "vocab_size": len(pieces),
        "rounds": len(rounds),
        "stop_reason": stop_reason,
        "special_tokens": list(special_tokens),
        "tie_rule": TIE_RULE if settings["unigram_rule"] == "course" else EM_TIE_RULE,
        **({"course_errata": COURSE_ERRATA} if settings["unigram_rule"] == "course" else {}),
        "words": words,
        "word_occurrences": occurrences,
        **{k: v for k, v in settings.items() if k not in ("vocab_size", "unigram_rule")},
        "files": list(OUTPUT_NAMES),
    }
    return {
        "tokenizer.json": pretty_json(tokenizer_json(pieces, special_tokens, settings["normalizer"],
                                                     settings["pre_tokenizer"])),
        "vocab.txt": vocab_txt(pieces),
        "trace.jsonl": "".join(json.dumps(round_json(r, top_k) if isinstance(r, Round) else em_round_json(r, top_k),
                                          ensure_ascii=False) + "\n" for r in rounds),
        "training.json": json.dumps(summary, ensure_ascii=False, indent=2),
    }


def training_files(training: UnigramTraining, normalizer: str, pre_tokenizer: str, add_prefix_space: bool,
                   occurrences: int) -> dict[str, str]:
    """Every file of a training, as the command line writes them and the app's downloads give them."""
    config = training.config
    course = config.rule == "course"
    settings = {"unigram_rule": config.rule, "vocab_size": config.vocab_size, "seed_size": config.seed,
                **({"prune_percent": config.prune_percent} if course else
                   {"shrinking_factor": config.shrinking_factor, "sub_iterations": config.sub_iterations,
                    "max_piece_length": config.max_piece_length}),
                "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "add_prefix_space": add_prefix_space}
    return output_files(training.pieces, training.rounds, settings, config.special_tokens, config.top_k,
                        training.stop_reason, training.words, occurrences)
