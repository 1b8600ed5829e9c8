"""Train step by step: one merge at a time, with the arithmetic, the candidates and the corpus."""

import functools

import streamlit as st

from wordpiece_ui import caches, charts, chips, keys, navigation, notes, safe, state, tables

# The timer starts again once a step is drawn, so a period is "drawing time + interval": the labels say so.
SPEEDS = {"~1 step/s": 1.0, "~1 step/2 s": 2.0, "as fast as it draws": 0.05}
CORPUS_ROWS = 12
VOCAB_ROWS = 300
DARK = st.context.theme.type == "dark"  # the bars' value labels follow the theme

navigation.through_app()
settings = st.session_state[state.SETTINGS]
st.title("Train step by step")
counts = caches.corpus(settings)
training = caches.training(settings, counts) if counts else None
if training is None:
    st.stop()

key = caches.training_key(counts, caches.config_for(settings))
n = len(training.steps)
algorithm = training.config.algorithm
name = state.ALGORITHM_LABELS[algorithm]
st.caption(
    f"**{safe.md(counts.name)}**: {counts.types:,} distinct words, {counts.tokens:,} in all · {name} · "
    f"start: {len(training.initial_vocab):,} tokens ({len(training.config.special_tokens)} special) · "
    f"{n:,} merges → {len(training.vocab):,} tokens"
    + ("" if len(training.vocab) >= settings.vocab_size else f" · stopped early: {training.stop_reason}")
)
if n == 0:
    st.warning(f"Nothing to merge: {training.stop_reason}. Change the vocabulary size or the min pair frequency in the sidebar, or pick a bigger corpus.")
    st.stop()

state.keep(state.QUIZ, False, bool)  # quiz=1 in a link opens the page in "ask first" mode
st.session_state.setdefault(state.CANDIDATE_ROWS, "top 10")
st.session_state[state.STEP] = max(1, min(int(st.session_state.get(state.STEP, 1)), n))
playing = bool(st.session_state.get(state.PLAYING)) and st.session_state[state.STEP] < n
st.session_state[state.PLAYING] = playing


def go(delta: int) -> None:
    st.session_state[state.STEP] = max(1, min(st.session_state[state.STEP] + delta, n))
    st.session_state[state.PLAYING] = False


def slid() -> None:
    st.session_state[state.STEP] = st.session_state[state.STEP_SLIDER]


def toggle_play() -> None:
    st.session_state[state.PLAYING] = not st.session_state.get(state.PLAYING)


if st.session_state.get(state.SPEED) not in SPEEDS:
    st.session_state[state.SPEED] = next(iter(SPEEDS))
speed_now = st.session_state[state.SPEED]


