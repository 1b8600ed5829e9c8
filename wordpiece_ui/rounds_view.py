"""The Train page's view of a Unigram round (its EM iterations and its pruning, or the course's exact removal),
drawn from the training's records (wordpiece_core/unigram/records.py, rounds.py); pages/train.py drives it
through lesson.StepView.

What a round shows: the loss and its arithmetic for one word; the candidates with the smallest loss
increases, the removed ones marked; the words whose best split the round changed, before → after; under the
tokenizers rule, EM's iterations (sizes, objective, the most expected pieces with their probabilities before
→ after); *Why this round*; and over all rounds the vocabulary size and the loss. Ask first hides what a
round removes until it is revealed: which of a few candidates (the course rule's cheapest; under the tokenizers
rule, those around where the pruning stops) costs least to remove? In a class room the class votes on it
(`question`: the choices, the cheapest the answer).
"""

from __future__ import annotations

import functools
import math
import textwrap

import altair as alt
import pandas as pd
import streamlit as st

from wordpiece_core.unigram import files as unigram_files
from wordpiece_core.unigram.records import EMRound
from wordpiece_core.unigram.reference import COURSE_ERRATA
from wordpiece_core.unigram.records import Round
from wordpiece_core.unigram.rounds import (Choice, RoundModel, Split, changed_splits, choices, exact_increases,
                                           loss_series,
                                           round_model)
from wordpiece_core.unigram.training import UnigramConfig, UnigramTraining

from . import algorithm_code, caches, charts, classroom, glossary, intro, room_student, room_teacher, safe, state, tables, trained, unigram_handout
from .encodings import probability_text
from .lesson import ViewBase
from .settings import Settings
from .tables import plural as tables_plural, stopped_early
from .trained_model import TrainedModel

CANDIDATE_ROWS = 15
QUIZ_CHOICES = 6
SPLIT_WORDS = 2_000  # the most frequent words whose splits a round compares (a wordfreq list has 10,000)
EXACT_WORDS = 20_000  # the course's exact loss increases are computed beside the estimates up to this many words
CHANGED_ROWS = 12


def _rounds(model: TrainedModel) -> UnigramTraining:
    return trained.loaded_unigram(model)


def fmt(piece: str) -> str:
    """A piece as the tables show it: Metaspace's ▁ kept, a space made visible."""
    return piece.replace(" ", "␣") if piece.strip() else repr(piece)


def split_text(split: Split) -> str:
    return " ".join(fmt(p) for p in split.pieces)


# ---------------------------------------------------------------------------------------------- tables

