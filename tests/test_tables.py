"""wordpiece_ui/tables.py: trace records as DataFrames and display strings."""

from helpers import TOY, train_bpe, train_wordpiece
from wordpiece_ui import tables


def test_arithmetic_is_written_with_the_steps_numbers():
    t = train_wordpiece(TOY, 30)
    assert [tables.arithmetic(s, "wordpiece") for s in t.steps[:3]] == [
        "5 / (20 × 5) = 1/20 = 0.05",
        "15 / (15 × 36) = 1/36 ≈ 0.0278",
        "5 / (15 × 5) = 1/15 ≈ 0.0667",
    ]
    assert tables.arithmetic(train_bpe(TOY, 30).steps[0], "bpe") == "count(u g) = 20"


def test_steps_frame_tokens_per_word_falls_to_one():
    t = train_wordpiece(TOY, 30)
    frame = tables.steps_frame(t)
    assert tables.start_tokens_per_word(t) == (3 * 10 + 3 * 5 + 3 * 12 + 3 * 4 + 4 * 5) / 36
    assert frame["tokens per word"].iloc[-1] == 1.0  # every word is one token at the end
    assert list(frame["vocabulary"]) == [len(t.vocab_at(i)) for i in range(1, len(t.steps) + 1)]
