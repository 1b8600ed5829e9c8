"""wordpiece_ui/notes.py: *Why this merge* names the pairs that tie with the winner before the next best."""

from wordpiece_core import build_config, train
from wordpiece_ui.notes import why_this_pair

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}  # the likelihood article's example


def test_a_bpe_tie_is_named_before_the_next_best_pair():
    training = train(WORDS, build_config("bpe", 20, pre_tokenizer="whitespace", special_tokens=()))
    first = training.steps[0]
    assert (first.left, first.right, first.pair_count, first.ties) == ("e", "s", 9, 2)
    assert why_this_pair(training, first) == (
        "**Why `e + s`?** It occurs 9 times. `s + t` ties with it (9 times); the tie rule picked this one (below). "
        "The next best pair, `w + e`, occurs 8 times. BPE merges the most frequent pair.")


def test_without_a_tie_the_note_goes_straight_to_the_runner_up():
    training = train(WORDS, build_config("wordpiece", 20, pre_tokenizer="whitespace", special_tokens=()))
    seen = set()
    for step in training.steps:
        note = why_this_pair(training, step)
        if note is not None:
            # one other pair "ties with it", several "tie with it"; with none, the note names no tie
            assert ("ties with it" in note, " tie with it" in note) == (step.ties == 2, step.ties > 2), (step.ties, note)
            seen.add(min(step.ties, 3))
    assert seen == {1, 2, 3}  # this training has steps of each kind
