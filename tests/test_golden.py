"""Golden tests: the seeds' published numbers, reproduced exactly.

Toy corpus (seeds 000 and 002): hug 10, pug 5, pun 12, bun 4, hugs 5.

BPE (seed 002): pair counts are u+g = 10 + 5 + 5 = 20, u+n = 12 + 4 = 16,
h+u = 15, so u+g wins; then u+n (16) beats h+ug (15); then h+ug (15).

WordPiece (seed 000): count(##u) = 10+5+12+4+5 = 36, count(##g) = 20, count(##s) = 5.
Step 1: ##g+##s = 5 / (20 × 5) = 1/20 beats every ##u pair (all 1/36).
Step 2: every remaining pair contains ##u and scores 1/36, six of them; the
first seen (h+##u, in "hug") wins.
Step 3: count(hu) = 15; hu+##g = 10 / (15 × 15) = 2/45 ≈ 0.044, hu+##gs =
5 / (15 × 5) = 1/15 ≈ 0.067. The course's prose says the two share 1/15 and
merges hu+##g; the arithmetic says hu+##gs alone has 1/15 and wins.
"""

from fractions import Fraction

from helpers import BERT_SPECIALS, COURSE, ROOT, TOY, train_bpe, train_wordpiece
from wordpiece_core import TextSettings, count_words
from wordpiece_core.replay import candidates_at, splits_at

# The vocabulary the course prints after its WordPiece loop (vocab_size = 70).
COURSE_VOCAB_70 = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##a", "##b", "##c", "##d", "##e", "##f", "##g", "##h",
    "##i", "##k", "##l", "##m", "##n", "##o", "##p", "##r", "##s", "##t", "##u", "##v", "##w", "##y", "##z",
    ",", ".", "C", "F", "H", "T", "a", "b", "c", "g", "h", "i", "s", "t", "u", "w", "y", "ab", "##fu", "Fa",
    "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm", "cha", "chap", "chapt", "##thm", "Hu",
    "Hug", "Hugg", "sh", "th", "is", "##thms", "##za", "##zat", "##ut",
]


def test_toy_bpe_three_merges():
    t = train_bpe(TOY, 10)
    assert [(s.left, s.right, s.pair_count) for s in t.steps] == [("u", "g", 20), ("u", "n", 16), ("h", "ug", 15)]
    assert t.vocab == ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
    assert splits_at(t, 4) == [["hug"], ["p", "ug"], ["p", "un"], ["b", "un"], ["hug", "s"]]


def test_toy_wordpiece_three_merges():
    t = train_wordpiece(TOY, 10)
    s1, s2, s3 = t.steps
    assert (s1.left, s1.right, s1.new_token) == ("##g", "##s", "##gs")
    assert (s1.pair_count, s1.left_count, s1.right_count, s1.score) == (5, 20, 5, Fraction(1, 20))
    assert s1.ties == 1
    assert (s2.left, s2.right, s2.score, s2.ties) == ("h", "##u", Fraction(1, 36), 6)
    assert (s3.left, s3.right, s3.new_token, s3.score) == ("hu", "##gs", "hugs", Fraction(1, 15))
    assert s3.ties == 1
    # The course's prose claims hu+##g ties at 1/15; its real score is 10/(15×15) = 2/45.
    hug = next(c for c in candidates_at(t, 3) if (c.left, c.right) == ("hu", "##g"))
    assert (hug.pair_count, hug.left_count, hug.right_count, hug.score) == (10, 15, 15, Fraction(2, 45))
    assert t.initial_vocab == ("##g", "##n", "##s", "##u", "b", "h", "p")


def test_toy_wordpiece_six_way_tie_lists_every_u_pair():
    t = train_wordpiece(TOY, 10, top_k=20)
    tied = [c for c in t.steps[1].candidates if c.score == Fraction(1, 36)]
    assert {(c.left, c.right) for c in tied} == {
        ("h", "##u"), ("##u", "##g"), ("p", "##u"), ("##u", "##n"), ("b", "##u"), ("##u", "##gs")
    }
    assert tied[0].rank == 1 and (tied[0].left, tied[0].right) == ("h", "##u")


def test_course_wordpiece_70_token_vocabulary():
    counts = count_words(COURSE, TextSettings("none", "bert"))
    assert counts == {
        "This": 3, "is": 2, "the": 1, "Hugging": 1, "Face": 1, "Course": 1, ".": 4, "chapter": 1, "about": 1,
        "tokenization": 1, "section": 1, "shows": 1, "several": 1, "tokenizer": 1, "algorithms": 1,
        "Hopefully": 1, ",": 1, "you": 1, "will": 1, "be": 1, "able": 1, "to": 1, "understand": 1, "how": 1,
        "they": 1, "are": 1, "trained": 1, "and": 1, "generate": 1, "tokens": 1,
    }
    t = train_wordpiece(counts, 70, special_tokens=BERT_SPECIALS)
    assert t.vocab == COURSE_VOCAB_70
    # The first scores the course prints (in pair insertion order) and its first merge.
    first = {(c.left, c.right): c.score_float for c in candidates_at(t, 1)}
    assert first[("T", "##h")] == 0.125
    assert first[("##h", "##i")] == 0.03409090909090909
    assert first[("##i", "##s")] == 0.02727272727272727
    assert first[("i", "##s")] == 0.1
    assert first[("t", "##h")] == 0.03571428571428571
    assert first[("##h", "##e")] == 0.011904761904761904
    assert (t.steps[0].left, t.steps[0].right, t.steps[0].score_float) == ("a", "##b", 0.2)


