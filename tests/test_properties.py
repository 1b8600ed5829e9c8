"""Property tests: the incremental engine equals the plain trainer (wordpiece_core/reference.py).

Random small corpora over a tiny alphabet make ties, repeated letters
("aaaa": overlapping pairs) and merges that rebuild an existing token common,
which is where an incremental trainer goes wrong.
"""

import re
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wordpiece_core.engine import train
from wordpiece_core.reference import train as oracle_train
from wordpiece_core.replay import candidates_at, splits_at, splits_by_rank
from wordpiece_core.config import TrainerConfig
from wordpiece_core.errors import WordPieceError
from wordpiece_core.reference import new_token

pytestmark = pytest.mark.slow  # hundreds of random trainings per test

words = st.text(alphabet="abcab", min_size=1, max_size=7)
corpora = st.dictionaries(words, st.integers(min_value=1, max_value=9), min_size=1, max_size=12)
configs = st.fixed_dictionaries(
    {
        "algorithm": st.sampled_from(["wordpiece", "bpe"]),
        "tie_break": st.sampled_from(["first", "hf"]),
        "min_frequency": st.sampled_from([0, 0, 2, 4]),
        "vocab_size": st.integers(min_value=1, max_value=40),
        "special_tokens": st.sampled_from([(), ("[UNK]",), ("[PAD]", "[UNK]", "a")]),
        "bpe_prefix": st.sampled_from([None, None, "##"]),
        "top_k": st.sampled_from([0, 1, 5]),
    }
)


def _config(c):
    prefix = "##" if c["algorithm"] == "wordpiece" else c["bpe_prefix"]
    return TrainerConfig(
        algorithm=c["algorithm"], vocab_size=c["vocab_size"], min_frequency=c["min_frequency"],
        special_tokens=c["special_tokens"], tie_break=c["tie_break"], prefix=prefix, top_k=c["top_k"],
    )


def _assert_equals_oracle(corpus, cfg, **engine):
    got = train(corpus, cfg, **engine)
    steps, vocab, splits = oracle_train(
        corpus, cfg.algorithm, cfg.vocab_size, cfg.special_tokens, cfg.tie_break, cfg.min_frequency, cfg.prefix
    )
    assert [
        dict(left=s.left, right=s.right, new_token=s.new_token, pair_count=s.pair_count,
             left_count=s.left_count, right_count=s.right_count, score=s.score, ties=s.ties,
             new_token_existed=s.new_token_existed)
        for s in got.steps
    ] == steps
    assert got.vocab == vocab
    assert splits_at(got, len(got.steps) + 1) == [splits[w] for w in got.words]
    for s in got.steps:
        assert list(s.candidates) == candidates_at(got, s.step)[: cfg.top_k]


# A pair of WordPiece's window put to sleep (WordPieceChooser.requeue), then chosen: it has no `latest` entry.
_SLEPT_IN_THE_WINDOW = dict(
    corpus={"bab": 13, "b": 3186, "bcccb": 16, "caa": 17595, "bcc": 2, "ccc": 11},
    c=dict(algorithm="wordpiece", tie_break="first", min_frequency=0, vocab_size=10, special_tokens=(),
           bpe_prefix=None, top_k=3),
)


# BPE with ## under the course's rule: a merge re-makes "##aa", which exists already; a window pair's
# rank is forgotten and re-read with its count unchanged, so the window must re-key it (_choose_bpe).
_RANK_READ_AGAIN = dict(
    corpus={"##aa": 1, "##aaaaa": 1, "##a#a": 1, "a#a": 1, "###aa": 2},
    c=dict(algorithm="bpe", tie_break="first", min_frequency=0, vocab_size=9, special_tokens=(),
           bpe_prefix="##", top_k=5),
)


@settings(max_examples=400, deadline=None)
@given(corpora, configs)
@example(**_SLEPT_IN_THE_WINDOW)
@example(**_RANK_READ_AGAIN)
def test_incremental_equals_oracle(corpus, c):
    _assert_equals_oracle(corpus, _config(c))


# Words that hold '#' themselves, with the "##" prefix (WordPiece's, and BPE's when asked): merges then
# re-make tokens that exist already ("#" + "#a" spells "##a"), where a forgotten tie rank or a stale
# window entry shows. The random corpora above never contain '#'.
hashed_corpora = st.dictionaries(st.text(alphabet="a#a#b", min_size=1, max_size=7),
                                 st.integers(min_value=1, max_value=9), min_size=1, max_size=12)


