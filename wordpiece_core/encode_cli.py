"""``python -m wordpiece_core encode --tokenizer FILE [TEXT ...]``.

TEXT arguments, or one text per line on standard input. Prints one JSON object
per text and line: ``{"tokens": [...], "ids": [...], "offsets": [[start, end], ...]}``
with post-processing applied (special tokens get ``[0, 0]``); ``--trace`` adds
how each word was encoded.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_encode_parser(sub) -> None:
    e = sub.add_parser(
        "encode",
        help="encode text with a tokenizer file",
        description="Encode TEXT arguments (or standard input, one text per line) and print one JSON object per text.",
    )
    e.add_argument("text", nargs="*", metavar="TEXT")
    e.add_argument("--tokenizer", required=True, metavar="FILE",
                   help="tokenizer.json, a BERT-style vocab.txt, vocab.json with merges.txt beside it, a .tiktoken "
                        "file, or the name of a tokenizer on the app's shelf (r50k_base, cl100k_base, o200k_base)")
    e.add_argument("--pair", default=None, metavar="TEXT", help="a second sequence (pair encoding)")
    e.add_argument("--no-special-tokens", action="store_true", help="do not add the post-processor's special tokens")
    e.add_argument("--trace", action="store_true", help="add the encode trace of every word")
    e.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=None,
                   help="vocab.txt only: lowercase (and strip accents from) the text first, as uncased BERT models "
                        "do (--lowercase), or not (--no-lowercase); by default guessed from the vocabulary "
                        "(uncased when at most 0.1 %% of its tokens start with a capital letter that has a "
                        "lower-case form)")
    e.set_defaults(func=run_encode)


def run_encode(args: argparse.Namespace) -> int:
    import os

    from . import shelf
    from .loading import load_tokenizer  # here: `train` starts without the encoder pipeline (~60M instructions)
    if args.tokenizer in shelf.SHELF and not os.path.exists(args.tokenizer):  # OpenAI's encodings, shipped
        tok = shelf.load(args.tokenizer)
    else:
        tok = load_tokenizer(args.tokenizer, lowercase=args.lowercase)
    texts = args.text if args.text else (line.rstrip("\r\n") for line in sys.stdin)
    out = sys.stdout
    for text in texts:
        enc = tok.encode(text, pair=args.pair, add_special_tokens=not args.no_special_tokens, trace=args.trace)
        out.write(json.dumps(enc.as_json(args.trace), ensure_ascii=False) + "\n")
    return 0
