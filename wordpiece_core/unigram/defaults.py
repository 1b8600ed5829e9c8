"""Unigram's defaults, named once: the plain trainers (reference.py, em.py), the fast one (engine.py), the
configuration (training.py) and the command line's help read them here."""

VOCAB_SIZE = 8_000  # tokenizers' UnigramTrainer's default vocabulary
TOP_K = 10  # the most expected pieces an EM iteration records
# The course rule (the Hugging Face course's loop)
COURSE_SEED = 300  # the initial vocabulary: the most frequent substrings
COURSE_PRUNE = 10.0  # the share of the vocabulary a round removes, in %
# The tokenizers rule (UnigramTrainer's defaults)
TOKENIZERS_SEED = 1_000_000  # seed pieces
SHRINKING = 0.75  # the share of the vocabulary a round keeps
SUB_ITERATIONS = 2  # EM iterations a round
MAX_PIECE_LENGTH = 16  # the longest piece, in characters