# WordPiece, course's rule: step 12 re-makes "####a"; a saturated group then held an older entry of a
# pair whose rank had improved, and the pair was listed twice among the candidates (_group_top).
_IMPROVED_RANK_IN_A_GROUP = dict(
    corpus={"a#a#": 6, "aa#a": 6, "a": 3, "####aa": 4, "#a#a": 9, "###aa": 7, "#a": 5, "aa###": 9},
    c=dict(algorithm="wordpiece", tie_break="first", min_frequency=0, vocab_size=16, special_tokens=(),
           bpe_prefix="##", top_k=5),
)


# The same, with widely spread frequencies (a fresh-eyes review's random search found it).
_IMPROVED_RANK_IN_A_GROUP_2 = dict(
    corpus={"#aa": 707156, "a#b#baa": 818832, "##": 20138, "##b": 700400, "####aa": 776899, "a": 346803,
            "aab#a##a": 420100, "aa": 544502},
    c=dict(algorithm="wordpiece", tie_break="first", min_frequency=0, vocab_size=14, special_tokens=(),
           bpe_prefix="##", top_k=10),
)


@settings(max_examples=300, deadline=None)
@given(hashed_corpora, configs)
@example(**_IMPROVED_RANK_IN_A_GROUP)
@example(**_IMPROVED_RANK_IN_A_GROUP_2)
@example(**_RANK_READ_AGAIN)
def test_incremental_equals_oracle_with_hashes_in_words(corpus, c):
    _assert_equals_oracle(corpus, _config({**c, "bpe_prefix": "##"}))


@settings(max_examples=300, deadline=None)
@given(corpora, configs)
@example(**_SLEPT_IN_THE_WINDOW)
def test_the_engines_tuning_changes_no_result(corpus, c):
    """WordPiece's slack (how far a heap key may lag its pair's score) and floor (below which a re-pushed
    pair sleeps) only decide how much work a step does. At extreme values the rare paths are common: keys
    far too low, pairs of the window put to sleep, sleepers woken."""
    from wordpiece_core.engine import Tuning

    _assert_equals_oracle(corpus, _config(c), tuning=Tuning(slack=1.5, floor=0.99), self_check=True)


def _window_case(corpus, tie_break, top_k):
    return dict(corpus=corpus, c=dict(algorithm="bpe", tie_break=tie_break, min_frequency=0, vocab_size=40,
                                      special_tokens=(), bpe_prefix=None, top_k=top_k))


@settings(max_examples=150, deadline=None)
@given(corpora, configs)
# BPE keeps its best pairs from step to step (BpeChooser.choose). Under the course's rule a kept
# pair's tie rank grows when a merge after it shortens its first word, with its count unchanged:
# in these, a window that re-read only the changed counts would rank a kept pair too high.
@example(**_window_case({"baabba": 1}, "first", 3))
@example(**_window_case({"aabbaa": 1}, "first", 5))
@example(**_window_case({"cacbccc": 6}, "first", 10))
def test_top_k_equals_the_full_table_and_replay(corpus, c):
    cfg = _config(c)
    got = train(corpus, cfg)
    for s in got.steps:
        full = candidates_at(got, s.step)
        assert list(s.candidates) == full[: cfg.top_k]
        assert (full[0].left, full[0].right) == (s.left, s.right)


@settings(max_examples=200, deadline=None)
@given(corpora, configs)
def test_replay_through_the_touched_words_equals_replay_by_rank(corpus, c):
    got = train(corpus, _config(c))
    for step in range(1, len(got.steps) + 2):
        assert splits_at(got, step) == splits_by_rank(got, step)


@settings(max_examples=150, deadline=None)
@given(corpora, configs)
def test_deterministic_and_one_token_per_step(corpus, c):
    cfg = _config(c)
    a = train(corpus, cfg)
    b = train(dict(corpus), cfg)
    assert a == b
    size = len(a.initial_vocab)
    for s in a.steps:
        size += 0 if s.new_token_existed else 1
        assert s.vocab_size == size
        assert s.new_token_existed == (s.new_token in a.vocab_at(s.step - 1))
    assert len(a.vocab) == len(set(a.vocab)) == size


# Wide frequencies: a frequent token loses only a sliver of its count in a
# merge, so the WordPiece engine keeps its pairs' old (slightly low) heap keys
# and relies on its slack bound (WordPieceChooser.requeue); small counts never
# get there.
wide_corpora = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=8),
                               st.integers(min_value=1, max_value=1_000_000), min_size=2, max_size=20)