def test_benchmark_course_loop_is_the_course():
    """benchmarks/course_loop.py, the slow reference of bench_train.py's course row, is the course's code:
    on the course's corpus it prints the course's vocabulary (and our trainer's, above)."""
    import importlib.util

    path = ROOT / "benchmarks" / "course_loop.py"
    spec = importlib.util.spec_from_file_location("course_loop", path)
    assert spec is not None and spec.loader is not None
    course_loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course_loop)
    counts = count_words(COURSE, TextSettings("none", "bert"))
    assert course_loop.course_wordpiece(counts, 70, list(BERT_SPECIALS)) == COURSE_VOCAB_70


def test_course_bpe_19_merges():
    counts = count_words(COURSE, TextSettings("none", "byte-level"))
    assert list(counts)[:4] == ["This", "Ġis", "Ġthe", "ĠHugging"]
    t = train_bpe(counts, 50, special_tokens=["<|endoftext|>"])
    assert [(s.left, s.right) for s in t.steps] == [
        ("Ġ", "t"), ("i", "s"), ("e", "r"), ("Ġ", "a"), ("Ġt", "o"), ("e", "n"), ("T", "h"), ("Th", "is"),
        ("o", "u"), ("s", "e"), ("Ġto", "k"), ("Ġtok", "en"), ("n", "d"), ("Ġ", "is"), ("Ġt", "h"),
        ("Ġth", "e"), ("i", "n"), ("Ġa", "b"), ("Ġtoken", "i"),
    ]
    assert len(t.initial_vocab) == 31
    assert t.vocab[-19:] == ["Ġt", "is", "er", "Ġa", "Ġto", "en", "Th", "This", "ou", "se", "Ġtok", "Ġtoken",
                             "nd", "Ġis", "Ġth", "Ġthe", "in", "Ġab", "Ġtokeni"]
    first = {(c.left, c.right): c.pair_count for c in candidates_at(t, 1)}
    assert [first[p] for p in [("T", "h"), ("h", "i"), ("i", "s"), ("Ġ", "i"), ("Ġ", "t"), ("t", "h")]] == [3, 3, 5, 2, 7, 3]


def test_seed_004_code_output_vocabulary_of_20():
    """Seed 004's code (lowercase, whitespace split, min_frequency 1) prints this 20-token set.

    Its prose example is wrong twice: count(e) is 17, not 11 ("newest" has two e's),
    and (l, o) at 7/(7×7) = 1/7 is not the best first pair: w+##i and ##i+##d score
    3/(3×3) = 1/3. The code's own output agrees with the arithmetic.
    """
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    t = train_wordpiece(counts, 20, min_frequency=1)
    assert sorted(t.vocab) == ['##d', '##e', '##er', '##i', '##o', '##r', '##s', '##st', '##t', '##w',
                               'l', 'lo', 'low', 'lower', 'n', 'ne', 'new', 'w', 'wi', 'wid']
    s1 = t.steps[0]
    assert (s1.left, s1.right, s1.score, s1.ties) == ("w", "##i", Fraction(1, 3), 2)
    lo = next(c for c in candidates_at(t, 1) if (c.left, c.right) == ("l", "##o"))
    assert lo.score == Fraction(1, 7)
    e = next(c for c in candidates_at(t, 1) if c.right == "##e")
    assert e.right_count == 17


def test_seed_003_scaled_score_multiplies_by_the_vocabulary_size_and_keeps_the_winner():
    # "WordPiece Tokenization: A BPE Variant" scores count(ab) × |vocabulary| / (count(a) × count(b))
    # on "the quick brown fox jumps over the lazy dog". Its vocabulary has 29 entries (a space
    # token among them); ours, with the whitespace pre-tokenizer, has 28: [UNK], the 8 first
    # letters t q b f j o l d, and 19 continuing letters. So (t, ##h) scores 2 × 28 / (2 × 2) = 14
    # (the tutorial: 2 × 29 / (2 × 2) = 14.5), and (q, ##u) 1 × 28 / (1 × 2) = 14: ##u occurs in
    # "quick" and "jumps" (the tutorial counts it once and prints 29).
    counts = count_words(["the quick brown fox jumps over the lazy dog"], TextSettings("none", "whitespace"))
    t = train_wordpiece(counts, 40, special_tokens=("[UNK]",))
    first = t.steps[0]
    assert first.vocab_size_before == 28
    scaled = {(c.left, c.right): c.scaled_score for c in candidates_at(t, 1)}
    assert scaled[("t", "##h")] == 14 and scaled[("q", "##u")] == 14
    # The best pairs score 1 × 28 / (1 × 1) = 28: two tokens that occur once, together; the
    # course's rule takes the first met: ##i + ##c in "quick".
    assert (first.left, first.right, first.scaled_score) == ("##i", "##c", 28)
    # Multiplying every score of a step by the same size never changes the order.
    for s in t.steps:
        scaled_order = [c.scaled_score for c in s.candidates]
        assert scaled_order == sorted(scaled_order, reverse=True)


def test_vocab_size_too_large_stops_cleanly():
    t = train_wordpiece(TOY, 10_000)
    assert t.stop_reason == "no pair is left to merge"
    # Every word ends as one token after 9 merges: 7 characters + 9 merges = 16 tokens, the last pun.
    assert len(t.steps) == 9 and len(t.vocab) == 16 and t.vocab[-1] == "pun"
    assert sorted(splits_at(t, len(t.steps) + 1)) == sorted([[w] for w in TOY])
