"""The Train page's view of a merge (BPE, WordPiece): the step's arithmetic, its candidates, the corpus before →
after, *Why this merge*, the panels on request; hidden, the best candidates without their scores and the vote or
guess; the files and the handout. pages/train.py drives it through lesson.StepView.
"""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from wordpiece_core.algorithms import info_of

from . import (algorithm_code, caches, charts, chips, classroom, glossary, handout, intro, notes, room_student,
               room_teacher, safe, state, tables, trained)
from .lesson import Lesson, ViewBase
from .settings import MAX_STEP

CORPUS_ROWS = 12
QUIZ_CHOICES = 8  # the quiz shows the best 8 candidates, shuffled into alphabetical order
VOCAB_ROWS = 300


class MergesView(ViewBase):
    """A step is a merge. The view keeps the training's handle, never the training: a run fetches it from the
    store (trained.loaded) and keeps it in its locals."""

    noun = "step"
    quiz_help = ("Hides each merge until you reveal it: the class sees the candidates' counts, guesses the winner, "
                 "then you reveal it. Play stops at every hidden merge.")
    on_screen = "the step, its arithmetic, the candidates and the corpus"
    hold_help = "Reveal this merge first: Play stops at every hidden merge."
    intro = intro.INTRO
    steps_noun = "merges"
    answer_name = "merge"
    vote_kind = "pair"  # what the room stores a vote as
    ask = "which pair merges next?"

    def __init__(self, lesson: Lesson) -> None:
        super().__init__(lesson)
        config = lesson.model.config
        self.algorithm = config.algorithm
        self.tie_break = getattr(config, "tie_break", "first")
        self.name = info_of(config).label
        self.ranking = tables.RANKINGS[self.algorithm]
        state.hold(state.CANDIDATE_ROWS, "top 10")  # kept while its panel is closed

    def summary(self) -> str:
        model, settings = self.model, self.settings
        return (f"**{safe.md(model.corpus.name)}**: {model.corpus.types:,} distinct words, {model.corpus.tokens:,} in "
                f"all · {self.name} · start: {model.start_tokens:,} tokens ({len(model.config.special_tokens)} special) · "
                f"{self.steps:,} merges → {model.tokens:,} tokens"
                + ("" if model.tokens >= settings.vocab_size else
                   " · " + tables.stopped_early(model.tokens, settings.vocab_size, model.stop_reason)))

    def nothing(self) -> str | None:
        if self.steps:
            return None
        return (f"Nothing to merge: {self.model.stop_reason}. Change the vocabulary size or the min pair frequency in "
                "the sidebar, or pick a bigger corpus.")

    def revealed_here(self) -> set[int]:
        return st.session_state.get(state.REVEALED_STEPS, set())

    def question(self, number: int) -> classroom.Question:
        table = caches.candidates(self.model, number, False)[0]
        return classroom.Question(tuple(self.choices_table(number)["pair"]),
                                  str(table.iloc[0]["pair"]), functools.partial(tables.judge_guess, table,
                                                                                algorithm=self.algorithm))

    def hint(self) -> str:
        return tables.formula(self.algorithm)

    def choices_table(self, number: int) -> pd.DataFrame:
        """The vote's choices with their counts, the class's to score (the question's order)."""
        return tables.quiz_frame(caches.candidates(self.model, number, False)[0], self.algorithm, QUIZ_CHOICES)

    # ------------------------------------------------------------------------------------------ a step

    def draw(self, number: int, hidden: bool) -> None:
        training = trained.loaded(self.model)  # this run's (the page runs again if the store let it go)
        step = training.steps[number - 1]
        # "all" recounts every pair: only while the table is open to show them
        show_all = st.session_state[state.CANDIDATE_ROWS] == "all" and state.is_open(state.CANDIDATES_OPEN)
        if hidden:
            self.quiz_view(training, number, *caches.candidates(self.model, number, show_all))
            return
        left_tok, right_tok, new_tok = (tables.fmt_token(t) for t in (step.left, step.right, step.new_token))
        st.header(safe.md(f"Step {number} of {self.steps}:  {left_tok} + {right_tok} → {new_tok}"),
                  anchor=False)  # sent first
        table, complete = caches.candidates(self.model, number, show_all)
        change, touched = caches.corpus_change(self.model, number, CORPUS_ROWS)
        self.merge_view(number, step, table, change, touched)
        presenting, student = self.lesson.presenting, self.lesson.student
        if not presenting:
            self.corpus_view(number, step, change, touched)
        st.subheader("Why this merge", anchor=False)
        st.markdown(caches.of_step("notes", self.model, number, self.settings.corpus, complete, make=lambda: "\n\n".join(
            notes.for_step(self.settings.corpus, training, step, table, complete, change))))
        # The rest only on request: each panel is drawn while open (and stays open from step to step), so
        # a step draws the heading, the arithmetic, the chart, the corpus and the notes, and is on screen at once.
        st.subheader("More about this step", anchor=False,
                     help="Each panel stays open as you step; a closed one costs the page nothing.")
        self.candidate_tables(step, table, complete)
        self.vocabulary(number)
        if not (student and student.open):  # its lines run through the steps the class has not seen
            self.over_all_steps(number)
        if not presenting:
            self.algorithm_in_code(step)

    def quiz_view(self, training, number: int, table, complete: bool) -> None:
        """The candidates without their scores, a guess and the reveal: all on one 1280×720 screen."""
        lesson, algorithm = self.lesson, self.algorithm
        st.header(f"Step {number} of {self.steps}:  which pair merges next?", anchor=False)
        if lesson.student:  # a phone: the vote first, above the fold; the candidates under it
            right, left = st.container(), st.container()
        else:
            left, right = st.columns([3, 2])
        candidates = tables.quiz_frame(table, algorithm, QUIZ_CHOICES)
        with left:
            if lesson.presenting:  # a plain table takes presenter mode's big type
                st.table(glossary.count_styler(candidates.set_index("pair")))
            else:
                glossary.table(candidates, rows=len(candidates))
            st.caption("The only candidate, with its counts in the current splits (weighted by word counts): it wins."
                       if len(candidates) == 1 else
                       f"The {len(candidates)} best candidates, in alphabetical order, with their counts in the current "
                       "splits (weighted by word counts): the winner is one of them.")
        with right:
            st.markdown(f"**{tables.formula(algorithm)}**")
            if lesson.teacher and lesson.teacher.open:  # the class votes: the teacher sees the count, then the spread
                room_teacher.vote_panel(lesson.teacher, number, self.question(number), lesson.dark, lesson.presenting)
                return
            if lesson.student:
                room_student.vote_panel(lesson.student, number, self.question(number), lesson.dark)
                return
            guess = st.selectbox("Your guess (optional): which pair merges?", list(candidates["pair"]), index=None,
                                 key=f"{state.GUESS} {number}", placeholder="the class's guess")
            correct = tables.judge_guess(table, guess, algorithm)[0] if guess else False  # now: the button keeps no table

            def reveal() -> None:
                st.session_state.setdefault(state.REVEALED_STEPS, set()).add(number)
                if guess:  # kept with whether it was right, for the score of the session
                    st.session_state.setdefault(state.QUIZ_GUESSES, {})[number] = (guess, correct)

            st.button("Reveal the merge", icon=":material/visibility:", type="primary", on_click=reveal)
            st.caption("The most frequent words as they are split now.")
            splits = tables.splits_before(training, number, 5 if lesson.presenting else 12)
            if lesson.presenting:
                st.table(glossary.count_styler(splits.set_index("word")))
            else:
                glossary.table(splits, rows=7)

    def merge_view(self, number: int, step, table, change, touched: int) -> None:
        """The arithmetic and the top candidates under the heading (presenter mode: the corpus too, on one screen)."""
        lesson, algorithm, presenting = self.lesson, self.algorithm, self.lesson.presenting
        left_tok, right_tok = tables.fmt_token(step.left), tables.fmt_token(step.right)
        guesses = st.session_state.get(state.QUIZ_GUESSES, {})
        in_room = lesson.room is not None and classroom.results_view(lesson.room, number, self.question(number),
                                                                     lesson.dark, lesson.presenting)
        if not in_room and lesson.quiz and number in guesses:
            correct, sentence = tables.judge_guess(table, guesses[number][0], algorithm)
            tally = sum(1 for _, ok in guesses.values() if ok)
            (st.success if correct else st.error)(
                safe.md(f"{sentence} Score this session: {tally} of {len(guesses)} right."))

        left, right = st.columns([5, 6])
        with left:
            # The formula, this step's arithmetic and its counts: one element (each element costs the browser time).
            st.markdown(
                f"##### {tables.formula(algorithm)}\n\n## {safe.md(tables.arithmetic(step, algorithm))}\n\n"
                f"count({safe.code(left_tok + ' ' + right_tok)}) = {step.pair_count:,} · count({safe.code(left_tok)}) = "
                f"{step.left_count:,} · count({safe.code(right_tok)}) = {step.right_count:,}"
                + ("" if presenting else "  (occurrences in the current splits, weighted by word counts)"),
                help=glossary.tip("score"))
            if not presenting:
                self.tie_box(step)
            if presenting:  # the corpus and the tie rule under the arithmetic, the chart beside them
                self.corpus_rows(number, step, change.head(4), touched)
                self.tie_box(step)
            else:
                st.markdown(f"Exact change of the corpus' unigram log-likelihood if merged: **{tables.fmt_signed(step.loglik_delta)}** "
                            "(not the score: *Why this merge* compares them)  \n"
                            + " · ".join(f"{label}: **{value}**" for label, value in tables.step_summary(step).items()),
                            help=glossary.tip("Δ log-likelihood"))
        with right:
            top = table.head(8 if presenting else 12)
            caches.chart(caches.of_step("top chart", self.model, number, len(top), lesson.dark, presenting,
                                        make=lambda: charts.top_candidates(
                                            top, self.ranking, f"Top {len(top)} candidates by {self.name} score",
                                            dark=lesson.dark, large=presenting)))

    def tie_box(self, step) -> None:
        tie = safe.md(tables.tie_sentence(step, self.tie_break))
        if step.ties > 1:
            st.warning(tie, icon="⚖️")
        else:
            st.success(tie)

    def candidate_tables(self, step, table, complete: bool) -> None:
        with state.panel("Candidate table: every count and score at this step", ":material/table_chart:",
                         state.CANDIDATES_OPEN) as box:
            if box.open:
                self.candidate_tabs(step, table, complete)

    def candidate_tabs(self, step, table, complete: bool) -> None:
        # Only the open tab is drawn (each chart and table a step sends costs the browser time).
        ranking = self.ranking
        tabs = st.tabs([f"{self.name} ranking"] + (["BPE view of the same pairs"] if ranking.bpe_view else []),
                       key=f"candidates_tab {self.algorithm}", on_change="rerun")
        if tabs[0].open:
            with tabs[0]:
                self.ranked_table(table, complete)
        if ranking.bpe_view and tabs[1].open:
            with tabs[1]:
                self.bpe_view(step, table, complete)

    @staticmethod
    def ranked_table(table, complete: bool) -> None:
        size = st.segmented_control("Show", ["top 10", "top 25", "all"], key=state.CANDIDATE_ROWS, required=True,
                                    on_change=state.remember, args=(state.CANDIDATE_ROWS,))
        rows = table if size == "all" else table.head(10 if size == "top 10" else 25)
        glossary.table(rows, glossary.candidate_columns())
        scope = ("every pair" if complete else
                 f"the top {len(table)} pairs the trainer recorded (choose *all* to recount every pair)")
        st.caption(f"{tables.plural(len(table), 'candidate')} shown from {scope}. Click a column header to sort.")

    def bpe_view(self, step, table, complete: bool) -> None:
        view = tables.by_count(table)
        bpe_pick = view.iloc[0]
        where = "of all pairs" if complete else f"among these {len(table)} pairs"
        left_tok, right_tok = tables.fmt_token(step.left), tables.fmt_token(step.right)
        st.markdown(
            f"BPE would merge **{safe.md(bpe_pick['pair'])}** (count {bpe_pick['count(ab)']:,}, the most frequent "
            f"{where}); WordPiece merges **{safe.md(left_tok + ' + ' + right_tok)}** (count {step.pair_count:,}) "
            "because dividing by count(a) × count(b) penalises pairs made of common tokens.")
        caches.chart(charts.candidates_bar(view.head(12), "count(ab)", "The same pairs by raw count (BPE's score)",
                                           highlight=bpe_pick["pair"], dark=self.lesson.dark))

    def algorithm_in_code(self, step) -> None:
        # Drawn only while open: 80 lines of code at every step would slow each click.
        with state.panel("The algorithm in code, with this step's numbers", ":material/code:",
                         state.CODE_OPEN) as box:
            if not box.open:
                return
            st.caption(f"wordpiece_core/reference.py: the plain trainer, recounting every pair at every step (the fast "
                       "engine makes exactly the same merges; the tests check it). Its loop, then the functions it "
                       f"calls; highlighted, the lines that made step {step.step}'s merge, with its values under them.")
            model, number, algorithm, tie_break = self.model, step.step, self.algorithm, self.tie_break

            def make() -> str:  # a tied step's order comes from a recount of the corpus before it: made once
                tied = [(c.left, c.right) for c in tables.tied_candidates(step)] if step.ties > 1 else []
                keys = handout.tie_keys(trained.loaded(model), number, tied) if tied else None
                return algorithm_code.as_html(algorithm_code.merge_step(step, algorithm, tie_break, keys))

            st.markdown(caches.of_step("code view", model, number, make=make), unsafe_allow_html=True)

    def corpus_rows(self, number: int, step, change, touched: int) -> None:
        left_tok, right_tok, new_tok = (tables.fmt_token(t) for t in (step.left, step.right, step.new_token))
        limit = len(change)
        st.caption(f"The corpus before → after: the merge touched {tables.plural(touched, 'distinct word')}"
                   + (f"; the {limit} most frequent are shown." if touched > limit else ".")
                   + " Dashed: the pair that merges; solid: the new token.")
        st.markdown(caches.of_step("corpus rows", self.model, number, limit, make=lambda: chips.before_after_rows(
            change.to_dict("records"), left_tok, right_tok, new_tok)), unsafe_allow_html=True)

    def corpus_view(self, number: int, step, change, touched: int) -> None:
        st.subheader("The corpus before → after", anchor=False)
        self.corpus_rows(number, step, change, touched)
        if self.settings.pre_tokenizer == "byte-level":
            st.caption(glossary.BYTE_LEVEL_NOTE)

    def vocabulary(self, number: int) -> None:
        with state.panel("Vocabulary so far", ":material/format_list_numbered:", state.VOCAB_OPEN) as box:
            if not box.open:
                return
            # At most VOCAB_ROWS rows: what a step sends and draws stays small on long trainings.
            newest, size = tables.vocab_after(caches.vocab_table(self.model), number, VOCAB_ROWS)
            st.caption(f"{size:,} tokens after step {number}; newest first, ★ = added by this step"
                       + (f" (the newest {VOCAB_ROWS:,} shown; the download vocab.txt has them all)."
                          if size > VOCAB_ROWS else "."))
            glossary.table(newest, rows=8)

    def over_all_steps(self, number: int) -> None:
        with state.panel("Over all steps: the chosen score, vocabulary size and tokens per word",
                         ":material/show_chart:", state.STEPS_OPEN) as box:
            if box.open:
                self.over_all_steps_charts(number)

    def over_all_steps_charts(self, number: int) -> None:
        model, ranking = self.model, self.ranking
        lines = [(ranking.column, ranking.per_step, True, None),
                 ("vocabulary", "Vocabulary size", False, model.start_tokens),
                 ("tokens per word", "Average tokens per word", False, caches.start_tokens_per_word(model))]
        # One chart at a time: only the open tab is drawn. The line is the same at every step; only the marker moves.
        tabs = st.tabs([title for _, title, _, _ in lines], key=f"over_steps_tab {self.algorithm}", on_change="rerun")
        for tab, (value, title, log, start) in zip(tabs, lines):
            if tab.open:
                with tab:
                    caches.chart(charts.mark_step(caches.steps_chart(model, value, title, log, start), number))

    # ------------------------------------------------------------------------------------------ files

    def answers_out(self) -> bool:
        """Whether the files that hold every merge are offered (in ask first, only when asked for)."""
        return not self.lesson.quiz or bool(st.session_state.get(state.DOWNLOADS_IN_QUIZ))

    def downloads(self) -> None:
        settings, model = self.settings, self.model
        st.subheader("Downloads", anchor=False)
        if self.lesson.quiz:
            st.toggle("Show the downloads (they hold every merge, the hidden ones too)", key=state.DOWNLOADS_IN_QUIZ,
                      help="Ask first hides the merges on screen; these files would give them away. The worksheet "
                           "below has none.")
        if not self.answers_out():
            return
        stem = f"{settings.corpus}-{self.algorithm}-{settings.vocab_size}"
        cols = st.columns(5)
        for col, (fname, mime) in zip(cols, [("trace.csv", "text/csv"), ("trace.jsonl", "application/jsonl"),
                                             ("vocab.txt", "text/plain"), ("merges.txt", "text/plain"),
                                             ("tokenizer.json", "application/json")]):
            col.download_button(fname, icon=":material/download:", file_name=f"{stem}-{fname}", mime=mime,
                                width="stretch", on_click="ignore",
                                data=functools.partial(caches.when_clicked, model, caches.download_file, settings,
                                                       fname))
        if self.algorithm == "wordpiece":
            st.caption("merges.txt lists WordPiece's merges in training order; WordPiece encodes with the vocabulary "
                       "alone.")

    def handout(self) -> None:
        settings, model, n = self.settings, self.model, self.steps
        st.subheader("Handout", anchor=False)
        st.caption("Steps to print for a class: the corpus before each step, the candidates with their arithmetic, the "
                   f"winner, the tie rule and the notes (up to {handout.MAX_STEPS} steps, black and white on paper). "
                   "The worksheet has the corpus and the candidates' counts, and blanks for the scores and the merge.")
        first_col, last_col, *button_cols = st.columns([1, 1, 1.3, 1.3, 1.3], vertical_alignment="bottom")
        asked_first = first_col.number_input("From step", 1, MAX_STEP, min(1, n), key=state.HANDOUT_FIRST)
        asked_last = last_col.number_input("To step", 1, MAX_STEP, min(5, n), key=state.HANDOUT_LAST)
        first, last, changed = handout.span(n, asked_first, asked_last)
        if changed:
            st.info(changed, icon=":material/info:")
        link = state.page_url(settings, step=first)
        stem = f"{settings.corpus}-{self.algorithm}-{settings.vocab_size}"
        downloads = [("Worksheet (HTML)", "worksheet", "html", "text/html", handout.as_html, False)]
        if self.answers_out():
            downloads = [("Handout (HTML)", "handout", "html", "text/html", handout.as_html, True),
                         ("Handout (Markdown)", "handout", "md", "text/markdown", handout.as_markdown, True)] + downloads
        for col, (label, kind, fmt, mime, make, answers) in zip(button_cols, downloads):
            col.download_button(label, icon=":material/print:", file_name=f"{stem}-{kind}-{first}-{last}.{fmt}",
                                mime=mime, width="stretch", on_click="ignore",
                                data=functools.partial(caches.when_clicked, model, make, settings.corpus,
                                                       model.corpus.name, first, last, link, answers))