@settings(max_examples=200, deadline=None)
@given(wide_corpora, st.sampled_from(["first", "hf"]), st.sampled_from([0, 1, 4]))
def test_wordpiece_with_wide_frequencies_equals_oracle(corpus, tie_break, top_k):
    cfg = TrainerConfig(algorithm="wordpiece", vocab_size=45, tie_break=tie_break, top_k=top_k)
    got = train(corpus, cfg)
    steps, vocab, _ = oracle_train(corpus, "wordpiece", 45, (), tie_break, 0, "##")
    assert [(s.left, s.right, s.score, s.ties) for s in got.steps] == [
        (s["left"], s["right"], s["score"], s["ties"]) for s in steps
    ]
    assert got.vocab == vocab
    if top_k:
        for s in got.steps:
            assert list(s.candidates) == candidates_at(got, s.step)[: len(s.candidates)]


@settings(max_examples=100, deadline=None)
@given(corpora, st.fractions(min_value=Fraction(1, 50), max_value=Fraction(1, 2)))
def test_min_score_threshold(corpus, threshold):
    cfg = TrainerConfig(algorithm="wordpiece", vocab_size=60, min_score=threshold)
    got = train(corpus, cfg)
    steps, _, _ = oracle_train(corpus, "wordpiece", 60, min_score=threshold)
    assert [(s.left, s.right) for s in got.steps] == [(s["left"], s["right"]) for s in steps]
    assert all(s.score >= threshold for s in got.steps)


def _rescan(model, word):
    """BPE by definition: merge the lowest-rank adjacent pair, leftmost among equals, one at a time."""
    symbols, _ = model.initial(word)
    while True:
        best = None
        for i in range(len(symbols) - 1):
            r = model.ranks.get((symbols[i], symbols[i + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return symbols
        r, i = best
        symbols[i : i + 2] = [new_token(symbols[i], symbols[i + 1], model.prefix)]


_pieces = st.text(alphabet="abc", min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(merges=st.lists(st.tuples(_pieces, _pieces), max_size=12, unique=True),
       words=st.lists(st.text(alphabet="abcd", min_size=1, max_size=14), min_size=1, max_size=8))
def test_bpe_encoder_equals_the_rescan_definition(merges, words):
    from wordpiece_core.models import BPEModel

    vocab = {ch: i for i, ch in enumerate("abc")}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    model = BPEModel(vocab, merges)
    for word in words:
        result = model.tokenize(word, trace=True)
        assert list(result.tokens) == _rescan(model, word)
        assert list(model.tokenize(word).tokens) == list(result.tokens)  # cached path agrees
        if "d" not in word:  # 'd' is not in the vocabulary and, with no [UNK], is dropped
            assert [word[s:e] for s, e in result.spans] == list(result.tokens)
        if result.merges:
            assert list(result.merges[-1].split_after) == list(result.tokens)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10**9), st.integers(0, 0x10FFFF), st.integers(0, 0x10FFFF)),
                min_size=2, max_size=40, unique_by=lambda t: t[1:]))
def test_the_engines_fast_forms_of_the_hf_tie_rule_order_pairs_as_the_rule(entries):
    """BPE with tie-break hf: the best count first, then the smaller (left id, right id) (reference.ranked).
    The engine compares a pair as the string chr(left) + chr(right), and packs BPE's heap entries into ints."""
    from wordpiece_core.engine.keys import pack, packed_pair

    from wordpiece_core import reference

    pairs = {(f"t{a}", f"t{b}"): c for c, a, b in entries}
    names = {name for pair in pairs for name in pair}
    ids = {name: int(name[1:]) for name in names}
    ranked = reference.ranked(pairs, dict.fromkeys(names, 1), {}, ids, "bpe", "hf")
    by_rule = [(pairs[p], ids[p[0]], ids[p[1]]) for p in ranked]
    by_string = sorted(entries, key=lambda e: (-e[0], chr(e[1]) + chr(e[2])))
    by_packed = sorted(entries, key=lambda e: pack(chr(e[1]) + chr(e[2]), e[0]))
    assert by_string == by_rule and by_packed == by_rule
    assert all(packed_pair(pack(chr(a) + chr(b), c)) == chr(a) + chr(b) for c, a, b in entries)


