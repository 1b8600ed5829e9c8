"""The special tokens this project names, defined once.

BERT's five (in the order of BERT's vocab.txt, which also starts with them), the unknown
token WordPiece and BPE fall back to, GPT-2's end-of-text marker for byte-level BPE, and the
unknown piece of SentencePiece-style (Unigram) models, `<unk>`.
`Template.bert()` (pipeline.py) puts CLS and SEP around a sequence or a pair.
"""

UNK = "[UNK]"
CLS = "[CLS]"
SEP = "[SEP]"
BERT_SPECIALS = ("[PAD]", UNK, CLS, SEP, "[MASK]")
END_OF_TEXT = "<|endoftext|>"
UNK_PIECE = "<unk>"  # the unknown piece of SentencePiece-style (Unigram) models