def candidates_frame(r: Round | EMRound, rows: int) -> pd.DataFrame:
    """A round's candidates by loss increase, lowest first, the removed ones marked: the course rule's cheapest;
    the tokenizers rule's around its cut (it removes thousands: the question is where it stopped)."""
    if isinstance(r, Round):
        removed = set(r.removed)
        data = [{"piece": fmt(t), "loss increase": s, "removed": t in removed} for t, s in r.scores[:rows]]
        return pd.DataFrame(data, columns=["piece", "loss increase", "removed"])
    p = r.pruning
    if p is None:
        return pd.DataFrame(columns=["piece", "loss increase", "removed", "replaced by", "on best splits"])
    cut = set(p.cut)
    # Around the cut: the costliest removed and the cheapest kept (the candidates are highest loss first, the
    # removed last), lowest loss first; a round that cut nothing shows its cheapest candidates.
    kept = len(p.pieces) - len(p.cut)
    low = max(0, min(kept + rows // 2, len(p.pieces)) - rows)
    order = range(min(len(p.pieces), low + rows) - 1, low - 1, -1)
    data = [{"piece": fmt(p.pieces[k]), "loss increase": p.losses[k], "removed": p.pieces[k] in cut,
             "replaced by": " ".join(fmt(a) for a in p.alternatives[k]), "on best splits": p.frequencies[k]}
            for k in order]
    frame = pd.DataFrame(data, columns=["piece", "loss increase", "removed", "replaced by", "on best splits"])
    frame.attrs["pieces"] = [p.pieces[k] for k in order]  # as trained (the column shows them for the screen)
    return frame


def with_exact(model: TrainedModel, number: int, frame: pd.DataFrame) -> pd.DataFrame:
    """The tokenizers rule's candidates with the course's exact loss increase beside the estimate (the pieces
    shown only: each costs a pass over the words that hold it)."""
    def make() -> pd.DataFrame:
        counts = model.counts
        if counts is None or frame.empty:
            return frame
        pieces = list(frame.attrs["pieces"])
        exact = exact_increases(_rounds(model), number, pieces, counts.counts)
        out = frame.assign(**{"exact (course)": [exact[p] for p in pieces]})
        out.attrs["pieces"] = pieces
        return out
    return caches._derived("unigram exact", model, number, len(frame), make=make)


def changed_frame(model: TrainedModel, number: int) -> pd.DataFrame:
    def make() -> pd.DataFrame:
        training = _rounds(model)
        counts = model.counts
        words = counts.most_frequent(SPLIT_WORDS) if counts is not None else []
        rows = [{"word": fmt(w), "count": c, "before": split_text(a), "after": split_text(b),
                 "cost before": a.cost, "cost after": b.cost}
                for w, c, a, b in changed_splits(training, number, words)]
        return pd.DataFrame(rows, columns=["word", "count", "before", "after", "cost before", "cost after"])
    return caches._derived("unigram changed", model, number, make=make)


def em_frame(r: EMRound) -> pd.DataFrame:
    rows = [{"EM iteration": e.sub_iteration, "pieces before": e.size_before - 1, "pieces after": e.size_after - 1,
             "dropped (expected < 0.5)": len(e.dropped), "objective (nats a word)": e.objective,
             "tokens on best splits": e.tokens} for e in r.em]
    return pd.DataFrame(rows)


def expected_frame(r: EMRound, previous: dict[str, float] | None) -> pd.DataFrame:
    """The most expected pieces of the round's last EM iteration: probability before → after."""
    last = r.em[-1] if r.em else None
    rows = []
    for piece, expected, after in (last.top if last else ()):
        before = previous.get(piece) if previous else None
        rows.append({"piece": fmt(piece), "expected count": expected,
                     "p before": math.exp(before) if before is not None and math.isfinite(before) else math.nan,
                     "p after": math.exp(after) if math.isfinite(after) else 0.0})
    columns = ["piece", "expected count", "p before", "p after"] if previous else ["piece", "expected count", "p after"]
    return pd.DataFrame(rows, columns=["piece", "expected count", "p before", "p after"])[columns]


def rounds_frame(training: UnigramTraining) -> pd.DataFrame:
    rows = [{"round": n, "vocabulary": size, "loss": loss} for n, size, loss in loss_series(training)]
    return pd.DataFrame(rows)


def candidates_title(r: Round | EMRound, frame: pd.DataFrame) -> str:
    """What the candidates chart shows, said above it: the course rule's cheapest, or the tokenizers rule's
    candidates around its cut (and when its pruning removed none, that it removed none)."""
    removed = int(frame["removed"].sum())
    total = len(r.scores) if isinstance(r, Round) else len(r.pruning.pieces) if r.pruning else 0
    shown = f"All {total} candidates" if len(frame) == total else f"The {len(frame)} cheapest candidates"
    if isinstance(r, Round):
        return f"{shown} ({removed} removed)"
    if r.pruning is None or not r.pruning.cut:
        return f"{shown}: this round's pruning removed none"
    return f"The {len(frame)} candidates around the cut ({removed} of them removed; {len(r.pruning.cut):,} removed in all)"


def candidates_chart(frame: pd.DataFrame, large: bool, dark: bool = False, title: str = "") -> alt.LayerChart:
    """The cheapest candidates as bars of their loss increase (in nats), each labelled with it as the tables write
    a score, right of its bar's end or of 0 for a bar below 0; the removed in vermillion (charts.REMOVED); `title` says which candidates
    they are (`candidates_title`)."""
    size = 18 if large else 12
    data = frame.assign(status=frame["removed"].map({True: "removed", False: "kept"}),
                        label=frame["loss increase"].map(tables.fmt_score),
                        at=frame["loss increase"].clip(lower=0))
    base = alt.Chart(data).encode(
        y=alt.Y("piece:N", sort=None, title=None, axis=alt.Axis(labelFontSize=size, labelLimit=240)),
        tooltip=list(frame.columns))
    title_x = "loss increase if removed (nats)"
    axis = charts.number_axis(charts.axis_format(frame["loss increase"]), labelFontSize=size - 2,
                              titleFontSize=size - 2)
    x = alt.X("loss increase:Q", title=title_x, axis=axis)
    colour = alt.Scale(domain=["removed", "kept"], range=[charts.REMOVED, charts.KEPT])
    bars = base.mark_bar().encode(x=x, color=alt.Color(
        "status:N", scale=colour, legend=alt.Legend(orient="bottom", title=None, labelFontSize=size - 2)))
    dots = base.mark_point(filled=True, size=70 if large else 45).encode(
        x=x, color=alt.Color("status:N", scale=colour, legend=None))  # a removal that costs 0 has no bar: its dot shows
    text = base.mark_text(align="left", dx=7, fontSize=size - 2, color="#fafafa" if dark else "#31333f").encode(
        x=alt.X("at:Q", title=title_x, axis=axis), text="label:N")  # (one axis: the same title)
    lines = textwrap.wrap(title, 34 if large else 40)  # (a title wider than the chart's column is cut short)
    return alt.layer(bars, dots, text, title=alt.Title(lines, fontSize=size + 2) if title else alt.Undefined
                     ).properties(height=110 + (36 if large else 26) * len(frame), padding={"right": 48})


def rounds_chart(frame: pd.DataFrame, value: str, title: str, axis: str) -> alt.Chart:
    """One value over the rounds, with its title and its axis (its unit)."""
    return alt.Chart(frame, title=title).mark_line(point=True).encode(
        x=alt.X("round:Q", axis=alt.Axis(tickMinStep=1)), y=alt.Y(f"{value}:Q", title=axis),
        tooltip=list(frame.columns)).properties(height=220)


# ---------------------------------------------------------------------------------------------- notes

def why_round(training: UnigramTraining, r: Round | EMRound, corpus: str) -> list[str]:
    """*Why this round*: computed from its records."""
    notes: list[str] = []
    if isinstance(r, Round):
        if not r.removed:
            return notes
        n = len(r.removed)
        first, score = r.scores[0]
        kept = r.scores[n] if n < len(r.scores) else None
        notes.append(
            f"**Why {safe.code(fmt(first))}?** Of the {len(r.scores):,} pieces longer than one character, it raises "
            f"the loss least when removed: by {score:.2f} (every word split again without it). A round removes "
            f"{training.config.prune_percent:g} % of the vocabulary ({n} of {len(r.counts)}), the cheapest first"
            + (f"; the cheapest piece kept, {safe.code(fmt(kept[0]))}, would have cost {kept[1]:.2f}." if kept else "."))
        free = [t for t, s in r.scores[:n] if s == 0]
        if free:
            notes.append(f"Removing {', '.join(safe.code(fmt(t)) for t in free[:5])} costs nothing: no word's best "
                         "split needs it (another split scores the same, or better).")
        ties = [t for t, s in r.scores if s == r.scores[n - 1][1]]
        if len(ties) > 1 and n < len(r.scores) and r.scores[n][1] == r.scores[n - 1][1]:
            notes.append(f"{len(ties)} pieces tie at {r.scores[n - 1][1]:.2f}: the course's code keeps the "
                         "vocabulary's order (a stable sort), so the first of them go.")
        occurrences = round(r.course_loss - r.loss)
        notes.append("**Why the loss can fall from round to round.** A removal score compares the loss with and "
                     "without a piece under the same probabilities, so it is never below 0. After the round the "
                     "probabilities are computed again over the pieces left (their counts over a smaller total), "
                     "so every piece left becomes more probable, and the next round's loss can be lower.")
        notes.append(f"The course's code would print this loss as {r.course_loss:,.2f} (+ {occurrences:,}, one per "
                     f"word occurrence), not {r.loss:,.2f}: Hugging Face course, “Unigram tokenization”, "
                     "starts each word's Viterbi score at 1 instead of 0. Removal scores are differences, so they and "
                     "the pruning are unaffected.")
        if corpus == "course-toy" and r.number == 1:
            notes.append("Hugging Face course, “Unigram tokenization”: " + COURSE_ERRATA["pug"])
        return notes
    dropped = [t for e in r.em for t in e.dropped]
    if dropped:
        chars = [t for t in dropped if len(t) == 1]
        notes.append(f"**EM dropped {tables_plural(len(dropped), 'piece')}** expected fewer than 0.5 times over all "
                     f"the words' splits ({', '.join(safe.code(fmt(t)) for t in dropped[:5])}"
                     f"{'…' if len(dropped) > 5 else ''})."
                     + (f" Among them {'a character' if len(chars) == 1 else 'characters'} "
                        f"({', '.join(safe.code(fmt(t)) for t in chars[:5])}): unlike the course's loop, tokenizers' "
                        "trainer may drop a character while it trains (a word then needs the unknown piece for it), "
                        "and puts every character of the corpus back into the final vocabulary." if chars else ""))
    p = r.pruning
    if p is None:
        notes.append(f"**The last round.** EM left {r.em[-1].size_after - 1:,} pieces, at most 1.1 × the "
                     f"vocabulary size ({training.config.vocab_size:,}), so nothing is pruned: the final vocabulary "
                     "keeps every character, then the model's pieces in its order, up to the size.")
        return notes
    if p.unused:
        notes.append(f"**{tables_plural(len(p.unused), 'piece')} went for free:** no word's best split used "
                     f"{'it' if len(p.unused) == 1 else 'them'}, and each has a better split than itself "
                     f"({', '.join(safe.code(fmt(t)) for t in p.unused[:5])}{'…' if len(p.unused) > 5 else ''}).")
    if p.cut:
        k = len(p.pieces) - 1
        notes.append(
            f"**Why {safe.code(fmt(p.pieces[k]))}?** Removing it would move its {tables.fmt_number(p.frequencies[k], 6)} uses on best "
            f"splits to {' + '.join(safe.code(fmt(a)) for a in p.alternatives[k])}, its second-best split; "
            f"tokenizers' estimate of the loss increase is {tables.fmt_number(p.losses[k])} nats a word occurrence, the smallest of "
            f"the {len(p.pieces):,} candidates, so it goes first (the chart shows the candidates around the cut, where "
            f"the removing stopped). The round keeps the {len(p.pieces) - len(p.cut):,} with the highest "
            f"estimates, down to max(1.1 × {training.config.vocab_size:,}, {training.config.shrinking_factor:g} × "
            f"the size) = {p.target:,} pieces, the trainer's own <UNK> among them: {p.target - 1:,} without it.")
    notes.append("Unlike the course's loop, this loss is an estimate: it assumes each use of a piece turns into its "
                 "second-best split, without splitting the corpus again (the course computes it exactly, which "
                 "costs a Viterbi pass over every word for every candidate).")
    return notes


def nats(x: float) -> str:
    """'1 nat', '0.5 nats', '3.01 × 10⁻⁶ nats'."""
    text = tables.fmt_number(x)
    return f"{text} nat" + ("" if text == "1" else "s")


def exact_note(frame: pd.DataFrame) -> list[str]:
    """What the course's exact rule would remove among the candidates shown, where tokenizers' estimate differs."""
    if "exact (course)" not in frame.columns or frame.empty:
        return []
    notes = []
    if (frame["loss increase"] < 0).any():
        notes.append("An estimate below 0 says the alternatives, once they take over the piece's uses, would be "
                     "more probable than the piece: the estimate counts uses on the best splits, while those splits "
                     "were chosen with EM's probabilities, and the two can disagree. Removing a piece can only make "
                     "a word's best split worse, so the exact increase is never below 0.")
    return notes + _exact_comparison(frame)


def _exact_comparison(frame: pd.DataFrame) -> list[str]:
    by_estimate = frame.sort_values("loss increase", kind="stable")
    by_exact = frame.sort_values("exact (course)", kind="stable")
    removed = int(frame["removed"].sum())
    if removed == 0 or removed == len(frame):
        first_e, first_x = by_estimate.iloc[0], by_exact.iloc[0]
        if first_e["piece"] == first_x["piece"]:
            return [f"Among the candidates shown, the course's exact rule agrees: {safe.code(first_x['piece'])} "
                    f"costs least to remove ({nats(first_x['exact (course)'])} a word exactly)."]
        return [f"**What the course's rule would do.** Among the candidates shown, the exact loss increase is "
                f"smallest for {safe.code(first_x['piece'])} ({nats(first_x['exact (course)'])} a word), where "
                f"tokenizers' estimate ranks {safe.code(first_e['piece'])} first."]
    cut_estimate = set(by_estimate["piece"].iloc[:removed])
    cut_exact = set(by_exact["piece"].iloc[:removed])
    if cut_estimate == cut_exact:
        return [f"Among the {len(frame)} candidates shown around the cut, the course's exact rule would remove the "
                f"same {removed}."]
    spared = sorted(cut_estimate - cut_exact)
    taken = sorted(cut_exact - cut_estimate)
    return [f"**What the course's rule would do.** Among the {len(frame)} candidates shown around the cut, its "
            f"exact loss increases would remove {', '.join(safe.code(t) for t in taken)} instead of "
            f"{', '.join(safe.code(t) for t in spared)}: tokenizers' estimate assumes each use of a piece becomes "
            "its second-best split, while splitting the words again can find better splits."]


# ---------------------------------------------------------------------------------------------- the page

def vote_choices(model: TrainedModel, number: int) -> list[Choice]:
    """A hidden round's choices: candidates whose costs differ (exactly one is right), cheapest first, each with
    what a student reasons from (rounds.choices); [] when every candidate costs the same. The course rule's from
    all its candidates; the tokenizers rule's from around its cut."""
    def make() -> list[Choice]:
        training = _rounds(model)
        r = training.rounds[number - 1]
        if isinstance(r, Round):
            costs = list(r.scores)
        else:
            frame = candidates_frame(r, CANDIDATE_ROWS)
            costs = list(zip(frame.attrs.get("pieces", []), frame["loss increase"]))
        words = model.counts.most_frequent(SPLIT_WORDS) if model.counts is not None else []
        return choices(training, number, costs, QUIZ_CHOICES, words)
    return caches._derived("unigram choices", model, number, make=make)


def choices_frame(picked: list[Choice], answers: bool = False) -> pd.DataFrame:
    """The choices as the projector and the phones show them, in alphabetical order: the probability (and count),
    the words that hold the piece, its split without it; with `answers`, the loss increase too."""
    course = any(c.count is not None for c in picked)
    rows = [{"piece": fmt(c.piece),
             **({"count": c.count} if course else {}),
             "p": c.probability,
             "in the words": ", ".join(f"{fmt(w)} ×{n:,}" for w, n in c.words) or "—",
             "split without it": " ".join(fmt(t) for t in c.without) or "—",
             **({"loss increase": c.loss_increase} if answers else {})}
            for c in sorted(picked, key=lambda c: c.piece)]
    return pd.DataFrame(rows)


def question(model: TrainedModel, number: int) -> classroom.Question:
    """A hidden round's vote as the class room asks it: its choices in alphabetical order, the cheapest the answer,
    a choice judged by its loss increase (judge_removal). Every candidate costing the same: the cheapest alone
    (nothing to vote on; the teacher reveals)."""
    picked = vote_choices(model, number)
    if picked:
        costs = [(fmt(c.piece), c.loss_increase) for c in picked]
    else:
        frame = candidates_frame(_rounds(model).rounds[number - 1], CANDIDATE_ROWS).head(1)
        costs = list(zip(frame["piece"], frame["loss increase"]))
    return classroom.Question(tuple(sorted(piece for piece, _ in costs)), costs[0][0] if costs else "",
                              functools.partial(judge_removal, costs))


def judge_removal(costs: list[tuple[str, float]], guess: str) -> tuple[bool, str]:
    """Whether removing `guess` raises the loss least among `costs` (piece, loss increase; cheapest first; a tie
    with the cheapest counts, and says so), and a sentence with both costs."""
    mine = dict(costs).get(guess)
    if mine is None:
        return False, f"{guess} is not among the choices."
    first, least = costs[0]
    if mine == least:
        return True, (f"Right: removing {guess} raises the loss least ({tables.fmt_number(mine)})." if guess == first else
                      f"Right, by a tie: removing {guess} raises the loss by {tables.fmt_number(mine)} too; {first} goes first.")
    return False, f"Not this one: removing {guess} raises the loss by {tables.fmt_number(mine)}, against {tables.fmt_number(least)} for {first}."


class RoundsView(ViewBase):
    """A step is a round (Unigram): pages/train.py drives it through lesson.StepView. In a class room the class
    follows the teacher's round and votes on hidden ones, as on merges (room_teacher.py, room_student.py)."""

    noun = "round"
    quiz_help = "Hides what each round removes until you reveal it: guess which candidate costs least."
    on_screen = "the round and its arithmetic"
    hold_help = "Reveal this round first: Play stops at every hidden round."
    intro = intro.UNIGRAM_INTRO
    steps_noun = "rounds"
    answer_name = "removed first"
    vote_kind = "piece"  # what the room stores a vote as
    ask = "which piece costs least to remove?"

    def summary(self) -> str:
        model = self.model
        config = model.config
        assert isinstance(config, UnigramConfig)
        n = self.steps
        return (f"**{safe.md(model.corpus.name)}**: {model.corpus.types:,} distinct words, {model.corpus.tokens:,} in "
                f"all · Unigram, {state.RULE_LABELS[config.rule]} · seed: {model.start_tokens - len(config.special_tokens):,} "
                f"pieces · {n:,} round{'' if n == 1 else 's'} → {model.tokens:,} tokens "
                f"({len(config.special_tokens)} special)"
                + ("" if model.tokens >= model.settings.vocab_size else
                   " · " + stopped_early(model.tokens, model.settings.vocab_size, model.stop_reason)))

    def nothing(self) -> str | None:
        if self.steps:
            return None
        return f"Nothing to remove: {safe.md(self.model.stop_reason)}. Lower the vocabulary size in the sidebar."

    def revealed_here(self) -> set[int]:
        return st.session_state.get(state.REVEALED_ROUNDS, set())

    def question(self, number: int) -> classroom.Question:
        return question(self.model, number)

    def hint(self) -> str:
        return "Removing a piece raises the corpus' loss: the words that held it split another way. The cheapest goes."

    def choices_table(self, number: int) -> pd.DataFrame:
        """The vote's choices with what a student reasons from (the question's order; none when all tie)."""
        return choices_frame(vote_choices(self.model, number))

    def draw(self, number: int, hidden: bool) -> None:
        lesson = self.lesson
        round_view(self.model, self.settings, number, lesson.presenting, hidden, lesson.dark, lesson.room,
                   asked=lesson.quiz)

    def downloads(self) -> None:
        downloads(self.model, self.settings, self.lesson.quiz)

    def handout(self) -> None:
        handout_box(self.model, self.settings, self.steps, self.lesson.quiz)


def round_view(model: TrainedModel, settings: Settings, number: int, presenting: bool, hide: bool, dark: bool,
               room: classroom.Room | None = None, asked: bool = False) -> None:
    """A round (`asked`: in ask first, with the question's choices and their costs), or (`hide`) its question."""
    training = _rounds(model)
    r = training.rounds[number - 1]
    n = len(training.rounds)
    frame = candidates_frame(r, CANDIDATE_ROWS if not presenting else 10)
    if hide and not frame.empty:
        quiz_view(model, number, n, frame, dark, presenting, room)
        return
    if isinstance(r, EMRound) and r.pruning is not None and not frame.empty and model.corpus.types <= EXACT_WORDS:
        frame = with_exact(model, number, frame)
    if isinstance(r, Round):
        removed, size = list(r.removed), len(r.counts)
    else:  # what EM dropped, then what the pruning removed; sizes without the trainer's own <UNK>
        removed = [t for e in r.em for t in e.dropped] + (list(r.pruning.unused + r.pruning.cut) if r.pruning else [])
        size = (r.em[0].size_before if r.em else len(r.pieces)) - 1
    shown = ", ".join(fmt(t) for t in removed[:4]) + (" …" if len(removed) > 4 else "")
    st.header(f"Round {number} of {n}:  {size:,} → {size - len(removed):,} pieces"
              + (f"  (− {safe.md(shown)})" if removed else ""), anchor=False)
    if room is None or not classroom.results_view(room, number, question(model, number), dark, presenting):
        guess_feedback(number)
    if asked and (picked := vote_choices(model, number)):  # the reveal: what each choice of the vote cost
        st.caption("The choices of the question, with what removing each costs (nats; the cheapest goes first):")
        glossary.table(choices_frame(picked, answers=True).sort_values("loss increase"),
                       {"p": st.column_config.NumberColumn(format="%.4f"),
                        "loss increase": st.column_config.NumberColumn(format="%.3f")})
    left, right = st.columns([3, 2])
    with left:
        loss_box(model, training, r, round_model(training, number), presenting)
    with right:
        if frame.empty:
            st.info("No candidates: this round only re-estimates the probabilities.")
        else:
            caches.chart(candidates_chart(frame, presenting, dark, candidates_title(r, frame)))
    if isinstance(r, EMRound) and not presenting:
        em_box(training, r, number)
    changed = changed_frame(model, number)
    st.subheader("Best splits before → after", anchor=False)
    if changed.empty:
        st.caption("No word among the most frequent changed its best split this round.")
    else:
        st.caption(f"{len(changed):,} of the corpus's {min(SPLIT_WORDS, model.corpus.types):,} most frequent words "
                   "split differently after this round (cost: −Σ log p of the split, per occurrence).")
        glossary.table(changed.head(CHANGED_ROWS), {"cost before": st.column_config.NumberColumn(format="%.3f"),
                                                    "cost after": st.column_config.NumberColumn(format="%.3f")})
    st.subheader("Why this round", anchor=False)
    st.markdown("\n\n".join(why_round(training, r, settings.corpus) + exact_note(frame)) or "—")
    if not presenting:
        with st.expander("The candidates as a table", icon=":material/table:"):
            glossary.table(frame, {"p": st.column_config.NumberColumn(format="%.4f"),
                                   "loss increase": st.column_config.NumberColumn(format="%.3f"),
                                   "exact (course)": st.column_config.NumberColumn(format="%.3f")})
        with st.expander("Over all rounds: the vocabulary and the loss", icon=":material/show_chart:"):
            rounds = rounds_frame(training)
            a, b = st.columns(2)
            with a:
                caches.chart(rounds_chart(rounds, "vocabulary", "The vocabulary at each round's start", "pieces"))
            with b:
                if isinstance(r, Round):
                    caches.chart(rounds_chart(rounds, "loss", "The corpus's loss after each round",
                                              "loss (nats, the whole corpus)"))
                else:
                    caches.chart(rounds_chart(rounds, "loss", "The EM objective after each round's EM",
                                              "nats a word"))  # (a longer axis title pushed the title off)
        with st.expander("The algorithm in code", icon=":material/code:"):
            code_box(training, r)


def loss_box(model: TrainedModel, training: UnigramTraining, r: Round | EMRound, before: RoundModel,
             presenting: bool) -> None:
    counts = model.counts
    frequent = dict(counts.most_frequent(200)) if counts is not None else {}
    words = list(frequent)
    if not words:
        return
    state.hold(state.ROUND_WORD, words[0])
    if st.session_state[state.ROUND_WORD] not in words:
        st.session_state[state.ROUND_WORD] = words[0]
    word = st.selectbox("A word's share of the loss", words, key=state.ROUND_WORD, format_func=fmt,
                        on_change=state.remember, args=(state.ROUND_WORD,)) or words[0]
    split = before.split(word)
    count = frequent.get(word, 0)
    parts = []
    for piece, logp in zip(split.pieces, split.log_probs):
        if isinstance(r, Round) and piece in r.counts:
            total = sum(r.counts.values())
            parts.append(f"−log({r.counts[piece]:,}/{total:,}) ({-logp:.3f})")
        else:
            parts.append(f"−log p({fmt(piece)}) ({-logp:.3f})")
    st.markdown(f"**{safe.md(fmt(word))}** → {safe.md(split_text(split))} (p = {probability_text(split.probability)})")
    st.markdown(safe.md(f"cost = {' + '.join(parts)}") + f" = **{split.cost:.3f}**; × {count:,} occurrences = "
                f"**{count * split.cost:,.2f}** of the loss")
    if isinstance(r, Round):
        st.markdown(f"Loss of the corpus (Σ count × cost): **{r.loss:,.2f}**")
    elif r.em:
        st.markdown(f"EM objective after this round's EM: **{r.em[-1].objective:.4f}** nats per word occurrence")


def em_box(training: UnigramTraining, r: EMRound, number: int) -> None:
    st.subheader("EM: expected counts, new probabilities", anchor=False)
    glossary.table(em_frame(r), {"objective (nats a word)": st.column_config.NumberColumn(
        format="%.4f", help=glossary.tip("EM objective") + " " + glossary.tip("nats"))})
    last = training.rounds[number - 2] if number > 1 else None
    previous = dict(last.pieces) if isinstance(last, EMRound) else None
    frame = expected_frame(r, previous)
    st.caption("The most expected pieces (over all of each word's splits, weighted by their probabilities) and "
               + ("their probability before this round (after the last round's EM) → after this round's EM "
                  "(digamma(count) − digamma(total))." if previous is not None else
                  "their probability after this round's EM: digamma(count) − digamma(total). Before it, each stood "
                  "at the seed's: a character's count, or a substring's places × its length, over their sum."))
    glossary.table(frame, {"expected count": st.column_config.NumberColumn(format="localized"),
                           "p before": st.column_config.NumberColumn(format="%.5f"),
                           "p after": st.column_config.NumberColumn(format="%.5f")})


def quiz_view(model: TrainedModel, number: int, n: int, frame: pd.DataFrame, dark: bool, presenting: bool,
              room: classroom.Room | None) -> None:
    picked = vote_choices(model, number)
    course = isinstance(_rounds(model).rounds[number - 1], Round)
    if not picked:
        st.header(f"Round {number} of {n}:  what does it remove?", anchor=False)
        st.info(f"Every candidate of this round costs the same to remove ({tables.fmt_number(frame['loss increase'].iloc[0])}): "
                "there is nothing to guess. Reveal the round to see which ones go.", icon=":material/balance:")
    else:
        st.header(f"Round {number} of {n}:  which piece costs least to remove?", anchor=False)
        if room is not None and room.is_student:  # a phone: the vote first, above the fold; the table under it
            right, left = st.container(), st.container()
        else:
            left, right = st.columns([3, 2])
        with left:
            table = choices_frame(picked)
            if presenting:  # a plain table takes presenter mode's big type
                st.table(table.set_index("piece").style.format({"p": lambda v: tables.fmt_number(v, 4)}))
            else:
                glossary.table(table, {"p": st.column_config.NumberColumn(format="%.4f")})
            st.caption(f"{len(picked)} candidates, each costing a different amount to remove (from "
                       + ("all of the round's" if course else "around where this round's pruning stops") +
                       "), in alphabetical order, with their probability"
                       + (" (count ÷ the total)" if course else " after EM") +
                       ", the most frequent words that hold them, and how each would be spelled without it.")
        right.markdown("**Which piece costs least to remove?** Removing a piece re-splits every word that holds "
                       "it: a rare piece, or one whose split without it is nearly as likely, costs little.")
        where = right
        if room is not None and room.is_teacher and room.open:  # the class votes; the projector shows the count
            with where:
                room_teacher.vote_panel(room, number, question(model, number), dark, presenting, noun="round")
            return
        if room is not None and room.is_student:
            with where:
                room_student.vote_panel(room, number, question(model, number), dark,
                                        ask="which piece costs least to remove?", noun="round", kind="piece")
            return
    if room is not None and room.is_teacher and room.open:  # nothing to vote on: the teacher reveals
        room_teacher.vote_panel(room, number, question(model, number), dark, presenting, noun="round")
        return
    if room is not None and room.is_student:
        st.info("Nothing to vote on in this round: wait for the teacher to reveal it.", icon=":material/hourglass_top:")
        return
    options = sorted(fmt(c.piece) for c in picked)
    guess = st.radio("Your guess", options, index=None, key=f"{state.GUESS} round {number}", horizontal=True,
                     format_func=safe.md) if options else None  # a radio's options are Markdown: the corpus's text
    cheapest = fmt(picked[0].piece) if picked else ""
    st.button("Reveal the round", type="primary", icon=":material/visibility:", on_click=_reveal,
              args=(number, guess, cheapest))


def _reveal(number: int, guess: str | None, cheapest: str) -> None:
    revealed = set(st.session_state.get(state.REVEALED_ROUNDS, set()))
    revealed.add(number)
    st.session_state[state.REVEALED_ROUNDS] = revealed
    if guess is not None:
        st.session_state[f"{state.ROUND_GUESSES}:{number}"] = (guess, cheapest)


def guess_feedback(number: int) -> None:
    said = st.session_state.get(f"{state.ROUND_GUESSES}:{number}")
    if said is not None:
        guess, cheapest = said
        if guess in cheapest.split(", "):
            st.success(f"You chose {safe.md(guess)}: right, nothing costs less to remove"
                       + (f" ({safe.md(cheapest)} tie)." if ", " in cheapest else "."))
        else:
            st.info(f"You chose {safe.md(guess)}; the cheapest to remove: {safe.md(cheapest)}.")


def code_box(training: UnigramTraining, r: Round | EMRound) -> None:
    """The functions that decide round `r` under the training's rule, their key lines highlighted with the round's
    numbers (algorithm_code.py draws them, as it does a merge step's)."""

    if isinstance(r, Round):
        st.caption("wordpiece_core/unigram/reference.py: the course's loop, plainly (the app runs this code). "
                   f"Highlighted: the lines that decide round {r.number}, with its numbers under them.")
    else:
        st.caption("wordpiece_core/unigram/em.py: tokenizers' UnigramTrainer, plainly (the app runs its fast form, "
                   "unigram/engine.py, which the tests hold to the same results). Highlighted: the lines that decide "
                   f"round {r.number}, with its numbers under them.")
    st.markdown(algorithm_code.as_html(algorithm_code.unigram_round(r, training.config)), unsafe_allow_html=True)


def download_file(training: UnigramTraining, settings: Settings, name: str) -> str:
    """One file of a Unigram training's download set (the command line's), built when clicked."""
    return unigram_files.training_files(training, settings.normalizer, settings.pre_tokenizer, False, 0)[name]


def downloads(model: TrainedModel, settings: Settings, quiz: bool = False) -> None:
    st.subheader("Downloads", anchor=False)
    if quiz and not st.toggle("Show the downloads (they hold every round's removals, the hidden ones too)",
                              key=state.ROUND_DOWNLOADS_IN_QUIZ):
        return
    stem = f"{settings.corpus}-unigram-{settings.vocab_size}"
    cols = st.columns(4)
    for col, (fname, mime) in zip(cols, [("tokenizer.json", "application/json"), ("vocab.txt", "text/plain"),
                                         ("trace.jsonl", "application/jsonl"), ("training.json", "application/json")]):
        col.download_button(fname, icon=":material/download:", file_name=f"{stem}-{fname}", mime=mime,
                            width="stretch", on_click="ignore",
                            data=functools.partial(caches.when_clicked, model, download_file, settings, fname))



def handout_box(model: TrainedModel, settings: Settings, n: int, quiz: bool) -> None:
    """The rounds to print for a class (the worksheet leaves the removals blank)."""
    st.subheader("Handout", anchor=False)
    st.caption(f"Rounds to print: each round's cheapest candidates with their loss increases, what was removed "
               f"and the splits that changed (up to {unigram_handout.MAX_STEPS} rounds). The worksheet lists the "
               "candidates without their numbers.")
    first_col, last_col, *cols = st.columns([1, 1, 1.3, 1.3, 1.3], vertical_alignment="bottom")
    first = first_col.number_input("From round", 1, max(1, n), 1, key=state.ROUND_HANDOUT_FIRST)
    last = last_col.number_input("To round", 1, max(1, n), min(3, n), key=state.ROUND_HANDOUT_LAST)
    link = state.page_url(settings, step=int(first))
    words = model.counts.most_frequent(SPLIT_WORDS) if model.counts is not None else []
    stem = f"{settings.corpus}-unigram-{settings.vocab_size}"
    items = [("Worksheet (HTML)", "worksheet", "html", "text/html", unigram_handout.as_html, False)]
    if not quiz:
        items = [("Handout (HTML)", "handout", "html", "text/html", unigram_handout.as_html, True),
                 ("Handout (.md)", "handout", "md", "text/markdown", unigram_handout.as_markdown, True)] + items
    for col, (label, kind, ext, mime, make, answers) in zip(cols, items):
        col.download_button(label, icon=":material/print:", file_name=f"{stem}-{kind}-{first}-{last}.{ext}", mime=mime,
                            width="stretch", on_click="ignore",
                            data=functools.partial(caches.when_clicked, model, make, words, model.corpus.name,
                                                   int(first), int(last), link, answers))
