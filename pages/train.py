"""Train step by step: one merge at a time, with the arithmetic, the candidates and the corpus."""

import functools

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_ui import (algorithm_code, caches, charts, chips, classroom, glossary, handout, intro, notes,
                          presenter, room_student, room_teacher, safe, state, tables, trained)
from wordpiece_core.config import TrainerConfig
from wordpiece_ui.settings import MAX_STEP
from wordpiece_ui.stepper import Stepper

CORPUS_ROWS = 12
QUIZ_CHOICES = 8  # the quiz shows the best 8 candidates, shuffled into alphabetical order
VOCAB_ROWS = 300
DARK = st.context.theme.type == "dark"  # the bars' value labels follow the theme

settings = st.session_state[state.SETTINGS]
room = classroom.found()  # a live class room this session runs (teacher) or takes part in (student), or None
student = room if room is not None and room.is_student else None  # this session is a student of `room`
teacher = room if room is not None and room.is_teacher else None  # this session runs `room`
state.keep(state.QUIZ, False, bool)  # quiz=1 in a link opens the page in "ask first" mode
state.keep(state.PRESENT, False, bool)  # present=1 opens it in presenter mode
presenting = bool(st.session_state[state.PRESENT]) and not student
presenter.style(presenting)
if student:  # a student's phone: the room first
    room_student.bar(student)
elif not presenting:
    st.title("Train step by step")
classroom.problem_line()
classroom.reclaim_box()


def mode_toggles(where, quiz_help: str, on_screen: str) -> None:
    """*Ask first* and *Presenter mode*, in `where`."""
    where.toggle("Ask first (quiz)", key=state.QUIZ, on_change=state.remember, args=(state.QUIZ,), width="content",
                 help=quiz_help)
    where.toggle("Presenter mode", key=state.PRESENT, on_change=state.remember, args=(state.PRESENT,),
                 width="content", help=f"For a projector: big type, the sidebar folded away, {on_screen} on one screen.")


ready = trained.sidebar_training(settings)
if ready is None:
    st.stop()
if settings.unigram:  # a round at a time (wordpiece_ui/unigram_view.py); the class room follows merges only
    from wordpiece_ui import unigram_view

    if room is None:
        room_teacher.start_button(settings)  # in the sidebar, under *Join a class room*
    if not student:
        mode_toggles(st.container(horizontal=True, horizontal_alignment="right"),
                     "Hides what each round removes until you reveal it: guess which candidate costs least.",
                     "the round and its arithmetic")
    if not presenting and not st.session_state[state.QUIZ] and room is None:
        intro.show(unigram=True)
    unigram_view.page(ready, settings, presenting, bool(st.session_state[state.QUIZ]), DARK, room)
    st.stop()
if room is None:
    room_teacher.start_button(settings)  # in the sidebar, under *Join a class room*

# The training's handle (a name of its own: the functions below see it as never None). The step view is a
# fragment, which keeps this page's globals for as long as the session: they hold the handle and its figures,
# never the training, which a run fetches from the store (trained.loaded) and keeps in its locals.
model = ready
assert isinstance(model.config, TrainerConfig)
config = model.config
n = model.merges
algorithm = model.config.algorithm
name = state.ALGORITHM_LABELS[algorithm]
ranking = tables.RANKINGS[algorithm]
summary, modes = st.columns([3, 2], vertical_alignment="center")
if not presenting:  # presenter mode: the room sees the step, not the corpus's statistics
    summary.caption(
        f"**{safe.md(model.corpus.name)}**: {model.corpus.types:,} distinct words, {model.corpus.tokens:,} in all · "
        f"{name} · start: {model.start_tokens:,} tokens ({len(model.config.special_tokens)} special) · "
        f"{n:,} merges → {model.tokens:,} tokens"
        + ("" if model.tokens >= settings.vocab_size else f" · stopped early: {model.stop_reason}")
    )
modes = modes.container(horizontal=True, horizontal_alignment="right")
if not student:  # a student's room decides what is hidden, and a phone is no projector
    mode_toggles(modes, "Hides each merge until you reveal it: the class sees the candidates' counts, guesses the "
                        "winner, then you reveal it. Play stops at every hidden merge.",
                 "the step, its arithmetic, the candidates and the corpus")