@settings(max_examples=300, deadline=None)
@given(corpora, configs)
def test_remembered_first_seen_ranks_equal_a_fresh_search(corpus, c):
    """The engine remembers each pair's first-seen rank between steps (MergeState.first_rank); its
    self-check asserts before every step that every rank still in use equals a search of the current
    splits from the first word on."""
    train(corpus, _config({**c, "tie_break": "first"}), self_check=True)


@settings(max_examples=150, deadline=None)
@given(corpora, configs)
def test_dropping_stale_entries_at_every_step_changes_nothing(corpus, c):
    """The WordPiece heap drops its stale entries when it grows past twice its pairs (plus a margin);
    with no margin it does so at almost every step, and the trace must stay the oracle's."""
    from wordpiece_core.engine import Tuning

    cfg = _config({**c, "algorithm": "wordpiece"})
    got = train(corpus, cfg, tuning=Tuning(compact_above=0), self_check=True)
    steps, _, _ = oracle_train(corpus, cfg.algorithm, cfg.vocab_size, cfg.special_tokens, cfg.tie_break,
                               cfg.min_frequency, cfg.prefix)
    assert [(s.left, s.right, s.ties) for s in got.steps] == [(s["left"], s["right"], s["ties"]) for s in steps]
    assert [[(x.left, x.right) for x in s.candidates] for s in got.steps] == \
        [[(x.left, x.right) for x in s.candidates] for s in train(corpus, cfg).steps]


@settings(max_examples=200, deadline=None)
@given(corpora, configs)
def test_the_engines_self_check_holds_at_every_step(corpus, c):
    """Before every step the engine's self-check recounts the splits and asserts its state: the pair and
    token counts, the pair → words index, the histogram of counts, the remembered first ranks; BPE's
    heap and window (an entry no worse than each live pair); WordPiece's heap (a current entry within
    the slack of each pair's score) and its groups (a pair is grouped exactly when it is saturated and
    may merge, under the token the rule names, with no live heap key, waiting under a tie rank no worse
    than its rank now)."""
    cfg = _config(c)
    got = train(corpus, cfg, self_check=True)
    assert got.steps.column("pair_count") == train(corpus, cfg).steps.column("pair_count")


# Long words of two or three letters: a merge meets a word many times ("abababab", "aaaaaaa"), and the
# engine counts only the pairs around the occurrences (state._pairs_around) instead of the whole word.
repetitive_corpora = st.dictionaries(st.text(alphabet="aab", min_size=8, max_size=60),
                                     st.integers(min_value=1, max_value=9), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(repetitive_corpora, configs)
def test_long_repetitive_words_train_as_the_oracle_and_keep_the_self_check(corpus, c):
    cfg = _config(c)
    _assert_equals_oracle(corpus, cfg)
    train(corpus, cfg, self_check=True)


@given(st.integers(0, 10**30), st.integers(1, 10**30), st.integers(1, 10**30), st.sampled_from(["wordpiece", "bpe"]))
def test_the_trace_writers_score_terms_equal_the_rules_score(ab, a, b, algorithm):
    """trace.jsonl writes a score's float and exact text from the counts (records.score_terms) without
    making the Fraction reference.score makes; both must agree."""
    from wordpiece_core import reference
    from wordpiece_core.records import exact_text, score_terms

    exact = reference.score(algorithm, ab, a, b)
    assert score_terms(ab, a * b if algorithm == "wordpiece" else 1) == (float(exact), exact_text(exact))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab#c\u00e9", min_size=1, max_size=6), min_size=1, max_size=10),
       st.sampled_from(["wordpiece", "bpe"]), st.sampled_from([None, "##", "@"]),
       st.sampled_from([(), ("a",), ("##b", "[UNK]")]))
def test_the_engines_start_is_the_rules_initial_split_and_alphabet(words, algorithm, prefix, specials):
    """The engine builds the alphabet and the words' first splits with C-speed set and translate operations
    (engine/state.py); they must be reference.alphabet and reference.initial_split."""
    from wordpiece_core import reference
    from wordpiece_core.engine.state import MergeState, initial_alphabet

    if algorithm == "wordpiece" and not prefix:
        prefix = "##"
    cfg = TrainerConfig(algorithm=algorithm, prefix=prefix, special_tokens=specials)
    assert initial_alphabet(words, cfg) == reference.alphabet(words, algorithm, prefix, specials)
    state = MergeState(dict.fromkeys(words, 1), cfg)
    assert [[state.id_to_tok[ord(t)] for t in split] for split in state.words] == \
        [reference.initial_split(w, prefix) for w in dict.fromkeys(words)]


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(st.text(alphabet="ab#", min_size=1, max_size=7), max_size=14, unique=True),
       words=st.lists(st.text(alphabet="abc#", min_size=1, max_size=16), min_size=1, max_size=8))
