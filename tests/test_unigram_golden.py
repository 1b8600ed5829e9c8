"""The Hugging Face course's Unigram section ("Unigram tokenization"), number by number, against the plain
reference (wordpiece_core/unigram_reference.py).

Printed six-digit values are matched to the digits the course prints, ±1 in the last (it rounds unevenly: 16/210
is 0.0761905 and it prints 0.076191); the code section's full-precision values exactly."""

from __future__ import annotations

import math

import pytest

from wordpiece_core.unigram import reference as U
from wordpiece_core.pre_tokenizers import words_of

from helpers import COURSE as CODE_CORPUS  # the course's four sentences (its code section's corpus)
from helpers import TOY


def printed(value: float, text: str) -> bool:
    """`value` as the course prints it: the same digits, give or take one in the last."""
    decimals = len(text.split(".")[1])
    return abs(round(value, decimals) - float(text)) <= 1.01 * 10 ** -decimals


@pytest.fixture(scope="module")
def toy_costs():
    return U.probabilities(U.seed(TOY, whole_words=False))


@pytest.fixture(scope="module")
def code_words():
    counts: dict[str, int] = {}
    for text in CODE_CORPUS:  # the course's XLNet pre-tokenizer: split on spaces, ▁ before each word
        for word in words_of(text, "metaspace"):
            counts[word] = counts.get(word, 0) + 1
    return counts


def test_the_toy_vocabulary_is_every_strict_substring_with_its_count():
    seed = U.seed(TOY, whole_words=False)
    assert seed == {"h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16, "un": 16, "b": 4,
                    "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5}  # the course's table (its order differs)
    assert sum(seed.values()) == 210
    assert "pug" not in seed and "hugs" not in seed  # whole words that are inside no other word


def test_the_viterbi_table_of_unhug(toy_costs):
    tokens, cost, table = U.viterbi("unhug", toy_costs)
    assert tokens == ["un", "hug"]
    best_ending = [("u", "0.171429"), ("un", "0.076191"), ("un h", "0.005442"), ("un hu", "0.005442"),
                   ("un hug", "0.005442")]
    for cell, (split, p) in zip(table, best_ending):
        assert printed(math.exp(-cell.cost), p)
        assert " ".join(U.viterbi("unhug"[:cell.end], toy_costs)[0]) == split


def test_the_toy_words_best_splits_their_scores_and_the_loss(toy_costs):
    expected = {"hug": (["hug"], "0.071428"), "pug": (["p", "ug"], "0.007710"), "pun": (["p", "un"], "0.006168"),
                "bun": (["b", "un"], "0.001451"), "hugs": (["h", "ugs"], "0.001701")}
    for word, (split, p) in expected.items():
        tokens, cost, _ = U.viterbi(word, toy_costs)
        assert tokens == split  # the code's tie rule: the first split found stays (the prose has pu g, pu n, ...)
        assert printed(math.exp(-cost), p)
    assert round(U.loss(TOY, toy_costs), 1) == 169.8


def test_removing_hug_costs_23_5_and_removing_pu_nothing(toy_costs):
    scores = U.removal_scores(TOY, toy_costs)
    assert round(scores["hug"], 1) == 23.5
    assert scores["pu"] == 0.0
    assert set(scores) == {t for t in toy_costs if len(t) > 1}  # single characters are never candidates


def test_the_course_pug_probabilities_are_not_its_models(toy_costs):
    p = {split: math.exp(-sum(toy_costs[t] for t in split.split())) for split in ("p u g", "pu g", "p ug")}
    assert printed(5 / 210 * 36 / 210 * 20 / 210, "0.000389")  # what the course printed (P(p) taken as 5/210)
    assert printed(p["p u g"], "0.001322") and printed(p["pu g"], "0.007710") and printed(p["p ug"], "0.007710")
    assert "0.000389" in U.COURSE_ERRATA["pug"] and "0.001322" in U.COURSE_ERRATA["pug"]


def test_the_code_sections_seed_and_top_substrings(code_words):
    assert sum(code_words.values()) == 31
    seed = U.seed(code_words, 300)
    assert len(seed) == 300
    longer = [(t, c) for t, c in seed.items() if len(t) > 1][:10]
    assert longer == [("▁t", 7), ("is", 5), ("er", 5), ("▁a", 5), ("▁to", 4), ("to", 4), ("en", 4), ("▁T", 3),
                      ("▁Th", 3), ("▁Thi", 3)]


def test_the_code_sections_scores_and_loss_to_the_last_digit(code_words):
    costs = U.probabilities(U.seed(code_words, 300))
    tokens, cost, _ = U.viterbi("Hopefully", costs, U.COURSE_START)
    assert (tokens, cost) == (["H", "o", "p", "e", "f", "u", "ll", "y"], 41.5157494601402)
    assert U.viterbi("This", costs, U.COURSE_START)[1:2] == (6.288267030694535,)
    assert U.loss(code_words, costs, U.COURSE_START) == 413.10377642940875
    assert round(U.loss(code_words, costs), 8) == round(413.10377642940875 - 31, 8)  # the model's: 1 per word less
    scores = U.removal_scores(code_words, costs)
    assert scores["ll"] == 6.376412403623874
    assert scores["his"] == 0.0


@pytest.mark.slow
def test_the_code_sections_training_and_its_tokenization(code_words):
    final, rounds = U.train(code_words, 100, seed_size=300, prune_percent=10)
    assert len(final) == 98  # "while len(model) > 100" removes int(10 % of 108) = 10 in its last round
    assert [len(r.counts) for r in rounds][-1] == 108
    text = words_of("This is the Hugging Face course.", "metaspace")
    assert U.tokenize(text, U.probabilities(final)) == ["▁This", "▁is", "▁the", "▁Hugging", "▁Face", "▁", "c", "ou",
                                                         "r", "s", "e", "."]
    for r in rounds:  # each round removes the cheapest candidates, never a single character
        assert all(len(t) > 1 for t in r.removed)
        cut = r.scores[len(r.removed) - 1][1]
        assert all(score >= cut for _, score in r.scores[len(r.removed):])
        assert r.course_loss == pytest.approx(r.loss + 31)


def test_a_round_removes_at_least_one_token_and_single_characters_stay():
    final, rounds = U.train(TOY, 3, seed_size=None, prune_percent=10, whole_words=False)
    assert all(len(r.removed) >= 1 for r in rounds)
    assert set(final) == {"h", "u", "g", "p", "n", "b", "s"}  # the target is below the alphabet: characters stay
    assert U.viterbi("xyz", U.probabilities(final))[:2] == ([U.UNK], None)
