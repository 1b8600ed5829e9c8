"""Teaching notes: where the seeds disagree or err, tied to what is on screen.

Each function returns Markdown (or None when the note does not apply here).
"""

from __future__ import annotations

from wordpiece_core.trace import MergeStep, Training

from .safe import code

from .tables import fmt_exact, fmt_score, fmt_token


def course_toy_step_3(corpus: str, training: Training, step: MergeStep) -> str | None:
    if corpus != "course-toy" or training.config.algorithm != "wordpiece" or step.step != 3:
        return None
    return (
        "**The course's step 3 (seed 000).** The course's prose says the next merge is `hu` + `##g`, "
        "tied with `hu` + `##gs` at 1/15. The counts say otherwise: count(hu) = 15 and count(##g) = 15, so "
        "`hu` + `##g` scores 10 / (15 × 15) = 2/45 ≈ 0.044, while `hu` + `##gs` scores 5 / (15 × 5) = 1/15 ≈ 0.067 "
        "and wins alone. This app follows the arithmetic; `hu` + `##g` comes next, at step 4."
    )


def seed_004(corpus: str, training: Training, step: MergeStep) -> str | None:
    if corpus != "low-lower-newest-widest" or training.config.algorithm != "wordpiece" or step.step != 1:
        return None
    return (
        "**Seed 004's worked example.** Its prose counts e 11 times, but *newest* has two e's: 6 × 2 + 2 + 3 = 17. "
        "It then merges `l` + `##o` at 7 / (7 × 7) = 1/7, although `w` + `##i` and `##i` + `##d` both score "
        "3 / (3 × 3) = 1/3 (a tie, shown here). Its code's printed 20-token vocabulary agrees with the arithmetic "
        "(with min frequency 1 and no special tokens, the settings this corpus starts with)."
    )


def scaled_score(training: Training, step: MergeStep) -> str | None:
    if training.config.algorithm != "wordpiece":
        return None
    return (
        f"**Seed 003's variant** multiplies each score by the vocabulary size |V| = {step.vocab_size_before:,}: "
        f"{fmt_exact(step.score)} × {step.vocab_size_before:,} = {fmt_score(step.scaled_score)}. Every pair of the "
        "step is multiplied by the same number, so the order, and the winner, never change (column "
        "*score × |V|* in the table)."
    )


def hf_trainer(training: Training) -> str | None:
    if training.config.algorithm != "wordpiece":
        return None
    return (
        "**Hugging Face's `WordPieceTrainer` is BPE inside.** It picks the most *frequent* pair and only adds "
        "the `##` prefix (seeds 000 and 004 say so). Switch the algorithm to BPE, or open *BPE vs WordPiece*, "
        "to see what it learns; the *BPE view* tab shows the same pairs ranked by count."
    )


def likelihood(training: Training, step: MergeStep) -> str:
    best = max(step.candidates, key=lambda c: c.loglik_delta) if step.candidates else None
    text = (
        f"**Likelihood (seed 004).** Merging {code(fmt_token(step.left))} + {code(fmt_token(step.right))} changes the corpus' unigram "
        f"log-likelihood by exactly {step.loglik_delta:+.3f} (natural log). "
    )
    if training.config.algorithm == "wordpiece":
        text += "The WordPiece score count(ab) / (count(a) × count(b)) is seed 004's approximation of that gain. "
    if best is not None and (best.left, best.right) != (step.left, step.right):
        text += (
            f"Among the top {len(step.candidates)} candidates, {code(fmt_token(best.left))} + {code(fmt_token(best.right))} would gain more "
            f"({best.loglik_delta:+.3f}): the score is an approximation, not the exact gain."
        )
    else:
        text += "Among the top candidates, this merge also has the largest exact gain."
    return text


def existing_token(step: MergeStep) -> str | None:
    if not step.new_token_existed:
        return None
    return (
        f"{code(fmt_token(step.new_token))} was already in the vocabulary (made by an earlier merge in another way), so this "
        "step changes the splits but adds no token, as Hugging Face's BpeTrainer does."
    )


def for_step(corpus: str, training: Training, step: MergeStep) -> list[str]:
    notes = [
        course_toy_step_3(corpus, training, step),
        seed_004(corpus, training, step),
        existing_token(step),
        likelihood(training, step),
        scaled_score(training, step),
        hf_trainer(training),
    ]
    return [n for n in notes if n]
