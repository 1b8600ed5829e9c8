"""wordpiece_ui/compare.py: two trainings side by side: timelines, shared tokens, overlap, fertility."""

from helpers import TOY, train_bpe, train_wordpiece
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train
from wordpiece_ui import compare


def test_compare_on_the_toy_corpus():
    bpe, wp = train_bpe(TOY, 30), train_wordpiece(TOY, 30)
    timeline, first = compare.timelines({"BPE": bpe, "WordPiece": wp}, follow="hug")
    assert first == 1 and timeline.loc[0, ""] == "◆"
    assert timeline.loc[2, ""] == "★" and timeline.loc[3, ""] == "★"  # BPE step 3 and WordPiece step 4 make hug
    ov = compare.overlap(bpe, wp)
    # BPE: 7 letters + 7 merges; WordPiece: 7 + 9; by letters, only BPE has ug and un,
    # only WordPiece has bu, gs (##gs), hu and pu
    assert (ov.a_only, ov.b_only, ov.shared, ov.a_size, ov.b_size) == (["ug", "un"], ["bu", "gs", "hu", "pu"], 12, 14, 16)
    assert ov.jaccard == 12 / 18
    shared = compare.shared_steps("BPE", bpe, "WordPiece", wp)
    assert shared.set_index("token").loc["hug"].tolist() == [3, 4]


def test_overlap_counts_tokens_as_learned_and_spellings_apart():
    words = {"ab": 3, "b": 2, "ba": 1}  # WordPiece has both b and ##b
    bpe, wp = train_bpe(words, 30), train_wordpiece(words, 30)
    ov = compare.overlap(bpe, wp)
    assert (ov.a_tokens, ov.b_tokens) == (len(bpe.vocab), len(wp.vocab))
    assert ov.b_size < ov.b_tokens  # b and ##b are one spelling


def test_the_compare_page_explains_fertility_with_a_frequent_word():
    words = {"the": 500, "then": 40, "them": 30, "there": 30, "cat": 5, "hat": 5, "eat": 8, "tea": 6, "ten": 9}
    bpe = train(words, TrainerConfig(algorithm="bpe", vocab_size=22, top_k=0))
    wp = train(words, TrainerConfig(algorithm="wordpiece", vocab_size=22, top_k=0))
    note = compare.fertility_example(bpe, wp)
    assert note is not None and "`the`" in note and "Frequent parts are penalised" in note