if not presenting and not st.session_state[state.QUIZ] and room is None:  # a class has its teacher
    intro.show()
if n == 0:
    st.warning(f"Nothing to merge: {model.stop_reason}. Change the vocabulary size or the min pair frequency in the sidebar, or pick a bigger corpus.")
    st.stop()
if st.session_state.get(state.STEP, 1) > n:  # past the end: a link's step (up to settings.MAX_STEP), or a longer training's
    st.info(f"Step {st.session_state[state.STEP]:,} is past this training's last step: showing step {n:,}.")
    st.session_state[state.STEP] = n
state.hold(state.CANDIDATE_ROWS, "top 10")  # kept while its panel is closed
quiz = student.snap.quiz if student else bool(st.session_state[state.QUIZ])
if teacher:
    room_teacher.bar(teacher, model, presenting)


def hidden(step_no: int) -> bool:
    """In quiz mode a merge stays hidden until it is revealed (in a class room: by the teacher)."""
    if student:
        return room_student.hidden(student, step_no)
    if teacher and teacher.open:  # the room's reveals (this tab's, another tab's, before a restart)
        return quiz and not room_teacher.revealed(step_no)
    return (quiz and step_no not in st.session_state.get(state.REVEALED_STEPS, set())
            and not (teacher and room_teacher.revealed(step_no)))  # a closed room: its reveals and this tab's


def view_params(step_no: int) -> dict:
    return {"step": step_no, "quiz": 1 if quiz and not student else None, "present": 1 if presenting else None}


def glossary_and_share(step_no: int) -> None:
    intro.glossary_button()
    state.share_button(settings, qr_at_once=presenting, url=classroom.student_link(room.code) if room else None,
                       **view_params(step_no))


def step_view(step_no: int) -> None:
    state.sync_url(settings, **view_params(step_no))  # the address bar (and Share) is always the view on screen
    if teacher:
        room_teacher.sync(teacher, step_no, quiz)  # the class follows the teacher's step
    if student:
        room_student.throttle()  # a flood of clicks from one student's client waits, not the class
        room_student.back_button(student, step_no)
    training = trained.loaded(model)  # this run's (the page runs again if the store let it go)
    step = training.steps[step_no - 1]
    # "all" recounts every pair: only while the table is open to show them
    show_all = st.session_state[state.CANDIDATE_ROWS] == "all" and state.is_open(state.CANDIDATES_OPEN)
    if hidden(step_no):
        quiz_view(training, step_no, *caches.candidates(model, step_no, show_all))
        return
    left_tok, right_tok, new_tok = (tables.fmt_token(t) for t in (step.left, step.right, step.new_token))
    st.header(safe.md(f"Step {step_no} of {n}:  {left_tok} + {right_tok} → {new_tok}"), anchor=False)  # sent first
    table, complete = caches.candidates(model, step_no, show_all)
    change, touched = tables.corpus_change(training, step_no, CORPUS_ROWS)
    merge_view(step_no, step, table, change, touched)
    if not presenting:
        corpus_view(step, change, touched)
    st.subheader("Why this merge", anchor=False)
    st.markdown("\n\n".join(notes.for_step(settings.corpus, training, step, table, complete, change)))  # one element
    # The rest only on request: each panel is drawn while open (and stays open from step to step), so
    # a step draws the heading, the arithmetic, the chart, the corpus and the notes, and is on screen at once.
    st.subheader("More about this step", anchor=False,
                 help="Each panel stays open as you step; a closed one costs the page nothing.")
    candidate_tables(step_no, step, table, complete)
    vocabulary(step_no)
    if not (student and student.open):  # its lines run through the steps the class has not seen
        over_all_steps(step_no)
    if not presenting:
        algorithm_in_code(step)


