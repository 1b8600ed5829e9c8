"""Teaching notes computed from the step on screen: why this pair won, what BPE would do,
what the tie rule decided, which words the merge completed, where the sources err.

Each function returns Markdown (or None when the note does not apply at this step).
Tokens are shown as code; numbers come from the trace, never typed in.
"""

from __future__ import annotations

import math

import pandas as pd

from wordpiece_core import reference
from wordpiece_core.replay import splits_at
from wordpiece_core.records import Candidate, MergeStep
from wordpiece_core.trace import Training

from . import sources
from .safe import code
from .tables import arithmetic, fmt_fraction, fmt_number, fmt_score, fmt_signed, fmt_token, tied_candidates

RECOUNT_WORDS = 5_000  # beyond this many distinct words, the other tie rule's pick is not recounted
# The tie rules' short names (what each rule does, in words: wordpiece_core.reference.TIE_RULES).
RULE_NAMES = {"first": "first seen (the course)", "hf": "smallest ids (Hugging Face's tokenizers)"}


def _pair(c: MergeStep | Candidate) -> str:
    return code(f"{fmt_token(c.left)} + {fmt_token(c.right)}")


def _token(token: str) -> str:
    return code(fmt_token(token))


def why_this_pair(training: Training, step: MergeStep) -> str | None:
    """The winner against the best pair with a lower score, and which count made the difference."""
    algorithm = training.config.algorithm
    runner = next((c for c in step.candidates if c.score < step.score), None)
    if runner is None:
        return None
    tied = [c for c in tied_candidates(step) if (c.left, c.right) != (step.left, step.right)]
    ties = ""  # pairs as good as the winner come before the next best: the tie rule chose among them
    if tied:
        shown = ", ".join(_pair(c) for c in tied[:3]) + (f" and {len(tied) - 3:,} more" if len(tied) > 3 else "")
        ties = (f" {shown} {'ties' if len(tied) == 1 else 'tie'} with it"
                + (f" ({step.pair_count:,} times)" if algorithm == "bpe" else f" at {fmt_fraction(step.score)}")
                + "; the tie rule picked this one (below).")
    if algorithm == "bpe":
        return (f"**Why {_pair(step)}?** It occurs {step.pair_count:,} times.{ties} The next best pair, "
                f"{_pair(runner)}, occurs {runner.pair_count:,} times. BPE merges the most frequent pair.")
    ratio = float(step.score / runner.score)
    factors = {  # each factor of score(winner) / score(runner-up); above 1 helps the winner
        f"the pair is more frequent: {_pair(step)} occurs {step.pair_count:,} times, {_pair(runner)} "
        f"{runner.pair_count:,}":
            step.pair_count / runner.pair_count,
        f"its first part is rarer on its own: {_token(step.left)} occurs {step.left_count:,} times, "
        f"{_token(runner.left)} {runner.left_count:,}":
            runner.left_count / step.left_count,
        f"its second part is rarer on its own: {_token(step.right)} occurs {step.right_count:,} times, "
        f"{_token(runner.right)} {runner.right_count:,}":
            runner.right_count / step.right_count,
    }
    reason, weight = max(factors.items(), key=lambda kv: kv[1])
    alike = sum(1 for c in step.candidates if c.score == runner.score)
    which = "the runner-up" if alike == 1 else f"the runner-up (one of {alike} pairs at {fmt_fraction(runner.score)})"
    text = (f"**Why {_pair(step)} and not {_pair(runner)}?**{ties} {arithmetic(step, algorithm)} against "
            f"{arithmetic(runner, algorithm)} for {which}: {fmt_number(ratio)}× higher. ")
    if weight > 1:
        text += f"What made the difference most: {reason} (a factor of {fmt_number(weight)}). "
    if runner.pair_count > step.pair_count:
        text += f"The runner-up occurs more often ({runner.pair_count:,} against {step.pair_count:,}), yet scores lower."
    return text.strip()


