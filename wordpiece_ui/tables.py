"""Trace records → pandas DataFrames and display strings (no Streamlit here).

Every number comes from the core's records; nothing is counted or scored here
beyond arithmetic on recorded totals (tokens per word after each step).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import pandas as pd

from wordpiece_core.replay import words_around
from wordpiece_core.records import Candidate, MergeStep, exact_text
from wordpiece_core.reference import TIE_RULES
from wordpiece_core.trace import Training

from . import safe


MINUS = "\u2212"  # one minus sign on every screen: −0.5, never -0.5
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(x: float) -> int:
    """The exponent of `x` in scientific notation (7.8 × 10⁻⁵ → −5)."""
    return int(f"{abs(x):e}".split("e")[1])


def superscript(n: int) -> str:
    return str(n).translate(_SUPERSCRIPTS)


def fmt_power(x: float, digits: int = 3) -> str:
    """A very small (or very large) number as prose writes it: 2.4 × 10⁻¹³, never 2.4e-13."""
    if not math.isfinite(x):
        return str(x)
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return (MINUS if x < 0 else "") + f"{mantissa} × 10{superscript(int(exponent))}"


def _rounded(x: float, digits: int) -> float:
    """`x` to `digits` significant digits (so 0.00099999 is 0.001, and is written as one)."""
    return float(f"{x:.{digits - 1}e}") if math.isfinite(x) else x


def fmt_number(x: float, digits: int = 3) -> str:
    """A measured number: `digits` significant digits, thousands separators, the power-of-ten form below 0.001,
    one minus sign (1.45 × 10⁻⁵, 0.0278, 12.3, 1,234)."""
    x = _rounded(x, digits)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    if abs(x) < 0.001:
        return fmt_power(x, digits)
    if abs(x) >= 10 ** digits:
        text = f"{abs(x):,.0f}"
    else:
        text = f"{abs(x):,.{digits}g}"
        if "e" in text:  # (g turns to e-notation at 10^digits; excluded above)
            text = f"{abs(x):,.0f}"
    return (MINUS if x < 0 else "") + text


def fmt_score(x: float) -> str:
    """0.05 → '0.05', 1/36 → '0.0278', tiny values as 1.45 × 10⁻⁵, counts with separators, one minus sign."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    sign = MINUS if x < 0 else ""
    if abs(x) >= 1:
        return sign + (f"{abs(x):,.0f}" if float(x).is_integer() else f"{abs(x):,.2f}")
    if abs(_rounded(x, 4)) >= 0.001:
        return sign + f"{abs(x):.4f}".rstrip("0").rstrip(".")
    return fmt_power(x)


def fmt_fraction(x: Fraction) -> str:
    """An exact score for the screen: 14/2,855,007 (the trace files write 14/2855007, `exact_text`)."""
    return f"{x.numerator:,}" if x.denominator == 1 else f"{x.numerator:,}/{x.denominator:,}"


def fmt_signed(x: float, decimals: int = 3) -> str:
    """A change with its sign: +56,330.779, −12.500 (one minus sign; a change that rounds to 0 is +0.000)."""
    text = f"{abs(x):,.{decimals}f}"
    return ("+" if x >= 0 or float(text.replace(",", "")) == 0 else MINUS) + text


def shown_value(text: str) -> Fraction | None:
    """The exact value a `fmt_score` text shows (None for the power-of-ten form, which is always rounded)."""
    if "×" in text:
        return None
    return Fraction(text.replace(",", "").replace(MINUS, "-"))


SHOWN_TOKEN_CHARS = 48  # a longer token is shown shortened, with its length
SHOWN_WORD_CHARS = 200  # a longer word is shown (and replayed) on its first characters


def fmt_token(token: str, limit: int = SHOWN_TOKEN_CHARS) -> str:
    """A token for the screen: as it is, or its two ends and its length when it is very long."""
    if len(token) <= limit:
        return token
    side = (limit - 1) // 2
    return f"{token[:side]}…{token[-side:]} ({len(token):,} characters)"