def quiz_view(training, step_no: int, table, complete: bool) -> None:
    """The candidates without their scores, a guess and the reveal: all on one 1280×720 screen."""
    st.header(f"Step {step_no} of {n}:  which pair merges next?", anchor=False)
    left, right = st.columns([3, 2])
    candidates = tables.quiz_frame(table, algorithm, QUIZ_CHOICES)
    with left:
        if presenting:  # a plain table takes presenter mode's big type
            st.table(glossary.count_styler(candidates.set_index("pair")))
        else:
            st.dataframe(candidates, hide_index=True, width="stretch", height=40 + 35 * len(candidates),
                         column_config=glossary.count_columns(candidates))
        st.caption("The only candidate, with its counts in the current splits (weighted by word counts): it wins."
                   if len(candidates) == 1 else
                   f"The {len(candidates)} best candidates, in alphabetical order, with their counts in the current "
                   "splits (weighted by word counts): the winner is one of them.")
    with right:
        st.markdown(f"**{tables.formula(algorithm)}**")
        if teacher and teacher.open:  # the class votes: the teacher sees the count, then the spread
            room_teacher.vote_panel(teacher, step_no, candidates, DARK, presenting)
            return
        if student:
            room_student.vote_panel(student, step_no, candidates, DARK)
            return
        guess = st.selectbox("Your guess (optional): which pair merges?", list(candidates["pair"]), index=None,
                             key=f"guess {step_no}", placeholder="the class's guess")
        correct = tables.judge_guess(table, guess, algorithm)[0] if guess else False  # now: the button keeps no table

        def reveal() -> None:
            st.session_state.setdefault(state.REVEALED_STEPS, set()).add(step_no)
            if guess:  # kept with whether it was right, for the score of the session
                st.session_state.setdefault(state.QUIZ_GUESSES, {})[step_no] = (guess, correct)

        st.button("Reveal the merge", icon=":material/visibility:", type="primary", on_click=reveal)
        st.caption("The most frequent words as they are split now.")
        splits = tables.splits_before(training, step_no, 5 if presenting else 12)
        if presenting:
            st.table(glossary.count_styler(splits.set_index("word")))
        else:
            st.dataframe(splits, hide_index=True, width="stretch", height=250, column_config=glossary.count_columns(splits))


def merge_view(step_no: int, step, table, change, touched: int) -> None:
    """The arithmetic and the top candidates under the heading (presenter mode: the corpus too, on one screen)."""
    left_tok, right_tok = tables.fmt_token(step.left), tables.fmt_token(step.right)
    guesses = st.session_state.get(state.QUIZ_GUESSES, {})
    if room is not None and (votes := classroom.results(room, step_no, table, algorithm)):
        st.info(votes, icon=":material/groups:")
    elif quiz and step_no in guesses:
        correct, sentence = tables.judge_guess(table, guesses[step_no][0], algorithm)
        tally = sum(1 for _, ok in guesses.values() if ok)
        (st.success if correct else st.error)(safe.md(f"{sentence} Score this session: {tally} of {len(guesses)} right."))

    left, right = st.columns([5, 6])
    with left:
        # The formula, this step's arithmetic and its counts: one element (each element costs the browser time).
        st.markdown(
            f"##### {tables.formula(algorithm)}\n\n## {safe.md(tables.arithmetic(step, algorithm))}\n\n"
            f"count({safe.code(left_tok + ' ' + right_tok)}) = {step.pair_count:,} · count({safe.code(left_tok)}) = {step.left_count:,} · "
            f"count({safe.code(right_tok)}) = {step.right_count:,}"
            + ("" if presenting else "  (occurrences in the current splits, weighted by word counts)"),
            help=glossary.tip("score"))
        if not presenting:
            tie_box(step)
        if presenting:  # the corpus and the tie rule under the arithmetic, the chart beside them
            corpus_rows(step, change.head(4), touched)
            tie_box(step)
        else:
            st.markdown(f"Exact change of the corpus' unigram log-likelihood if merged: **{step.loglik_delta:+.3f}** "
                        "(not the score: *Why this merge* compares them)  \n"
                        + " · ".join(f"{label}: **{value}**" for label, value in tables.step_summary(step).items()),
                        help=glossary.tip("Δ log-likelihood"))
    with right:
        top = table.head(8 if presenting else 12)
        caches.chart(charts.top_candidates(top, ranking, f"Top {len(top)} candidates by {name} score",
                                           dark=DARK, large=presenting))


def tie_box(step) -> None:
    tie = safe.md(tables.tie_sentence(step, config.tie_break))
    if step.ties > 1:
        st.warning(tie, icon="⚖️")
    else:
        st.success(tie)


