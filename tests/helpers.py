"""The seeds' corpora, shared by the tests (and BERT's special tokens, from the core)."""

from wordpiece_core.special_tokens import BERT_SPECIALS

__all__ = ["BERT_SPECIALS", "COURSE", "TOY"]

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}

COURSE = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]