def test_the_wordpiece_scan_by_token_lengths_equals_the_taught_scan(tokens, words):
    """Untraced, the scan tries only the lengths tokens have; traced, every length (as it is taught): the same
    tokens and spans, or the same [UNK]."""
    from wordpiece_core.models import WordPieceModel

    model = WordPieceModel({t: i for i, t in enumerate(["[UNK]"] + tokens)}, max_input_chars_per_word=100)
    for word in words:
        fast, taught = model.tokenize(word), model.tokenize(word, trace=True)
        assert (fast.tokens, fast.spans, fast.unknown) == (taught.tokens, taught.spans, taught.unknown), word


@settings(max_examples=400, deadline=None)
@given(tokens=st.lists(st.text(alphabet="ab#", min_size=1, max_size=7), max_size=14, unique=True),
       words=st.lists(st.text(alphabet="abc#", min_size=1, max_size=16), min_size=1, max_size=8),
       prefix=st.sampled_from(["##", "#", ""]))
def test_linmaxmatch_cuts_the_taught_scans_pieces_and_stops_where_it_stops(tokens, words, prefix):
    """LinMaxMatch (wordpiece_match.py, the untraced scan of a vocabulary with many token lengths) in one pass:
    the same tokens and spans as the scan taught, or the same [UNK] with the same position named (any prefix,
    words holding the prefix's characters, tokens that are prefixes of others)."""
    from wordpiece_core.models import WordPieceModel

    model = WordPieceModel({t: i for i, t in enumerate(["[UNK]"] + tokens)}, prefix=prefix,
                           max_input_chars_per_word=100)
    model.linear = True  # (chosen for a vocabulary of many token lengths)
    for word in words:
        fast, taught = model.tokenize(word), model.tokenize(word, trace=True)
        assert (fast.tokens, fast.spans, fast.unknown, fast.reason) == \
            (taught.tokens, taught.spans, taught.unknown, taught.reason), word


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.tuples(st.text(alphabet="abc", min_size=1, max_size=6), st.sampled_from([-1.0, -2.0, -2.5, -4.0])),
                       min_size=1, max_size=14, unique_by=lambda p: p[0]),
       words=st.lists(st.text(alphabet="abcd", min_size=1, max_size=20), min_size=1, max_size=6),
       unk=st.sampled_from([0, None]), byte_fallback=st.booleans())
def test_the_unigram_split_by_trie_walks_equals_the_lattices_best_path(pieces, words, unk, byte_fallback):
    """Untraced, a word's pieces are found by walking a trie of the pieces; traced, by trying each length and
    keeping the lattice: the same tokens and spans, ties (scores drawn from four values) kept as the lattice
    keeps them, unknown characters alike (or the same refusal without an unknown piece)."""
    from wordpiece_core.unigram.model import UnigramModel

    model = UnigramModel([("<unk>", 0.0)] + pieces, unk, byte_fallback=byte_fallback)
    for word in words:
        try:
            taught = model.tokenize(word, trace=True)
        except WordPieceError as refusal:
            with pytest.raises(WordPieceError, match=re.escape(str(refusal))):
                model.tokenize(word)
            continue
        fast = model.tokenize(word)
        assert (fast.tokens, fast.spans, fast.unknown) == (taught.tokens, taught.spans, taught.unknown), word


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.text(alphabet="abc", min_size=1, max_size=6), min_size=1, max_size=12, unique=True),
       word=st.text(alphabet="abcd", min_size=1, max_size=16))
def test_the_unigram_lattice_by_piece_lengths_holds_every_edge(pieces, word):
    """The lattice tries only the lengths pieces have: the same edges, in the same order, as trying every length."""
    from wordpiece_core.unigram.model import UnigramModel

    model = UnigramModel([("<unk>", 0.0)] + [(p, -1.0 - i) for i, p in enumerate(pieces)], 0)
    every = []
    for start in range(len(word)):
        single = False
        for end in range(start + 1, min(len(word), start + max(map(len, pieces + ["<unk>"]))) + 1):
            if word[start:end] in model.scores:
                single = single or end == start + 1
                every.append((start, end, word[start:end]))
        if not single:
            every.append((start, start + 1, "<unk>"))
    assert [(e.start, e.end, e.piece) for e in model.edges(word)] == every