def tie_decided(training: Training, step: MergeStep) -> str | None:
    """When several pairs share the best score: what the other tie rule would have merged."""
    if step.ties <= 1:
        return None
    tied = tied_candidates(step)
    rule = training.config.tie_break
    other_name = RULE_NAMES["hf" if rule == "first" else "first"]
    if rule == "first":
        vocab = training.vocab_at(step.step - 1)
        other = min(tied, key=lambda c: (vocab.index(c.left), vocab.index(c.right)))
    elif len(training.words) <= RECOUNT_WORDS:
        pairs, _, first = reference.count(splits_at(training, step.step), list(training.counts))
        other = min(tied, key=lambda c: first[c.left, c.right])
    else:
        return (f"**A tie decided this step** ({step.ties} pairs at {fmt_fraction(step.score)}). The other rule, "
                f"{other_name}, may pick another of them: switch *Tie-break* in the sidebar to see.")
    same = (other.left, other.right) == (step.left, step.right)
    return (f"**A tie decided this step**: {step.ties} pairs score {fmt_fraction(step.score)}. "
            + (f"The other rule, {other_name}, would pick the same pair." if same else
               f"The other rule, {other_name}, would merge {_pair(other)} instead, and the rest of the training "
               "could differ from here on."))


def bpe_would_pick(training: Training, step: MergeStep, table: pd.DataFrame, complete: bool) -> str | None:
    """WordPiece only: BPE's choice among the same candidates, and why WordPiece passes it over."""
    if training.config.algorithm != "wordpiece" or table.empty:
        return None
    top = table.sort_values("count(ab)", ascending=False, kind="stable").iloc[0]
    where = "of all pairs" if complete else f"among the {len(table):,} best-scored pairs recorded"
    if top["count(ab)"] <= step.pair_count:
        return (f"**BPE would merge the same pair here**: with count(ab) = {step.pair_count:,} it is also the most "
                f"frequent {where}.")
    return (f"**BPE would merge {code(top['pair'])} here** (count(ab) = {top['count(ab)']:,}, the most frequent {where}). "
            f"WordPiece passes it over: count(a) × count(b) = {top['count(a)']:,} × {top['count(b)']:,} = "
            f"{top['count(a)'] * top['count(b)']:,} divides it down to {fmt_score(float(top['score']))}.")


def completes_words(step: MergeStep, change: pd.DataFrame) -> str | None:
    """The corpus words that are a single token after this merge."""
    whole = [r for r in change.to_dict("records") if len(r["after"]) == 1]
    if not whole:
        return None
    names = ", ".join(f"{code(r['word'])} (×{r['count']:,})" for r in whole[:6])
    return (f"**A whole word becomes one token**: {names}. From now on the vocabulary spells "
            + ("it" if len(whole) == 1 else "them") + " in one piece.")


def score_vs_likelihood(training: Training, step: MergeStep) -> str:
    best = max(step.candidates, key=lambda c: c.loglik_delta) if step.candidates else None
    text = (f"**Exact likelihood gain.** Merging {_pair(step)} changes the corpus' unigram log-likelihood by "
            f"{fmt_signed(step.loglik_delta)} (natural log; see {sources.LIKELIHOOD.md()}). ")
    if training.config.algorithm == "wordpiece":
        text += ("WordPiece's score is not that gain: the gain is roughly count(ab) × log(score × N) (N: the tokens "
                 "in the corpus), and the score ranks by the part inside the log, how much more often a and b stand "
                 "together than chance would put them. So the two agree when the candidates are about as frequent; "
                 "a frequent pair with a weaker bond can gain more. ")
    else:
        text += "BPE's score is count(ab) alone; the gain also grows as a and b get rarer on their own. "
    if best is not None and (best.left, best.right) != (step.left, step.right) and \
            not math.isclose(best.loglik_delta, step.loglik_delta):
        text += (f"Here they disagree: among the top {len(step.candidates)} candidates, {_pair(best)} would gain more "
                 f"({fmt_signed(best.loglik_delta)}).")
    else:
        text += "Here they agree: among the top candidates, this merge also has the largest exact gain."
    return text