def stopped_early(tokens: int, asked: int, reason: str) -> str:
    """Why a training gave fewer tokens than asked, as Markdown: 'stopped early: 14 tokens for the 30 asked for: no
    pair is left to merge' (a reason that already begins with the sizes, as the course rule's do, says them once)."""
    sizes = f"{tokens:,} tokens for the {asked:,} asked for: "
    return "stopped early: " + safe.md(sizes + reason.removeprefix(sizes))


def plural(n: int, noun: str) -> str:
    """'1 candidate', '2 candidates' (with thousands separators)."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def arithmetic(step: MergeStep | Candidate, algorithm: str, show: Callable[[str], str] = fmt_token) -> str:
    """The score written out with the step's numbers: '5 / (20 × 5) = 1/20 = 0.05' (BPE's names its tokens,
    each written by `show`)."""
    if algorithm == "bpe":
        return f"count({show(step.left)} {show(step.right)}) = {step.pair_count:,}"
    exact = fmt_fraction(step.score)
    shown = fmt_score(float(step.score))
    sign = "=" if shown_value(shown) == step.score else "≈"
    return f"{step.pair_count:,} / ({step.left_count:,} × {step.right_count:,}) = {exact} {sign} {shown}"


@dataclass(frozen=True)
class Ranking:
    """What an algorithm ranks its candidates by, and how the Train page shows it."""

    column: str  # the score's column in the candidate and step tables
    per_step: str  # the title of the chosen score's line over all steps
    labelled: bool  # its bars carry their scores (WordPiece's are fractions, not counts one reads off an axis)
    bpe_view: bool  # the same pairs ranked by BPE's count(ab) are worth a view of their own


RANKINGS = {
    "wordpiece": Ranking("score", "Chosen score per step", labelled=True, bpe_view=True),
    "bpe": Ranking("count(ab)", "Chosen count per step", labelled=False, bpe_view=False),
}


def formula(algorithm: str) -> str:
    if algorithm == "bpe":
        return "score = count(ab), the number of times the pair a b occurs"
    return "score = count(ab) / (count(a) × count(b))"


def tied_candidates(step: MergeStep) -> list[Candidate]:
    """The recorded candidates with the step's best score, in the trainer's order (the winner first)."""
    return [c for c in step.candidates if c.score == step.score]


def tie_sentence(step: MergeStep, tie_break: str, show: Callable[[str], str] = fmt_token) -> str:
    """How many pairs tied, which (each token written by `show`), and what the tie rule (in the core's words) takes."""
    if step.ties <= 1:
        return "No tie: this pair's score is strictly the best."
    tied = tied_candidates(step)
    names = ", ".join(f"{show(c.left)} + {show(c.right)}" for c in tied[:12])
    more = f" and {step.ties - len(tied[:12])} more" if step.ties > len(tied[:12]) else ""
    return (
        f"{step.ties}-way tie at {fmt_fraction(step.score)}: {names}{more}. "
        f"The rule ('{tie_break}') takes {TIE_RULES[tie_break]}."
    )


def steps_frame(training: Training, shorten: bool = True) -> pd.DataFrame:
    """One row per merge, with the running tokens-per-word (read from the trace's columns).

    Very long tokens are shortened for the screen unless `shorten` is False (the download).
    """
    show = fmt_token if shorten else str
    steps = training.steps
    words = max(1, sum(training.counts))
    merged = steps.column("merged_count")
    scores = steps.scores()
    remaining = _initial_tokens(training) - pd.Series(merged, dtype=object).cumsum()
    return pd.DataFrame({
        "step": range(1, len(steps) + 1),
        "merge": [f"{show(a)} + {show(b)}" for a, b in zip(steps.lefts(), steps.rights())],
        "new token": [show(t) for t in steps.new_tokens()],
        "count(ab)": list(steps.column("pair_count")),
        "count(a)": list(steps.column("left_count")),
        "count(b)": list(steps.column("right_count")),
        "score": [float(x) for x in scores],
        "exact": [exact_text(x) for x in scores],  # (as the trace files write it: this frame is trace.csv too)
        "ties": list(steps.column("ties")),
        "vocabulary": list(steps.column("vocab_size")),
        "tokens per word": [t / words for t in remaining],
        "Δ log-likelihood": steps.loglik_deltas(),
        "merged": list(merged),
        "words touched": steps.touched_counts(),
    })


def _initial_tokens(training: Training) -> int:
    return sum(len(training.initial_split(w)) * n for w, n in zip(training.words, training.counts))


def start_tokens_per_word(training: Training) -> float:
    return _initial_tokens(training) / max(1, sum(training.counts))


def by_count(candidates: pd.DataFrame) -> pd.DataFrame:
    """The same candidates in BPE's order: by raw count, equal counts in the trainer's order."""
    return candidates.sort_values(["count(ab)", "rank"], ascending=[False, True], kind="stable")


def candidates_frame(candidates: list[Candidate] | tuple[Candidate, ...], algorithm: str) -> pd.DataFrame:
    """The candidate table: rank, pair, the score's parts, the score, and the BPE view."""
    rows = []
    for c in candidates:
        rows.append(
            {
                "rank": c.rank,
                "pair": f"{fmt_token(c.left)} + {fmt_token(c.right)}",
                "new token": fmt_token(c.new_token),
                "count(ab)": c.pair_count,
                "count(a)": c.left_count,
                "count(b)": c.right_count,
                "score": float(c.score),
                "exact": fmt_fraction(c.score),
                "score × |V|": c.scaled_score,
                "Δ log-likelihood": c.loglik_delta,
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # BPE's order of the same pairs: by raw count; equal counts keep the trainer's order.
    frame["BPE rank"] = frame["count(ab)"].rank(method="first", ascending=False).astype(int)
    if algorithm == "bpe":
        frame = frame.drop(columns=["score × |V|", "BPE rank", "exact"])
    return frame


def vocab_frame(training: Training) -> pd.DataFrame:
    """Every token of the final vocabulary with the step that added it (0 = at the start)."""
    specials = set(training.config.special_tokens)
    rows = [
        {"id": i, "token": fmt_token(t), "added at step": 0, "kind": "special" if t in specials else "alphabet"}
        for i, t in enumerate(training.initial_vocab)
    ]
    vocab_size = training.steps.column("vocab_size")
    for i, (token, existed) in enumerate(zip(training.steps.new_tokens(), training.steps.existed)):
        if not existed:
            rows.append({"id": vocab_size[i] - 1, "token": fmt_token(token), "added at step": i + 1, "kind": "merge"})
    return pd.DataFrame(rows)


def vocab_after(vocab: pd.DataFrame, step: int, limit: int) -> tuple[pd.DataFrame, int]:
    """The newest `limit` tokens of `vocab_frame` after merge `step` (★ by the one it added), and how many there are."""
    so_far = vocab[vocab["added at step"] <= step].iloc[::-1]
    newest = so_far.head(limit)
    newest = newest.assign(new=newest["added at step"].map(lambda s: "★" if s == step else ""))
    return newest[["new", "id", "token", "added at step", "kind"]], len(so_far)


def token_steps(training: Training) -> dict[str, int]:
    """Each vocabulary token → the merge step that made it (0 = it was there from the start)."""
    steps = {t: 0 for t in training.initial_vocab}
    for i, token in enumerate(training.steps.new_tokens()):
        steps.setdefault(token, i + 1)
    return steps


def corpus_change(training: Training, step: int, limit: int) -> tuple[pd.DataFrame, int]:
    """The words a merge touched (most frequent first), split before and after; and how many it touched."""
    s = training.steps[step - 1]
    touched = sorted(s.words_touched, key=lambda i: (-training.counts[i], i))
    shown = touched[:limit]
    rows = []
    for i, (before, after) in zip(shown, words_around(training, step, shown, SHOWN_WORD_CHARS)):
        word = training.words[i]
        rows.append({"word": word[:SHOWN_WORD_CHARS], "length": len(word), "count": training.counts[i],
                     "before": [fmt_token(t) for t in before], "after": [fmt_token(t) for t in after]})
    return pd.DataFrame(rows), len(touched)


def step_summary(step: MergeStep) -> dict[str, str]:
    return {
        "merged (× count)": f"{step.merged_count:,}",
        "words touched": f"{len(step.words_touched):,}",
        "vocabulary": f"{step.vocab_size:,}",
    }


def with_bar_labels(top: pd.DataFrame) -> pd.DataFrame:
    """The WordPiece candidates with a `shown` label per bar: all exact fractions when every one
    is short, else all decimals (one kind of number per chart)."""
    exact = all(len(e) <= 9 for e in top["exact"])
    return top.assign(shown=list(top["exact"]) if exact else [fmt_score(v) for v in top["score"]])


def judge_guess(candidates: pd.DataFrame, guess: str, algorithm: str) -> tuple[bool, str]:
    """Whether a guessed pair wins (a tie with the winner counts) and a sentence with both
    scores and how far apart they are. `candidates` is ranked, the winner first."""
    winner = candidates.iloc[0]
    rows = candidates[candidates["pair"] == guess]
    if rows.empty:
        return False, f"{guess} is not among the candidates."
    mine = rows.iloc[0]
    if algorithm == "bpe":
        wc, gc = int(winner["count(ab)"]), int(mine["count(ab)"])
        best, yours, gap = f"count {wc:,}", f"count {gc:,}", f"{wc - gc:,} fewer occurrence{'' if wc - gc == 1 else 's'}"
        tied = wc == gc
    else:
        ws, gs = float(winner["score"]), float(mine["score"])
        best, yours, gap = f"score {winner['exact']}", f"score {mine['exact']}", f"{fmt_number(ws / gs)}× lower" if gs else ""
        tied = winner["exact"] == mine["exact"]  # the exact fractions: two scores can round to one float
    if guess == winner["pair"]:
        return True, f"Right: {guess} wins with {best}."
    if tied:
        return True, f"Right, by a tie: {guess} has the best {best.split()[0]} too; the tie rule picks {winner['pair']}."
    return False, f"Not this one: {guess} has {yours} against {best} for {winner['pair']} ({gap})."


def quiz_frame(candidates: pd.DataFrame, algorithm: str, limit: int = 8) -> pd.DataFrame:
    """The `limit` best candidates (the winner among them) with their counts only, in alphabetical
    order: the class works out the scores."""
    cols = ["pair", "count(ab)"] + (["count(a)", "count(b)"] if algorithm == "wordpiece" else [])
    return candidates[cols].head(limit).sort_values("pair", kind="stable").reset_index(drop=True)


def splits_before(training: Training, step: int, limit: int) -> pd.DataFrame:
    """The most frequent words, split as they are just before merge `step`."""
    top = sorted(range(len(training.words)), key=lambda i: (-training.counts[i], i))[:limit]
    rows = [{"word": fmt_token(training.words[i], SHOWN_WORD_CHARS), "count": training.counts[i],
             "split": " ".join(fmt_token(t) for t in before)}
            for i, (before, _) in zip(top, words_around(training, step, top, SHOWN_WORD_CHARS))]
    return pd.DataFrame(rows)


def samples_markdown(samples: pd.DataFrame) -> str:
    """The sample corpora as a Markdown table (our own catalog's text; each row links to the Train page)."""
    rows = ["| corpus | distinct words | words | suggested vocabulary | what it is | |", "|---|---:|---:|---:|---|---|"]
    rows += [f"| **{r['corpus']}** | {r['distinct words']:,} | {r['words']:,} | {r['suggested vocabulary']:,} | "
             f"{r['description']} | [Train\u00a0on\u00a0it]({r['open']}) |" for r in samples.to_dict("records")]
    return "\n".join(rows)
