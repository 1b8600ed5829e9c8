"""wordpiece_core/engine: the incremental trainer's own behaviour.

That it makes reference.py's merges is checked in test_properties.py, the seeds' numbers in
test_golden.py. Here: it leaves the garbage collector as it was, ranks scores that are one float
exactly, and takes counts up to 2^63 − 1, refusing larger ones with the limit.
"""

import gc
from fractions import Fraction

import pytest

from helpers import TOY
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train


def test_training_restores_the_garbage_collector():
    assert gc.isenabled()
    train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=15))
    assert gc.isenabled()
    gc.disable()
    try:
        train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=15))
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("top_k", [0, 1, 10])
def test_scores_that_round_to_the_same_float_are_ranked_exactly(top_k):
    """WordPiece's engine compares scores as floats and checks near-equal ones exactly: here
    1/2^54 and 1/(2^54 + 1) are one float, so a float-only tie would hand the merge to a + ##b
    (smaller ids, the hf rule) though c + ##d scores higher, and call it a 2-way tie."""
    words = {"cd": 2**54, "ab": 2**54 + 1}
    assert 1 / 2**54 == 1 / (2**54 + 1)
    training = train(words, TrainerConfig(algorithm="wordpiece", vocab_size=6, tie_break="hf", top_k=top_k))
    first = training.steps[0]
    assert (first.left, first.right, first.ties) == ("c", "##d", 1)
    if top_k > 1:
        assert [(c.left, c.right) for c in first.candidates] == [("c", "##d"), ("a", "##b")]


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
def test_the_longest_word_a_merge_training_takes(algorithm):
    """A word of MAX_WORD_CHARS (a line of Chinese or Thai under a whitespace pre-tokenizer) trains; one longer is
    refused with one line naming its length and start."""
    from wordpiece_core.engine.training import MAX_WORD_CHARS
    from wordpiece_core.errors import WordPieceError

    assert MAX_WORD_CHARS >= 10_000
    long = "".join(chr(0x4E00 + (i * 7919) % 500) for i in range(MAX_WORD_CHARS))
    t = train({long: 1, "hug": 3}, TrainerConfig(algorithm=algorithm, vocab_size=560, top_k=2))
    assert len(t.steps) == 560 - len(t.initial_vocab) and t.steps
    with pytest.raises(WordPieceError, match=f"words of up to {MAX_WORD_CHARS:,} characters, and the corpus has one "
                                             f"of {MAX_WORD_CHARS + 1:,} .it starts 'x"):
        train({"x" + long: 1, "hug": 3}, TrainerConfig(algorithm=algorithm, vocab_size=560))


def test_the_largest_counts_a_training_takes():
    from wordpiece_core.errors import WordPieceError
    from wordpiece_core.engine import MAX_TOTAL

    t = train({"hug": MAX_TOTAL // 8, "pug": 5}, TrainerConfig(algorithm="wordpiece", vocab_size=12, top_k=2))
    s = t.steps[0]
    assert s.score == Fraction(s.pair_count, s.left_count * s.right_count)
    for count in (10**30, 10**400):
        try:
            train({"hug": count}, TrainerConfig(algorithm="wordpiece", vocab_size=12))
        except WordPieceError as exc:
            assert "9,223,372,036,854,775,807 (2^63 − 1)" in str(exc) and "'hug'" in str(exc)
        else:
            raise AssertionError("too large a count was accepted")