def existing_token(step: MergeStep) -> str | None:
    if not step.new_token_existed:
        return None
    return (f"{code(fmt_token(step.new_token))} was already in the vocabulary (an earlier merge made it another way), "
            "so this step changes the splits but adds no token, as Hugging Face's BpeTrainer does.")


# ----- where a source errs or differs, at the step where it shows --------------------------------
def _course_toy_step_3() -> str:
    return (
        f"**The course's step 3** ({sources.COURSE_WORDPIECE.md()}). Its prose says the next merge is `hu` + `##g`, "
        "tied with `hu` + `##gs` at 1/15. The counts say otherwise: count(hu) = 15 and count(##g) = 15, so "
        "`hu` + `##g` scores 10 / (15 × 15) = 2/45 ≈ 0.044, while `hu` + `##gs` scores 5 / (15 × 5) = 1/15 ≈ 0.067 "
        "and wins alone. This app follows the arithmetic; `hu` + `##g` comes next, at step 4.")


def _likelihood_example() -> str:
    return (
        f"**The worked example of {sources.LIKELIHOOD.md()}.** Its prose counts e 11 times, but *newest* has two "
        "e's: 6 × 2 + 2 + 3 = 17. It then merges `l` + `##o` at 7 / (7 × 7) = 1/7, although `w` + `##i` and "
        "`##i` + `##d` both score 3 / (3 × 3) = 1/3 (a tie, shown here). Its code's printed 20-token vocabulary "
        "agrees with the arithmetic (with min frequency 1 and no special tokens, the settings this corpus starts with).")


# (sample corpus, WordPiece step) -> the note on where a source's worked example errs at that step
ERRATA = {("course-toy", 3): _course_toy_step_3, ("low-lower-newest-widest", 1): _likelihood_example}


def erratum(corpus: str, training: Training, step: MergeStep) -> str | None:
    """Where a source's worked example on this corpus errs at this step (WordPiece only), if it does."""
    note = ERRATA.get((corpus, step.step))
    return note() if note is not None and training.config.algorithm == "wordpiece" else None


def scaled_score(training: Training, step: MergeStep) -> str | None:
    if training.config.algorithm != "wordpiece" or step.step != 1:
        return None
    return (
        f"**{sources.VARIANT_TUTORIAL.title[0].upper() + sources.VARIANT_TUTORIAL.title[1:]}** multiplies each score "
        f"by the vocabulary size |V| = {step.vocab_size_before:,}: {fmt_fraction(step.score)} × {step.vocab_size_before:,} "
        f"= {fmt_score(step.scaled_score)}. Every pair of a step is multiplied by the same number, so the winner never "
        "changes (column *score × |V|* in the table)."
    )


def hf_trainer(training: Training, step: MergeStep) -> str | None:
    if training.config.algorithm != "wordpiece" or step.step != 1:
        return None
    return (
        "**Hugging Face's `WordPieceTrainer` is BPE inside.** It picks the most *frequent* pair and only adds "
        f"the `##` prefix ({sources.COURSE_WORDPIECE.md()} says so too). Switch the algorithm to BPE, or open "
        "*Compare tokenizers*, to see what it learns; the *BPE view* tab shows the same pairs ranked by count."
    )


def for_step(corpus: str, training: Training, step: MergeStep, table: pd.DataFrame, complete: bool,
             change: pd.DataFrame) -> list[str]:
    """The notes for this step, most specific first."""
    notes = [
        erratum(corpus, training, step),
        why_this_pair(training, step),
        tie_decided(training, step),
        bpe_would_pick(training, step, table, complete),
        completes_words(step, change),
        existing_token(step),
        score_vs_likelihood(training, step),
        scaled_score(training, step),
        hf_trainer(training, step),
    ]
    return [n for n in notes if n]
