"""The special tokens this project names, defined once.

BERT's five (in the order of BERT's vocab.txt, which also starts with them), the unknown
token WordPiece and BPE fall back to, GPT-2's end-of-text marker for byte-level BPE, and the
unknown piece of SentencePiece-style (Unigram) models, `<unk>`.
BERT's template puts CLS and SEP around a sequence or a pair (`Template.bert()` in pipeline.py encodes with it;
formats.py writes it into tokenizer.json).
"""

UNK = "[UNK]"
CLS = "[CLS]"
SEP = "[SEP]"
BERT_SPECIALS = ("[PAD]", UNK, CLS, SEP, "[MASK]")
END_OF_TEXT = "<|endoftext|>"
UNK_PIECE = "<unk>"  # the unknown piece of SentencePiece-style (Unigram) models
# BERT's template: [CLS] A [SEP], and [CLS] A [SEP] B [SEP] with B's tokens of type 1 ("$A", "$B": the sequences)
BERT_SINGLE = ((CLS, 0), ("$A", 0), (SEP, 0))
BERT_PAIR = ((CLS, 0), ("$A", 0), (SEP, 0), ("$B", 1), (SEP, 1))