@st.fragment(run_every=SPEEDS[speed_now] if playing else None)
def step_view() -> None:
    if st.session_state.get(state.PLAYING):
        if st.session_state.get(state.PLAY_STARTED):
            st.session_state[state.STEP] = min(n, st.session_state[state.STEP] + 1)
        st.session_state[state.PLAY_STARTED] = True
        if st.session_state[state.STEP] >= n:
            st.session_state[state.PLAYING] = False
        if st.session_state.get(state.QUIZ) and st.session_state.get(state.REVEALED_STEP) != st.session_state[state.STEP]:
            st.session_state[state.PLAYING] = False  # ask first: Play stops at every hidden merge
    else:
        st.session_state[state.PLAY_STARTED] = False
    if bool(st.session_state.get(state.PLAYING)) != playing or (playing and st.session_state.get(state.SPEED) != speed_now):
        st.rerun()  # start, stop or re-time the timer: it is fixed when the fragment is defined
    step_no = st.session_state[state.STEP]
    st.session_state[state.STEP_SLIDER] = step_no
    view = {"step": step_no, "quiz": 1 if st.session_state.get(state.QUIZ) else None}
    state.sync_url(settings, **view)
    state.share_box(settings, **view)  # inside the step view: the link is always the view on screen

    first, prev, slider, nxt, last, play, speed = st.columns([1.6, 1.6, 4, 1.6, 1.6, 1.7, 2.4], vertical_alignment="bottom")
    first.button("First", icon=":material/first_page:", on_click=go, args=(-n,), disabled=step_no <= 1, width="stretch")
    prev.button("Prev", icon=":material/chevron_left:", on_click=go, args=(-1,), disabled=step_no <= 1, width="stretch")
    slider.slider("Step", 1, max(n, 2) if n > 1 else 2, key=state.STEP_SLIDER, on_change=slid, disabled=n == 1)
    nxt.button("Next", icon=":material/chevron_right:", icon_position="right", on_click=go, args=(1,), disabled=step_no >= n, width="stretch")
    last.button("Last", icon=":material/last_page:", icon_position="right", on_click=go, args=(n,), disabled=step_no >= n, width="stretch")
    play.button("Pause" if st.session_state.get(state.PLAYING) else "Play", on_click=toggle_play,
                icon=":material/pause:" if st.session_state.get(state.PLAYING) else ":material/play_arrow:",
                disabled=step_no >= n and not st.session_state.get(state.PLAYING), width="stretch")
    speed.selectbox("Speed", list(SPEEDS), key=state.SPEED, label_visibility="collapsed",
                    help="Play waits this long after a step is drawn, so a step can take a little longer.")
    st.caption(keys.LEGEND)
    st.toggle("Ask first: hide each merge until you reveal it (for a class)", key=state.QUIZ,
              on_change=state.remember, args=(state.QUIZ,),
              help="Shows the candidates' counts without scores; the class works out the winner, then you reveal it.")

    step = training.steps[step_no - 1]
    table, complete = caches.candidates(key, training, step_no, st.session_state.get(state.CANDIDATE_ROWS) == "all")
    if st.session_state.get(state.QUIZ) and st.session_state.get(state.REVEALED_STEP) != step_no:
        st.header(f"Step {step_no} of {n}:  which pair merges next?", anchor=False)
        st.markdown(f"##### {tables.formula(algorithm)}")
        left, right = st.columns([3, 2])
        with left:
            st.caption("Candidates in alphabetical order, with their counts in the current splits (weighted by word counts)"
                       + ("" if complete else f"; the {len(table)} best pairs the trainer recorded are among them") + ".")
            quiz = tables.quiz_frame(table, algorithm)
            st.dataframe(quiz, hide_index=True, width="stretch", height=min(400, 40 + 35 * len(quiz)))
        with right:
            st.caption("The most frequent words as they are split now.")
            st.dataframe(tables.splits_before(training, step_no, 12), hide_index=True, width="stretch")
            guess = st.pills("Your guess (optional): which pair merges?", list(quiz["pair"]), key=f"guess {step_no}")

        def reveal() -> None:
            st.session_state[state.REVEALED_STEP] = step_no
            if guess:  # kept with whether it was right, for the score of the session
                st.session_state.setdefault(state.QUIZ_GUESSES, {})[step_no] = (
                    guess, tables.judge_guess(table, guess, algorithm)[0])

        st.button("Reveal the merge", icon=":material/visibility:", type="primary", on_click=reveal)
        return
    left_tok, right_tok, new_tok = (tables.fmt_token(t) for t in (step.left, step.right, step.new_token))
    st.header(safe.md(f"Step {step_no} of {n}:  {left_tok} + {right_tok} → {new_tok}"), anchor=False)

    tied = [c for c in step.candidates if c.score == step.score]
    guesses = st.session_state.get(state.QUIZ_GUESSES, {})
    if st.session_state.get(state.QUIZ) and step_no in guesses:
        right, sentence = tables.judge_guess(table, guesses[step_no][0], algorithm)
        tally = sum(1 for _, ok in guesses.values() if ok)
        (st.success if right else st.error)(safe.md(f"{sentence} Score this session: {tally} of {len(guesses)} right."))

    left, right = st.columns([5, 6])
    with left:
        st.markdown(f"##### {tables.formula(algorithm)}")
        st.markdown("## " + safe.md(tables.arithmetic(step, algorithm)))
        st.markdown(
            f"count({safe.code(left_tok + ' ' + right_tok)}) = {step.pair_count:,} · count({safe.code(left_tok)}) = {step.left_count:,} · "
            f"count({safe.code(right_tok)}) = {step.right_count:,}  (occurrences in the current splits, weighted by word counts)"
        )
        st.markdown(f"Exact change of the corpus' unigram log-likelihood if merged: **{step.loglik_delta:+.3f}** "
                    "(seed 004; the score approximates it)")
        if step.ties > 1:
            st.warning(safe.md(tables.tie_sentence(step, training.config.tie_break, tied)), icon="⚖️")
        else:
            st.success(safe.md(tables.tie_sentence(step, training.config.tie_break, tied)))
        metrics = st.columns(3)
        for col, (label, value) in zip(metrics, tables.step_summary(step).items()):
            col.metric(label, value)
    with right:
        top = table.head(12)
        value = "score" if algorithm == "wordpiece" else "count(ab)"
        label = "shown" if algorithm == "wordpiece" else None
        top = tables.with_bar_labels(top) if algorithm == "wordpiece" else top
        caches.chart(charts.candidates_bar(top, value, f"Top {len(top)} candidates by {name} score", label, dark=DARK))

    st.subheader("Candidates at this step", anchor=False)
    tabs = st.tabs([f"{name} ranking", "BPE view of the same pairs"] if algorithm == "wordpiece"
                   else [f"{name} ranking"])
    with tabs[0]:
        size = st.segmented_control("Show", ["top 10", "top 25", "all"], key=state.CANDIDATE_ROWS, required=True)
        rows = table if size == "all" else table.head(10 if size == "top 10" else 25)
        small = {c: st.column_config.NumberColumn(width="small") for c in ("rank", "count(ab)", "count(a)", "count(b)", "BPE rank")}
        st.dataframe(rows, hide_index=True, width="stretch",  # narrow numbers: every column fits at 1280 px
                     column_config=small | {
                         "score": st.column_config.NumberColumn(format="%.5g", width="small"),
                         "Δ log-likelihood": st.column_config.NumberColumn("Δ log-lik.", format="%+.3f", width="small"),
                         "score × |V| (seed 003)": st.column_config.NumberColumn("score × |V|", format="%.4g",
                                                                                width="small")})
        scope = "every pair" if complete else f"the top {len(table)} pairs the trainer recorded (choose *all* to recount every pair)"
        st.caption(f"{tables.plural(len(table), 'candidate')} shown from {scope}. Click a column header to sort.")
    if algorithm == "wordpiece":
        with tabs[1]:
            view = tables.by_count(table)
            bpe_pick = view.iloc[0]
            where = "of all pairs" if complete else f"among these {len(table)} pairs"
            st.markdown(
                f"BPE would merge **{safe.md(bpe_pick['pair'])}** (count {bpe_pick['count(ab)']:,}, the most frequent {where}); "
                f"WordPiece merges **{safe.md(left_tok + ' + ' + right_tok)}** (count {step.pair_count:,}) because dividing by "
                f"count(a) × count(b) penalises pairs made of common tokens."
            )
            caches.chart(charts.candidates_bar(view.head(12), "count(ab)", "The same pairs by raw count (BPE's score)",
                                                highlight=bpe_pick["pair"], dark=DARK))

    st.subheader("The corpus before → after", anchor=False)
    change, touched = tables.corpus_change(training, step_no, CORPUS_ROWS)
    st.caption(f"The merge touched {touched:,} distinct word(s)"
               + (f"; the {CORPUS_ROWS} most frequent are shown." if touched > CORPUS_ROWS else ".")
               + " Dashed: the pair that merges; solid: the new token.")
    st.markdown(chips.before_after_rows(change.to_dict("records"), left_tok, right_tok, new_tok),
                unsafe_allow_html=True)

    vocab_col, notes_col = st.columns([4, 6])
    with vocab_col:
        st.subheader("Vocabulary so far", anchor=False)
        vocab = caches.vocab_table(key, training)
        so_far = vocab[vocab["added at step"] <= step_no].iloc[::-1]
        st.caption(f"{len(so_far):,} tokens after step {step_no}; newest first, ★ = added by this step"
                   + (f" (the newest {VOCAB_ROWS:,} shown; the download vocab.txt has them all)." if len(so_far) > VOCAB_ROWS else "."))
        so_far = so_far.head(VOCAB_ROWS)  # what a step sends and draws stays small on long trainings
        so_far = so_far.assign(new=so_far["added at step"].map(lambda s: "★" if s == step_no else ""))
        st.dataframe(so_far[["new", "id", "token", "added at step", "kind"]], hide_index=True,
                     width="stretch", height=320)
    with notes_col:
        st.subheader("Teaching notes", anchor=False)
        for note in notes.for_step(settings.corpus, training, step):
            st.markdown(note)

    st.subheader("Over all steps", anchor=False)
    c1, c2, c3 = st.columns(3)
    chosen = ("score", "Chosen score per step") if algorithm == "wordpiece" else ("count(ab)", "Chosen count per step")
    with c1:
        caches.chart(charts.mark_step(caches.steps_chart(key, *chosen, True, None, training), step_no))
    with c2:
        caches.chart(charts.mark_step(caches.steps_chart(key, "vocabulary", "Vocabulary size", False,
                                                           len(training.initial_vocab), training), step_no))
    with c3:
        caches.chart(charts.mark_step(caches.steps_chart(key, "tokens per word", "Average tokens per word", False,
                                                           caches.start_tokens_per_word(key, training), training), step_no))


keys.step_keys()
step_view()

st.subheader("Downloads", anchor=False)
stem = f"{settings.corpus}-{algorithm}-{settings.vocab_size}"
cols = st.columns(5)
for col, (fname, mime) in zip(cols, [("trace.csv", "text/csv"), ("trace.jsonl", "application/jsonl"),
                                     ("vocab.txt", "text/plain"), ("merges.txt", "text/plain"),
                                     ("tokenizer.json", "application/json")]):
    col.download_button(fname, icon=":material/download:", file_name=f"{stem}-{fname}", mime=mime, width="stretch",
                        on_click="ignore", data=functools.partial(caches.download_file, training,
                                                                  settings.normalizer, settings.pre_tokenizer, fname))
if algorithm == "wordpiece":
    st.caption("merges.txt lists WordPiece's merges in training order; WordPiece encodes with the vocabulary alone.")