def candidate_tables(step_no: int, step, table, complete: bool) -> None:
    with state.panel("Candidate table: every count and score at this step", ":material/table_chart:",
               state.CANDIDATES_OPEN) as box:
        if box.open:
            candidate_tabs(step_no, step, table, complete)


def candidate_tabs(step_no: int, step, table, complete: bool) -> None:
    # Only the open tab is drawn (each chart and table a step sends costs the browser time).
    tabs = st.tabs([f"{name} ranking"] + (["BPE view of the same pairs"] if ranking.bpe_view else []),
                   key=f"candidates_tab {algorithm}", on_change="rerun")
    if tabs[0].open:
        with tabs[0]:
            ranked_table(table, complete)
    if ranking.bpe_view and tabs[1].open:
        with tabs[1]:
            bpe_view(step, table, complete)


def ranked_table(table, complete: bool) -> None:
    size = st.segmented_control("Show", ["top 10", "top 25", "all"], key=state.CANDIDATE_ROWS, required=True,
                                on_change=state.remember, args=(state.CANDIDATE_ROWS,))
    rows = table if size == "all" else table.head(10 if size == "top 10" else 25)
    st.dataframe(rows, hide_index=True, width="stretch", column_config=glossary.candidate_columns())
    scope = "every pair" if complete else f"the top {len(table)} pairs the trainer recorded (choose *all* to recount every pair)"
    st.caption(f"{tables.plural(len(table), 'candidate')} shown from {scope}. Click a column header to sort.")


def bpe_view(step, table, complete: bool) -> None:
    view = tables.by_count(table)
    bpe_pick = view.iloc[0]
    where = "of all pairs" if complete else f"among these {len(table)} pairs"
    left_tok, right_tok = tables.fmt_token(step.left), tables.fmt_token(step.right)
    st.markdown(
        f"BPE would merge **{safe.md(bpe_pick['pair'])}** (count {bpe_pick['count(ab)']:,}, the most frequent {where}); "
        f"WordPiece merges **{safe.md(left_tok + ' + ' + right_tok)}** (count {step.pair_count:,}) because dividing by "
        f"count(a) × count(b) penalises pairs made of common tokens."
    )
    caches.chart(charts.candidates_bar(view.head(12), "count(ab)", "The same pairs by raw count (BPE's score)",
                                       highlight=bpe_pick["pair"], dark=DARK))


def algorithm_in_code(step) -> None:
    # Drawn only while open: 90 highlighted lines at every step would slow each click.
    with state.panel("The algorithm in code, with this step's numbers", ":material/code:", state.CODE_OPEN) as box:
        if not box.open:
            return
        st.caption("wordpiece_core/reference.py: the plain trainer, recounting every pair at every step. The fast "
                   "engine makes exactly the same merges (the tests check it). The comments marked ← are this step's values.")
        st.code(algorithm_code.annotated(step, algorithm, config.tie_break), language="python", wrap_lines=True)


def corpus_rows(step, change, touched: int) -> None:
    left_tok, right_tok, new_tok = (tables.fmt_token(t) for t in (step.left, step.right, step.new_token))
    limit = len(change)
    st.caption(f"The corpus before → after: the merge touched {touched:,} distinct word(s)"
               + (f"; the {limit} most frequent are shown." if touched > limit else ".")
               + " Dashed: the pair that merges; solid: the new token.")
    st.markdown(chips.before_after_rows(change.to_dict("records"), left_tok, right_tok, new_tok),
                unsafe_allow_html=True)


def corpus_view(step, change, touched: int) -> None:
    st.subheader("The corpus before → after", anchor=False)
    corpus_rows(step, change, touched)
    if settings.pre_tokenizer == "byte-level":
        st.caption(glossary.BYTE_LEVEL_NOTE)


def vocabulary(step_no: int) -> None:
    with state.panel("Vocabulary so far", ":material/format_list_numbered:", state.VOCAB_OPEN) as box:
        if not box.open:
            return
        # At most VOCAB_ROWS rows: what a step sends and draws stays small on long trainings.
        newest, size = tables.vocab_after(caches.vocab_table(model), step_no, VOCAB_ROWS)
        st.caption(f"{size:,} tokens after step {step_no}; newest first, ★ = added by this step"
                   + (f" (the newest {VOCAB_ROWS:,} shown; the download vocab.txt has them all)." if size > VOCAB_ROWS else "."))
        st.dataframe(newest, hide_index=True, width="stretch", height=320, column_config=glossary.count_columns(newest))


