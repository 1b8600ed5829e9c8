"""A real tokenizer's training replayed from its file (wordpiece_core/real_merges.py) and the Train page's view
of it (wordpiece_ui/real_merges_view.py)."""

from __future__ import annotations

import random

import pytest

from helpers import app
from wordpiece_core import shelf
from wordpiece_core.real_merges import Replay, agreement, comparable, kind_of, length_of, pair_of, token_text

GPT2_FIRST_MERGES = [("Ġ", "t"), ("Ġ", "a"), ("h", "e"), ("i", "n"), ("r", "e"), ("o", "n"), ("Ġt", "he"),
                     ("e", "r"), ("Ġ", "s"), ("a", "t"), ("Ġ", "w"), ("Ġ", "o")]  # GPT-2's merges.txt, lines 2-13


@pytest.fixture(scope="module")
def r50k() -> Replay:
    return Replay(shelf.ranked_tokens("r50k_base"), [], byte_level=True, by_rank=True)


def test_gpt2s_merges_replay_in_its_training_order(r50k):
    """r50k_base is GPT-2's vocabulary: its 50,000 merges, the first `Ġ` + `t`, the last `Ġg` + `azed`, as GPT-2's
    merges.txt lists them."""
    assert len(r50k) == 50_000
    assert [(s.left, s.right) for s in r50k.steps(1, 12)] == GPT2_FIRST_MERGES
    last = r50k.step(50_000)
    assert (last.left, last.right, last.token) == ("Ġg", "azed", "Ġgazed")
    assert token_text(r50k.step(7).token, True) == "␣the"


@pytest.mark.parametrize("name", shelf.SHELF)
def test_each_steps_pair_is_two_earlier_tokens_that_make_it(name):
    """For every encoding of the shelf, on a sample of steps: the pair joins into the step's token, and both of
    its tokens were learned before it (a broken pair search would give a later token, or a cut at 1)."""
    ranks = shelf.ranked_tokens(name)
    replay = Replay(ranks, [], byte_level=True, by_rank=True)
    for number in random.Random(3).sample(range(1, len(replay) + 1), 400):
        step = replay.step(number)
        assert step.left + step.right == step.token
        assert ranks[step.left] < ranks[step.token] and ranks[step.right] < ranks[step.token]


def test_a_pair_is_the_one_bpe_joins_last():
    """`abc` made from the ranks a, b, c, ab, abc is ab + c, not a + bc (bc is no token)."""
    ranks = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 9, "abc": 5}
    assert pair_of("abc", ranks) == ("ab", "c")  # bc ranks after abc: not there yet
    assert pair_of("abc", dict(ranks, bc=3, ab=4)) == ("a", "bc")  # bc ranked before ab: joined first


def test_a_merges_list_replays_as_it_is():
    replay = Replay({"a": 0, "b": 1, "ab": 2}, [("a", "b")], byte_level=False, by_rank=False)
    assert len(replay) == 1 and replay.step(1).token == "ab"


@pytest.mark.parametrize("token,byte_level,kind", [
    ("Ġthe", True, "Latin"), ("##ing", False, "Latin"), ("▁Привет", False, "Cyrillic"), ("क्ष", False, "Devanagari"),
    ("ab中", False, "mixed scripts"), ("12", False, "digits"), ("...", False, "punctuation and symbols"),
    ("ĠĠ", True, "white space"), ("âĢ", True, "part of a character"), ("\u0301", False, "other letters"),
    ("ĠÐŁ", True, "Cyrillic"), ("你好", False, "Han"),
])
def test_a_tokens_kind_is_its_letters_script(token, byte_level, kind):
    assert kind_of(token, byte_level) == kind


def test_lengths_and_comparison_set_aside_word_marks():
    assert length_of("Ġthe", True) == 3 and length_of("âĢ", True) == 1 and length_of("##ing", False) == 3
    assert comparable("Ġthe", True) == comparable("the", False) == comparable("##the", False) == "the"
    assert comparable("the</w>", False) == comparable("▁the", False) == "the"
    assert agreement(["th", "##e", "the", "##the"], False) == {"th": 1, "e": 2, "the": 3}


def test_the_train_page_replays_gpt2_and_marks_the_students_tokens():
    """The Train page under a BPE training of the course's toy corpus: GPT-2's step 1 (`Ġ` + `t`), the window of
    merges, the vocabulary's charts, and how many of the student's tokens GPT-2 has."""
    from wordpiece_ui import state

    at = app(corpus="course-toy", algorithm="bpe")
    assert "Step 1 of 50,000" not in " ".join(m.value for m in at.markdown)  # a closed panel draws nothing
    at.session_state[state.kept(state.REPLAY_OPEN)] = True  # opened
    at.run()
    text = " ".join(m.value for m in at.markdown)
    assert "**Step 1 of 50,000:** `Ġ` + `t` → `Ġt`" in text
    captions = " ".join(c.value for c in at.caption)
    assert "tokens your BPE training learned" in captions and "are r50k_base tokens too" in captions
    at.number_input(key="replay_step").set_value(7).run()
    assert "**Step 7 of 50,000:** `Ġt` + `he` → `Ġthe`" in " ".join(m.value for m in at.markdown)
    frame = at.dataframe[-1].value
    assert "␣the" in list(frame["as text"]) and "step in your BPE training" in frame.columns


def test_a_unigram_training_says_why_nothing_is_marked():
    from wordpiece_ui import state

    at = app(corpus="course-toy", algorithm="unigram")
    at.session_state[state.kept(state.REPLAY_OPEN)] = True
    at.run()
    assert any("Your training is Unigram" in c.value for c in at.caption)


def test_a_tokenizer_file_that_fails_to_load_is_refused_again_from_the_store_without_reading_it_again():
    from wordpiece_core.errors import WordPieceError
    from wordpiece_ui import caches

    calls = []

    def load():
        calls.append(1)
        raise WordPieceError("big.json: the pre-tokenizer 'UnicodeScripts' is not supported here")

    key = ("test refusal", random.random())
    for _ in range(3):
        with pytest.raises(WordPieceError, match="UnicodeScripts"):
            caches._loaded(key, load)
    assert len(calls) == 1  # the page's two reruns had the refusal from the store


def test_the_compare_page_sets_a_real_tokenizer_beside_the_trained_ones():
    """`real=o200k_base`: GPT-4o's cut of the held-out text beside BPE's and WordPiece's, its figures on that text
    only, and each frequent word as running text has it (after a space)."""
    at = app("pages/compare.py", corpus="course-toy", real="o200k_base")
    metrics = at.dataframe[-2].value
    real_rows = metrics[metrics["tokenizer"] == "o200k_base"]
    assert list(real_rows["on"]) == ["held-out text"]
    words = at.dataframe[-1].value
    assert "o200k_base" in words.columns and all(cell.startswith("␣") for cell in words["o200k_base"])
    assert any("o200k_base was not trained on these words" in c.value for c in at.caption)
    assert "o200k_base" in " ".join(m.value for m in at.markdown)  # its column of chips
