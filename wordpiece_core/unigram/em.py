"""Unigram as tokenizers' `UnigramTrainer` trains it (the `tokenizers` rule): the plain, readable version.

The course's loop (reference.py) computes every token's exact loss increase, which costs a split of the
whole corpus per token. The production trainer (tokenizers, after SentencePiece) makes three approximations:

1. Seed (`seed_pieces`): every character (counted over the corpus), then the substrings of 2 to
   `max_piece_length` characters that occur at least twice among the *distinct* words and are followed by at
   least two different characters (the end of a word counts as one): the inner nodes of the suffix tree of
   the distinct words joined by "\\0". A substring's score is its number of places × its length; a
   character's, its count. The highest `seed_size` make the seed, log-normalised.
2. EM, `sub_iterations` times a round:
   - E-step (`e_step`): each word's lattice (every piece that fits at each position) gives, by the
     forward-backward sums, the expected number of times each piece is used over all the word's splits,
     weighted by their probabilities (not only the best split, as the course does); × the word's count.
   - M-step (`m_step`): a piece expected fewer than 0.5 times is dropped; the others get
     digamma(expected) - digamma(total), a Bayesian form of log(expected / total) that pulls rare pieces
     down more than frequent ones.
3. Prune (`prune`): each piece's loss is approximated without splitting the corpus again: if the piece
   were removed, each of its uses on a best split would become its second-best split (`alternatives`),
   so the loss is (its share of the words) × (log p(piece) - Σ log p(alternative pieces)) with the
   frequencies moved over. A piece that is its own second-best split has no alternative and stays; one that
   no best split uses and that is not its own best split goes. The rest are kept highest loss first until
   max(1.1 × vocab_size, shrinking_factor × the size) pieces remain.
4. Rounds repeat until EM leaves at most 1.1 × vocab_size pieces; `finalize` keeps every character of the
   corpus, then pieces in the model's order until vocab_size, sorted by score.

The trainer's own unknown piece, "<UNK>", is piece 0 throughout (it covers a character no piece covers,
scored the lowest score - 10) and is left out at the end. Ties follow the trainer: Python's stable sorts
stand for its stable sorts; pieces tied in seed score are ordered by the piece, higher code points first.
Where tokenizers' own order is not defined (it iterates hash sets of words and characters, and sums over
threads), we use the corpus's order and characters by code point, so a run here is deterministic while
tokenizers' floats can differ in their last digits from run to run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .defaults import MAX_PIECE_LENGTH, SHRINKING, SUB_ITERATIONS, TOKENIZERS_SEED, TOP_K, VOCAB_SIZE
from .records import EMRound, EMStep, Pruning

TRAINING_UNK = "<UNK>"  # the trainer's own unknown piece, piece 0 while training
UNK_PENALTY = 10.0
EXPECTED_THRESHOLD = 0.5  # the M-step drops a piece expected fewer times than this
LOG_EPSILON = 50.0  # log_sum_exp's cut-off, as tokenizers'


def digamma(x: float) -> float:
    """tokenizers' digamma (the derivative of log Γ), term for term; digamma(0) is -inf, as 1 / 0 is in Rust."""
    if x == 0.0:
        return -math.inf
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (math.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


def log_sum_exp(x: float, y: float) -> float:
    """log(e^x + e^y), computed as tokenizers does (a difference over 50 keeps the larger alone)."""
    low, high = (y, x) if x > y else (x, y)
    return high if high > low + LOG_EPSILON else high + math.log(math.exp(low - high) + 1.0)


# ---------------------------------------------------------------------------------------------------- seed

def right_branching_substrings(words: Iterable[str], max_length: int) -> dict[str, int]:
    """Substrings of 2..max_length characters that occur at least twice among `words` (each word once, every
    place counted) and are followed by two different characters somewhere (a word's end counts as one):
    what the suffix array's inner nodes give tokenizers, without building it. One length at a time, so only
    one length's substrings are in memory at once."""
    words = list(words)
    found: dict[str, int] = {}
    for length in range(2, max_length + 1):
        places: dict[str, int] = {}
        follower: dict[str, str] = {}  # the one character seen after it so far; "" once two differ
        for word in words:
            n = len(word)
            for i in range(n - length + 1):
                s = word[i:i + length]
                after = word[i + length] if i + length < n else "\0"
                known = follower.get(s)
                if known is None:
                    places[s] = 1
                    follower[s] = after
                else:
                    places[s] += 1
                    if known != after:
                        follower[s] = ""
        found.update((s, c) for s, c in places.items() if c >= 2 and follower[s] == "")
        if not places:
            break
    return found


def seed_pieces(word_counts: Mapping[str, int], seed_size: int, max_piece_length: int) -> list[tuple[str, float]]:
    """The seed vocabulary with log-probabilities: characters by count (higher first, then the higher code
    point), then substrings by places × length (then the higher piece), until `seed_size` pieces (at least
    one substring when there is one, as tokenizers' loop pushes before it checks)."""
    chars: dict[str, int] = {}
    for word, count in word_counts.items():
        for c in word:
            if c != "\0":
                chars[c] = chars.get(c, 0) + count
    seeds: list[tuple[str, float]] = [(c, float(n)) for n, c in sorted(((n, c) for c, n in chars.items()),
                                                                       reverse=True)]
    substrings = right_branching_substrings((w for w in word_counts if w), max_piece_length)
    ranked = sorted(((places * len(s), s) for s, places in substrings.items() if "\0" not in s), reverse=True)
    for score, s in ranked:
        seeds.append((s, float(score)))
        if len(seeds) >= seed_size:
            break
    log_total = math.log(sum(score for _, score in seeds))
    return [(piece, math.log(score) - log_total) for piece, score in seeds]


# ---------------------------------------------------------------------------------------------------- model

class Model:
    """The pieces being trained: piece 0 is the trainer's "<UNK>" (score NaN); an uncovered character gets
    it with the lowest score - 10."""

    def __init__(self, pieces: list[tuple[str, float]]) -> None:
        self.pieces = pieces
        self.ids = {piece: i for i, (piece, _) in enumerate(pieces) if i != 0}
        self.min_score = min((s for _, s in pieces if not math.isnan(s)), default=0.0)
        self.longest = max((len(p) for p in self.ids), default=1)

    def lattice(self, word: str) -> list[tuple[int, int, int, float]]:
        """Every piece that fits in `word`: (start, end, id, score), by start, shorter first, the unknown piece
        last at a start no one-character piece covers (tokenizers' populate_nodes)."""
        edges = []
        n, ids, pieces = len(word), self.ids, self.pieces
        for b in range(n):
            single = False
            for e in range(b + 1, min(n, b + self.longest) + 1):
                i = ids.get(word[b:e])
                if i is not None:
                    edges.append((b, e, i, pieces[i][1]))
                    single = single or e == b + 1
            if not single:
                edges.append((b, b + 1, 0, self.min_score - UNK_PENALTY))
        return edges


def viterbi(n: int, edges: list[tuple[int, int, int, float]]) -> tuple[list[int], float]:
    """The best split's piece ids and score: at each end the path of the highest score, the first found
    (the longer last piece) on a tie."""
    best: list[float | None] = [0.0] + [None] * n
    back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
    for b, e, i, s in edges:
        at = best[b]
        if at is None:
            continue
        score = at + s
        known = best[e]
        if known is None or score > known:
            best[e], back[e] = score, (b, i)
    ids, pos = [], n
    while pos > 0:
        pos, i = back[pos]
        ids.append(i)
    final = best[n]
    return ids[::-1], (0.0 if final is None else final)


def alternatives(piece: str, model: Model) -> tuple[bool, list[int]]:
    """What replaces `piece` if it is removed (tokenizers takes the 2 best splits of the piece alone):
    - one character, no other split: (True, []), always kept;
    - its best split is not itself: (False, []), it goes if no best split of a word uses it;
    - it is its own best split: (True, its second-best split's ids), a candidate."""
    n = len(piece)
    edges = model.lattice(piece)
    inner = [edge for edge in edges if not (edge[0] == 0 and edge[1] == n)]
    whole = next(s for b, e, i, s in edges if b == 0 and e == n and i != 0)
    if not inner:
        return True, []
    # the best split into two or more pieces: never through the whole piece, then the best last piece
    ids, split = viterbi(n, inner)
    if split > whole:
        return False, []
    return True, ids


# ---------------------------------------------------------------------------------------------------- EM

def forward_backward(n: int, edges: list[tuple[int, int, int, float]]) -> tuple[float, list[float]]:
    """log Z (the log of the summed probability of every split) and each edge's log-marginal (the log
    probability that a split uses it), in the edges' order."""
    alpha: list[float | None] = [0.0] + [None] * n
    for b, e, _, s in edges:  # by start: alpha[b] is complete
        a = alpha[b]
        if a is None:
            continue
        value = a + s
        alpha[e] = value if alpha[e] is None else log_sum_exp(alpha[e], value)  # type: ignore[arg-type]
    beta: list[float | None] = [None] * n + [0.0]
    for b, e, _, s in reversed(edges):  # reversed within a start too; log_sum_exp is symmetric
        after = beta[e]
        if after is None:
            continue
        value = s + after
        beta[b] = value if beta[b] is None else log_sum_exp(beta[b], value)  # type: ignore[arg-type]
    z = alpha[n]
    if z is None:
        return -math.inf, [-math.inf] * len(edges)
    return z, [(alpha[b] + s + beta[e] - z) if alpha[b] is not None and beta[e] is not None else -math.inf  # type: ignore[operator]
               for b, e, _, s in edges]


def e_step(model: Model, word_counts: Mapping[str, int]) -> tuple[list[float], float, int]:
    """Each piece's expected count over all the words' splits; the objective (the average negative log
    likelihood of a word occurrence); the number of tokens on the best splits."""
    expected = [0.0] * len(model.pieces)
    total = sum(word_counts.values())
    objective, tokens = 0.0, 0
    for word, count in word_counts.items():
        edges = model.lattice(word)
        z, marginals = forward_backward(len(word), edges)
        for (_, _, i, _), m in zip(edges, marginals):
            expected[i] += count * math.exp(m)
        objective -= count * z / total
        tokens += len(viterbi(len(word), edges)[0])
    return expected, objective, tokens


def m_step(pieces: list[tuple[str, float]], expected: list[float]) -> tuple[list[tuple[str, float]], list[str]]:
    """New scores: digamma(expected) - digamma(sum of the kept); pieces expected fewer than 0.5 times are
    dropped (returned second). Piece 0 ("<UNK>") stays, NaN."""
    kept: list[tuple[str, float]] = [(pieces[0][0], math.nan)]
    dropped: list[str] = []
    for i in range(1, len(pieces)):
        if expected[i] < EXPECTED_THRESHOLD:
            dropped.append(pieces[i][0])
        else:
            kept.append((pieces[i][0], expected[i]))
    log_total = digamma(sum(f for _, f in kept[1:]))
    return [(p, digamma(f) - log_total) for p, f in kept], dropped


# ---------------------------------------------------------------------------------------------------- prune

def pruning_loss(freq: float, alt_freqs: Iterable[float], total: float, total_words: float, n_pieces: int) -> float:
    """A candidate's approximate loss: its share of the word occurrences × (its log-probability - the summed
    log-probabilities of its alternatives once they take over its frequency). Removing it moves its frequency
    to each of its k alternatives, so the total should grow by freq × (k - 1); tokenizers multiplies by (the
    number of pieces - 1) instead (its code reads `alternatives.len()`, the list of every piece's
    alternatives): kept, to train what it trains. Summed left to right, as tokenizers does."""
    logprob = math.log(freq) - math.log(total)
    log_total_alt = math.log(total + freq * (n_pieces - 1))
    logprob_alt = 0.0
    for a in alt_freqs:
        logprob_alt += math.log(a + freq) - log_total_alt
    return freq / total_words * (logprob - logprob_alt)


def prune(model: Model, word_counts: Mapping[str, int], vocab_size: int, shrinking_factor: float
          ) -> tuple[list[tuple[str, float]], Pruning]:
    """One pruning (tokenizers' prune_sentence_pieces, step for step): the new pieces and the record."""
    pieces = model.pieces
    always_keep = [True] * len(pieces)
    alternative: list[list[int]] = [[] for _ in pieces]
    for i in range(1, len(pieces)):
        always_keep[i], alternative[i] = alternatives(pieces[i][0], model)
    freq = [0.0] * len(pieces)  # how often each piece is on a word's best split
    total_words = 0
    for word, count in word_counts.items():
        total_words += count
        for i in viterbi(len(word), model.lattice(word))[0]:
            freq[i] += count
    total = sum(freq)
    kept: list[tuple[str, float]] = [pieces[0]]
    candidates: list[tuple[int, float]] = []
    unused: list[str] = []
    for i in range(1, len(pieces)):
        piece, score = pieces[i]
        alt = alternative[i]
        if freq[i] == 0.0 and not always_keep[i]:
            unused.append(piece)  # on no best split, and not its own best split
        elif not alt:
            kept.append((piece, score))  # nothing would replace it
        elif freq[i] == 0.0:
            unused.append(piece)  # tokenizers: "temporary hack to avoid NaNs"
        else:
            candidates.append((i, pruning_loss(freq[i], (freq[a] for a in alt), total, total_words, len(pieces))))
    target = max(vocab_size * 11 // 10, int(len(pieces) * shrinking_factor))
    candidates.sort(key=lambda c: -c[1])  # stable: equal losses keep the pieces' order
    n_kept = next((n for n in range(len(candidates)) if len(kept) + n == target), len(candidates))
    kept.extend(pieces[i] for i, _ in candidates[:n_kept])
    return kept, Pruning(tuple(pieces[i][0] for i, _ in candidates), tuple(freq[i] for i, _ in candidates),
                         tuple(tuple(pieces[a][0] for a in alternative[i]) for i, _ in candidates),
                         tuple(loss for _, loss in candidates), tuple(unused),
                         tuple(pieces[i][0] for i, _ in candidates[n_kept:]), target)


# ---------------------------------------------------------------------------------------------------- training

def required_chars(word_counts: Mapping[str, int], initial_alphabet: Iterable[str] = ()) -> list[str]:
    """Every character of the corpus and of the initial alphabet, by code point (tokenizers: a hash set)."""
    chars = {c for word in word_counts for c in word} | set(initial_alphabet)
    return sorted(chars)


def finalize(model: Model, chars: list[str], vocab_size: int, special_tokens: tuple[str, ...],
             unk_token: str | None) -> tuple[list[tuple[str, float]], int | None]:
    """The final vocabulary (tokenizers' finalize): every required character (a missing one at the lowest
    score, + 0.0001 per one before it), then the model's pieces in order up to the size; sorted by score,
    highest first; the special tokens (score 0) before, "<unk>" added first if it is not among them.

    Three departures, each where a corpus is odd: tokenizers checks the size only for equality after adding a
    piece, so when the characters alone fill it, it keeps every piece (here it stops at the size); a score
    that is not a number (EM left a character nothing) is written as 0.0 here, as tokenizers writes a model
    piece's, where it writes a character's as null; and a piece that is also a special token (the corpus
    spells "<unk>") is left out here, where tokenizers lists it twice."""
    pieces: list[tuple[str, float]] = []
    inserted = {TRAINING_UNK, *special_tokens}  # tokenizers skips only its <UNK>: a piece that is also a special
    # token would then be listed twice, and its tokenizer.json could not be read back
    existing = {p: s for p, s in model.pieces}
    penalty = 0.0
    for c in chars:
        if c in inserted:
            continue
        inserted.add(c)
        if c in existing:
            pieces.append((c, existing[c]))
        else:
            pieces.append((c, model.min_score + penalty))
            penalty += 0.0001
    unk_id: int | None = None
    add_unk = False
    if unk_token is not None:
        if unk_token in special_tokens:
            unk_id = special_tokens.index(unk_token)
        else:
            unk_id, add_unk = 0, True
    room = vocab_size - len(special_tokens) - (1 if add_unk else 0)
    for piece, score in model.pieces:
        if len(pieces) >= room:
            break
        if piece in inserted:
            continue
        inserted.add(piece)
        pieces.append((piece, score))
    pieces = [(p, s if math.isfinite(s) else 0.0) for p, s in pieces]
    pieces.sort(key=lambda item: -item[1])  # stable
    specials = [(t, 0.0) for t in special_tokens]
    if add_unk:
        specials.insert(0, (unk_token, 0.0))  # type: ignore[arg-type]
    return specials + pieces, unk_id


def train(word_counts: Mapping[str, int], vocab_size: int = VOCAB_SIZE, special_tokens: tuple[str, ...] = (),
          unk_token: str | None = None, seed_size: int = TOKENIZERS_SEED, shrinking_factor: float = SHRINKING,
          sub_iterations: int = SUB_ITERATIONS, max_piece_length: int = MAX_PIECE_LENGTH, top_k: int = TOP_K
          ) -> tuple[list[tuple[str, float]], int | None, list[EMRound]]:
    """tokenizers' UnigramTrainer.do_train: seed, then rounds of EM and pruning, then finalize. Returns the
    vocabulary (piece, log-probability), the unknown piece's id, and the rounds."""
    pieces = [(TRAINING_UNK, math.nan)] + seed_pieces(word_counts, seed_size, max_piece_length)
    chars = required_chars(word_counts)
    if len(chars) > vocab_size:
        raise ValueError(f"the vocabulary ({vocab_size:,}) is smaller than the corpus's {len(chars):,} characters")
    desired = vocab_size * 11 // 10
    model = Model(pieces)
    rounds: list[EMRound] = []
    while True:
        steps = []
        for sub in range(sub_iterations):
            expected, objective, tokens = e_step(model, word_counts)
            old = pieces
            pieces, dropped = m_step(pieces, expected)
            model = Model(pieces)
            new_scores = dict(pieces)
            top = sorted(range(1, len(old)), key=lambda i: -expected[i])[:top_k]
            steps.append(EMStep(sub + 1, len(old), len(pieces), objective, tokens, tuple(dropped),
                                tuple((old[i][0], expected[i], new_scores.get(old[i][0], -math.inf)) for i in top)))
        if len(pieces) <= desired:
            rounds.append(EMRound(len(rounds) + 1, tuple(steps), tuple(pieces), None))
            break
        new, pruning = prune(model, word_counts, vocab_size, shrinking_factor)
        rounds.append(EMRound(len(rounds) + 1, tuple(steps), tuple(pieces), pruning))
        pieces = new
        if len(new) == len(model.pieces):  # nothing left to remove (every character stays): tokenizers would loop
            model = Model(pieces)           # for ever here, when the size asked for is the characters alone
            break
        model = Model(pieces)
    final, unk_id = finalize(model, chars, vocab_size, special_tokens, unk_token)
    return final, unk_id, rounds