def over_all_steps(step_no: int) -> None:
    with state.panel("Over all steps: the chosen score, vocabulary size and tokens per word", ":material/show_chart:",
               state.STEPS_OPEN) as box:
        if box.open:
            over_all_steps_charts(step_no)


def over_all_steps_charts(step_no: int) -> None:
    lines = [(ranking.column, ranking.per_step, True, None),
             ("vocabulary", "Vocabulary size", False, model.start_tokens),
             ("tokens per word", "Average tokens per word", False, caches.start_tokens_per_word(model))]
    # One chart at a time: only the open tab is drawn. The line is the same at every step; only the marker moves.
    tabs = st.tabs([title for _, title, _, _ in lines], key=f"over_steps_tab {algorithm}", on_change="rerun")
    for tab, (value, title, log, start) in zip(tabs, lines):
        if tab.open:
            with tab:
                caches.chart(charts.mark_step(caches.steps_chart(model, value, title, log, start), step_no))


if student:
    room_student.follow(student)  # the class's step, as the teacher moves
Stepper(state.STEP, n, noun="step", hold=hidden, limit=room_student.reachable(room, n),
        hold_help="Reveal this merge first: Play stops at every hidden merge.").run(
    step_view, extra=glossary_and_share, keys_legend=not presenting and not student)

if student and student.open:
    st.caption("Downloads and the handout open when the class room closes: they would give away the merges to come.")
    st.stop()
st.subheader("Downloads", anchor=False)
stem = f"{settings.corpus}-{algorithm}-{settings.vocab_size}"
answers_out = not quiz or st.toggle(
    "Show the downloads (they hold every merge, the hidden ones too)", key="downloads_in_quiz",
    help="Ask first hides the merges on screen; these files would give them away. The worksheet below has none.")
if answers_out:
    cols = st.columns(5)
    for col, (fname, mime) in zip(cols, [("trace.csv", "text/csv"), ("trace.jsonl", "application/jsonl"),
                                         ("vocab.txt", "text/plain"), ("merges.txt", "text/plain"),
                                         ("tokenizer.json", "application/json")]):
        col.download_button(fname, icon=":material/download:", file_name=f"{stem}-{fname}", mime=mime, width="stretch",
                            on_click="ignore", data=functools.partial(caches.when_clicked, model, caches.download_file,
                                                                      settings, fname))
    if algorithm == "wordpiece":
        st.caption("merges.txt lists WordPiece's merges in training order; WordPiece encodes with the vocabulary alone.")

st.subheader("Handout", anchor=False)
st.caption("Steps to print for a class: the corpus before each step, the candidates with their arithmetic, the "
           f"winner, the tie rule and the notes (up to {handout.MAX_STEPS} steps, black and white on paper). The "
           "worksheet has the corpus and the candidates' counts, and blanks for the scores and the merge.")
first_col, last_col, *button_cols = st.columns([1, 1, 1.3, 1.3, 1.3], vertical_alignment="bottom")
asked_first = first_col.number_input("From step", 1, MAX_STEP, min(1, n), key=state.HANDOUT_FIRST)
asked_last = last_col.number_input("To step", 1, MAX_STEP, min(5, n), key=state.HANDOUT_LAST)
first, last, changed = handout.span(n, asked_first, asked_last)
if changed:
    st.info(changed, icon=":material/info:")
link = state.page_url(settings, step=first)
downloads = [("Worksheet (HTML)", "worksheet", "html", "text/html", handout.as_html, False)]
if answers_out:
    downloads = [("Handout (HTML)", "handout", "html", "text/html", handout.as_html, True),
                 ("Handout (Markdown)", "handout", "md", "text/markdown", handout.as_markdown, True)] + downloads
for col, (label, kind, fmt, mime, make, answers) in zip(button_cols, downloads):
    col.download_button(label, icon=":material/print:", file_name=f"{stem}-{kind}-{first}-{last}.{fmt}", mime=mime,
                        width="stretch", on_click="ignore",
                        data=functools.partial(caches.when_clicked, model, make, settings.corpus, model.corpus.name,
                                               first, last, link, answers))
