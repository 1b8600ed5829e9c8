"""The Compare page's tables (no Streamlit): any two or three of BPE, WordPiece and Unigram side by side.

For any of them: each vocabulary (`vocabulary_of`), the pairs' overlap and the token lengths by letters, and
encoding metrics over the corpus words and a held-out text. Merge trainings alone (`aligned`: the core's step
kind is "merge") also align step by step: timelines, shared tokens, their overlap and the fertility example.
`wanted` names the trainings a comparison needs.

Plain BPE marks no word-internal pieces while WordPiece writes them as ``##ug`` and Unigram (with Metaspace)
marks a word's start as ``▁ug``, so tokens are matched by their letters (the mark dropped): WordPiece's
``##ug``, Unigram's ``▁ug`` and BPE's ``ug`` are "the same token". With the ``##`` variant of BPE (what
Hugging Face's WordPieceTrainer trains) the match with WordPiece is exact as well.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd

from wordpiece_core import reference
from wordpiece_core.pipeline import Tokenizer
from wordpiece_core.pre_tokenizers import is_byte_level
from wordpiece_core.real_merges import token_bytes, token_text
from wordpiece_core.replay import splits_at
from wordpiece_core.reference import strip_prefix
from wordpiece_core.trace import Training

from wordpiece_core.algorithms import ALGORITHMS, AnyTraining

from . import side_by_side
from .safe import code, md
from .settings import ALGORITHM_NAMES
from .side_by_side import Wanted
from .tables import fmt_score, fmt_token


def learned_at(training: Training) -> dict[str, int]:
    """Letters of each token a merge made → the first step that made it."""
    prefix = training.config.prefix
    out: dict[str, int] = {}
    for step, token in enumerate(training.steps.new_tokens(), start=1):
        out.setdefault(strip_prefix(token, prefix), step)
    return out


def timelines(trainings: dict[str, Training], follow: str | None = None,
              mark_ties: tuple[str, ...] = ()) -> tuple[pd.DataFrame, int | None]:
    """One row per step: each algorithm's merge, and where the other one learned the same token.

    Returns the table and the first step whose new tokens differ (None if they never do).
    The first column marks that step (◆) and the steps that made the token `follow` (★).
    """
    names = list(trainings)
    steps = {n: learned_at(t) for n, t in trainings.items()}
    longest = max(len(t.steps) for t in trainings.values())
    merges = {n: list(zip(t.steps.lefts(), t.steps.rights(), t.steps.new_tokens())) for n, t in trainings.items()}
    ties = {n: trainings[n].steps.column("ties") for n in mark_ties if n in trainings}
    rows = []
    first_diff = None
    for i in range(longest):
        made: list[str | None] = []
        cells: dict[str, str] = {}
        for n in names:
            t = trainings[n]
            if i < len(t.steps):
                left, right, token = merges[n][i]
                cells[n] = f"{left} + {right} → {token}"
                if n in ties and ties[n][i] > 1:
                    cells[n] += f"  ⚖ {ties[n][i]}-way tie"
                made.append(strip_prefix(token, t.config.prefix))
            else:
                cells[n] = ""
                made.append(None)
        same = len(set(made)) == 1 and made[0] is not None
        marks = "◆" if not same and first_diff is None else ""
        if marks:
            first_diff = i + 1
        if follow and follow in made:
            marks += "★"
        row: dict[str, object] = {"": marks, "step": i + 1, **cells}
        row["same token"] = "✓" if same else ""
        for n, tok in zip(names, made):
            for other in names:
                if other != n:
                    at = steps[other].get(tok) if tok else None
                    row[f"{n} token in {other}"] = f"step {at}" if at else "—"
        rows.append(row)
    return pd.DataFrame(rows), first_diff


def shared_steps(a_name: str, a: Training, b_name: str, b: Training) -> pd.DataFrame:
    """Tokens both learned by merging, with the step in each."""
    sa, sb = learned_at(a), learned_at(b)
    rows = [{"token": tok, a_name: sa[tok], b_name: sb[tok]} for tok in sa if tok in sb]
    return pd.DataFrame(rows, columns=["token", a_name, b_name])


@dataclass(frozen=True)
class Overlap:
    a_only: list[str]
    b_only: list[str]
    shared: int
    a_size: int  # distinct spellings (letters) in a's vocabulary
    b_size: int
    a_tokens: int = 0  # tokens in a's vocabulary, as learned
    b_tokens: int = 0

    @property
    def jaccard(self) -> float:
        union = self.a_size + self.b_size - self.shared
        return self.shared / union if union else 1.0


def overlap(a: Training, b: Training) -> Overlap:
    """Vocabulary overlap by letters (the ``##`` of continuation pieces dropped)."""
    va = {strip_prefix(t, a.config.prefix) for t in a.vocab}
    vb = {strip_prefix(t, b.config.prefix) for t in b.vocab}
    return Overlap(sorted(va - vb), sorted(vb - va), len(va & vb), len(va), len(vb), len(a.vocab), len(b.vocab))


def _unknown(result, tokenizer: Tokenizer) -> bool:
    if result.unknown:
        return True
    unk = getattr(tokenizer.model, "unk_token", None) or "[UNK]"
    covered = sum(e - s for s, e in result.spans)
    return unk in result.tokens or covered < len(result.word)


@dataclass
class Metrics:
    words: int = 0
    tokens: int = 0
    chars: int = 0
    unknown_words: int = 0
    continuation: int = 0

    def add(self, result, tokenizer: Tokenizer, weight: int = 1) -> None:
        self.words += weight
        self.tokens += weight * len(result.tokens)
        self.chars += weight * len(result.word)
        self.unknown_words += weight * _unknown(result, tokenizer)
        self.continuation += weight * max(0, len(result.tokens) - 1)

    def row(self) -> dict[str, float]:
        return {
            "tokens per word (fertility)": self.tokens / self.words if self.words else 0.0,
            "[UNK] words (%)": 100 * self.unknown_words / self.words if self.words else 0.0,
            "characters per token": self.chars / self.tokens if self.tokens else 0.0,
            "continuation pieces (%)": 100 * self.continuation / self.tokens if self.tokens else 0.0,
            "word-initial pieces (%)": 100 * (self.tokens - self.continuation) / self.tokens if self.tokens else 0.0,
        }


def corpus_metrics(tokenizer: Tokenizer, words: tuple[str, ...], counts: tuple[int, ...]) -> Metrics:
    """Metrics over the training words (already normalized and pre-tokenized), weighted by count."""
    m = Metrics()
    for w, n in zip(words, counts):
        m.add(tokenizer.model.tokenize(w), tokenizer, n)
    return m


def text_metrics(tokenizer: Tokenizer, text: str) -> Metrics:
    m = Metrics()
    for wt in tokenizer.encode(text, add_special_tokens=False).words:
        m.add(wt.result, tokenizer)
    return m


def words_table(tokenizers: dict[str, Tokenizer], words: list[str], real: frozenset[str] = frozenset(),
                byte_level_words: bool = False) -> pd.DataFrame:
    """Each word's tokens by each tokenizer; a `real` one (a shelf tokenizer) gets the word as running text has
    it, after a space, and its tokens are written as text (␣ for the space). `byte_level_words`: the corpus's words
    are written in byte-level characters (a byte-level training's)."""
    rows = []
    for w in words:
        row = {"word": w}
        for name, tok in tokenizers.items():
            if name in real:
                typed = token_bytes(w, True).decode("utf-8", "replace") if byte_level_words else w
                tokens = tok.encode(" " + typed.lstrip(" "), add_special_tokens=False).tokens
                row[name] = " ".join(token_text(t, is_byte_level(tok.pre_tokenizer)) for t in tokens)
            else:
                row[name] = " ".join(tok.model.tokenize(w).tokens)
        rows.append(row)
    return pd.DataFrame(rows)


def length_histogram(trainings: dict[str, Training]) -> pd.DataFrame:
    """Vocabulary token lengths (letters, prefix dropped) by algorithm and kind (as the likelihood article charts BERT's vocabulary)."""
    rows = []
    for name, t in trainings.items():
        prefix = t.config.prefix
        specials = set(t.config.special_tokens)
        counter: Counter[tuple[str, int]] = Counter()
        for tok in t.vocab:
            if tok in specials:
                continue
            if prefix:
                kind = f"{name}: ## pieces" if tok.startswith(prefix) else f"{name}: word starts"
            else:
                kind = f"{name}: any position"
            counter[(kind, len(strip_prefix(tok, prefix)))] += 1
        rows += [{"kind": k, "length": n, "tokens": c} for (k, n), c in counter.items()]
    return pd.DataFrame(rows, columns=["kind", "length", "tokens"]).sort_values(["kind", "length"])


FREQUENT_WORDS = 300  # the most frequent corpus words searched for a fertility example


def fertility_example(bpe: Training, wordpiece: Training) -> str | None:
    """Why WordPiece can leave a frequent word in pieces that BPE learned early: the most frequent
    corpus word that BPE ends with as one token and WordPiece does not, with WordPiece's numbers.

    Both trainings are replayed to their end (the final splits of every corpus word).
    """
    bpe_splits = splits_at(bpe, len(bpe.steps) + 1)
    wp_splits = splits_at(wordpiece, len(wordpiece.steps) + 1)
    wp_index = {w: i for i, w in enumerate(wordpiece.words)}
    order = sorted(range(len(bpe.words)), key=lambda i: (-bpe.counts[i], i))[:FREQUENT_WORDS]
    for i in order:
        word, j = bpe.words[i], wp_index.get(bpe.words[i])
        if j is None or len(bpe_splits[i]) != 1 or len(wp_splits[j]) < 2:
            continue
        pairs, tokens, _ = reference.count(wp_splits, list(wordpiece.counts))
        a, b = wp_splits[j][0], wp_splits[j][1]
        ab = pairs[a, b]
        learned = learned_at(bpe).get(word)
        return (
            f"**Why WordPiece can leave a frequent word in pieces.** {code(word)} (×{bpe.counts[i]:,} in the corpus) is "
            f"one token for BPE" + (f", learned at step {learned:,}" if learned else "") + ": BPE merges the most "
            f"frequent pairs first. WordPiece still writes it {' '.join(code(fmt_token(t)) for t in wp_splits[j])}: "
            f"count({md(fmt_token(a))} {md(fmt_token(b))}) = {ab:,}, but count({md(fmt_token(a))}) = {tokens[a]:,} and "
            f"count({md(fmt_token(b))}) = {tokens[b]:,}, so the score {ab:,} / ({tokens[a]:,} × {tokens[b]:,}) ≈ "
            f"{fmt_score(ab / (tokens[a] * tokens[b]))} is small. Frequent parts are penalised, pairs of rarer parts "
            "win first, and a frequent word can cost more tokens (a higher fertility) at the same vocabulary size."
        )
    return None


# ---------------------------------------------------------------- any two or three of BPE, WordPiece and Unigram




@dataclass(frozen=True)
class Vocabulary:
    """A trained vocabulary as the comparison reads it: its tokens and how they mark a word's parts."""

    name: str
    tokens: tuple[str, ...]
    specials: frozenset[str]
    continuation: str | None  # WordPiece's ## (a piece inside a word)
    word_start: str | None  # Metaspace's ▁ (a piece that starts a word)
    asked: int = 0  # the vocabulary size the training was asked for
    stop_reason: str = ""  # why it stopped (where it stopped short of `asked`: why)

    def letters(self, token: str) -> str:
        if self.continuation and token.startswith(self.continuation) and len(token) > len(self.continuation):
            return token[len(self.continuation):]
        if self.word_start and token.startswith(self.word_start) and len(token) > len(self.word_start):
            return token[len(self.word_start):]
        return token

    def spellings(self) -> set[str]:
        return {self.letters(t) for t in self.tokens if t not in self.specials}


def vocabulary_of(name: str, training: AnyTraining) -> Vocabulary:
    return Vocabulary(name, training.tokens, frozenset(training.config.special_tokens), training.continuation,
                      training.word_start, training.config.vocab_size, training.stop_reason)


def overlap_frame(vocabularies: list[Vocabulary]) -> pd.DataFrame:
    """Each pair's shared spellings (## and ▁ dropped) and Jaccard overlap."""
    rows = []
    for i, a in enumerate(vocabularies):
        for b in vocabularies[i + 1:]:
            sa, sb = a.spellings(), b.spellings()
            union = len(sa | sb)
            rows.append({"pair": f"{a.name} – {b.name}", "spellings of the first": len(sa),
                         "spellings of the second": len(sb), "shared": len(sa & sb),
                         "Jaccard": len(sa & sb) / union if union else 1.0})
    return pd.DataFrame(rows)


def lengths_frame(vocabularies: list[Vocabulary]) -> pd.DataFrame:
    """Vocabulary tokens by length in letters (## and ▁ not counted), per algorithm."""
    rows: Counter[tuple[str, int]] = Counter()
    for v in vocabularies:
        for t in v.tokens:
            if t not in v.specials:
                rows[(v.name, len(v.letters(t)))] += 1
    return pd.DataFrame([{"kind": k, "length": n, "tokens": c} for (k, n), c in rows.items()],
                        columns=["kind", "length", "tokens"]).sort_values(["kind", "length"])


def metrics_rows_over(tokenizers: dict[str, Tokenizer], words: tuple[str, ...], counts: tuple[int, ...],
                      text: str, real: frozenset[str] = frozenset()) -> list[dict[str, object]]:
    """Each tokenizer's figures over the corpus's words (as the sidebar counted them), and on `text` when it is not
    blank; a `real` one's (a shelf tokenizer, not trained on these words) on `text` only."""
    rows: list[dict[str, object]] = []
    for name, tok in tokenizers.items():
        if name not in real:
            rows.append({"tokenizer": name, "on": "corpus words", **corpus_metrics(tok, words, counts).row()})
        if text.strip():
            rows.append({"tokenizer": name, "on": "held-out text", **text_metrics(tok, text).row()})
    return rows


def aligned(picked: list[str]) -> bool:
    """Whether the compared trainings' steps align (merge timelines, a token to follow): merge trainings alone."""
    return all(ALGORITHMS[a].step == "merge" for a in picked)


def wanted(picked: list[str], hf_variant: bool = False) -> Wanted:
    """The trainings a comparison of `picked` needs: each column's name → (algorithm, BPE's prefix); aligned
    merge trainings with Hugging Face's WordPieceTrainer too when `hf_variant` (side_by_side.wanted)."""
    if aligned(picked):
        return side_by_side.wanted(hf_variant)
    return {ALGORITHM_NAMES[a]: (a, None) for a in picked}  # WordPiece's ## is its configuration's own
