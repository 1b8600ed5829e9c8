"""The Train page's replay of a real tokenizer's training (wordpiece_core/real_merges.py): one of the shelf's
encodings, its merges in the order it learned them, step by step, the student's own training's tokens marked where
they agree, and what its vocabulary holds (token lengths and scripts)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from wordpiece_core import shelf
from wordpiece_core.pre_tokenizers import is_byte_level
from wordpiece_core.real_merges import KINDS, Replay, agreement, comparable, kind_of, length_of
from wordpiece_core.trace import Training

from . import caches, charts, glossary, safe, server, state

SHELF_KEY = "replay_shelf"
STEP_KEY = "replay_step"
AROUND = 5  # merges shown before and after the step
LONGEST = 16  # the length histogram's last bar: this many characters or more


def _replay(name: str) -> Replay:
    return server.store().get_or_make(  # (about 150 bytes a token: its string, its rank, its place in the list)
        ("replay", name), lambda: Replay(shelf.ranked_tokens(name), [], byte_level=True, by_rank=True),
        size=lambda replay: 150 * len(replay.vocab))


def _vocabulary(name: str) -> pd.DataFrame:
    """One row per (kind, length): how many of the encoding's tokens are of that script and length."""
    def make() -> pd.DataFrame:
        rows = [(kind_of(token, True), min(length_of(token, True), LONGEST))
                for token in _replay(name).vocab]
        frame = pd.DataFrame(rows, columns=["kind", "length"])
        return frame.value_counts().rename("tokens").reset_index()
    return server.store().get_or_make(("replay vocabulary", name), make)


def _own(training, pre_tokenizer: str) -> tuple[dict[str, int], str] | None:
    """The student's training's learned tokens by their text (text → its step), and its name; None for a
    Unigram training (it removes pieces: no order of learning to compare)."""
    if not isinstance(training, Training):
        return None
    name = "your BPE training" if training.config.algorithm == "bpe" else "your WordPiece training"
    return agreement(training.steps.new_tokens(), is_byte_level(pre_tokenizer)), name


def _shown(text: str) -> str:
    return f"“{text}”"


PANEL = "A real tokenizer's training, replayed: GPT-2's, GPT-4's and GPT-4o's merges"


def section(training, pre_tokenizer: str, dark: bool = False) -> None:
    """The replay, under the student's own training (`training`: BPE, WordPiece or Unigram, its words split by
    `pre_tokenizer`), in a panel drawn only while open (a closed one costs the page nothing)."""
    with state.panel(PANEL, ":material/history:", state.REPLAY_OPEN) as box:
        if box.open:
            _draw(training, pre_tokenizer, dark)


def _draw(training, pre_tokenizer: str, dark: bool) -> None:
    st.caption("A BPE tokenizer's merges, in the order of their ranks, are the order its training learned them: "
               "the first is the pair its training corpus held most often. The shelf's encodings are OpenAI's, as "
               "tiktoken publishes them (no merges list: each step's pair is the one BPE joins last to make the "
               "token, from the tokens ranked before it).")
    name = str(st.selectbox("Tokenizer", shelf.SHELF, format_func=shelf.title, key=SHELF_KEY))
    try:
        with st.spinner(f"Opening {name} (a few seconds the first time)…"):
            replay = _replay(name)
    except Exception as error:  # noqa: BLE001 (a broken shelf file: said, not a traceback)
        st.error(f"Cannot open {name}: {safe.md(str(error))}")
        return
    n = len(replay)
    if not isinstance(st.session_state.get(STEP_KEY), int) or not 1 <= st.session_state[STEP_KEY] <= n:
        st.session_state[STEP_KEY] = 1
    number = int(st.number_input(f"Merge (1 to {n:,})", min_value=1, max_value=n, step=1, key=STEP_KEY))
    step = replay.step(number)
    st.markdown(f"**Step {number:,} of {n:,}:** {safe.code(step.left)} + {safe.code(step.right)} → "
                f"{safe.code(step.token)} &nbsp; (as text: {safe.md(_shown(replay.text(step.left)))} + "
                f"{safe.md(_shown(replay.text(step.right)))} → {safe.md(_shown(replay.text(step.token)))})")
    own = _own(training, pre_tokenizer)
    rows = []
    for s in replay.steps(number - AROUND, number + AROUND):
        row: dict[str, object] = {"": "▶" if s.step == number else "", "step": s.step, "left": s.left, "right": s.right,
               "token": s.token, "as text": replay.text(s.token)}
        if own is not None:
            row["step in " + own[1]] = own[0].get(comparable(s.token, True))
        rows.append(row)
    glossary.table(pd.DataFrame(rows), rows=2 * AROUND + 1)
    if own is None:
        st.caption("Your training is Unigram: it removes pieces rather than learning them one by one, so there is "
                   "no order to set beside these merges. Train BPE or WordPiece in the sidebar to compare.")
    else:
        _agreement_line(replay, own, name)
    left, right = st.columns(2)
    vocabulary = _vocabulary(name)
    with left:
        caches.chart(kinds_chart(vocabulary, name, dark))
    with right:
        caches.chart(lengths_chart(vocabulary, name))
    st.caption("A token's script is its letters' (a token of digits, punctuation or spaces is counted as such; "
               "\"part of a character\": a token holding only some of a character's UTF-8 bytes, which byte-level "
               "BPE may learn). Its length is counted in characters, a leading space set aside; part of a character "
               "counts 1.")


def _agreement_line(replay: Replay, own: tuple[dict[str, int], str], name: str) -> None:
    """How many of the student's tokens the real tokenizer learned too, and how early."""
    learned, who = own
    if not learned:
        return
    real = server.store().get_or_make(("replay first steps", name), replay.first_steps)
    shared = [key for key in learned if key in real]
    early = sum(1 for key in shared if real[key] <= len(learned))
    st.caption(f"Of the {len(learned):,} tokens {who} learned, {len(shared):,} are {name} tokens too (set aside "
               f"what marks a word's start or end: ␣, ▁, ##, </w>); {early:,} of them within its first "
               f"{len(learned):,} merges. The last column gives the step at which {who} learned the same text.")


def kinds_chart(vocabulary: pd.DataFrame, name: str, dark: bool = False) -> alt.LayerChart:
    """Tokens by script (a log scale: Latin's tens of thousands beside Hangul's few), each bar labelled."""
    by_kind = vocabulary.groupby("kind", as_index=False)["tokens"].sum()
    by_kind["label"] = [f"{v:,}" for v in by_kind["tokens"]]
    order = [k for k in KINDS if k in set(by_kind["kind"])]
    top = int(by_kind["tokens"].max())
    ticks = [v for v in (0, 10, 100, 1_000, 10_000, 100_000) if v <= top]
    base = alt.Chart(by_kind, title=f"{name}: its tokens by script").encode(
        y=alt.Y("kind:N", sort=order, title=None, axis=alt.Axis(labelLimit=0, labelOverlap=False)),
        x=alt.X("tokens:Q", title="tokens (log scale)", scale=alt.Scale(type="symlog", domain=[0, top * 4]),
                axis=alt.Axis(values=ticks, format=",d", grid=True)),
        tooltip=["kind", alt.Tooltip("tokens:Q", format=",")])
    bars = base.mark_bar(color=charts.BPE_PICK)
    labels = base.mark_text(align="left", dx=4, color=charts.text_colour(dark)).encode(text="label:N")
    return (bars + labels).properties(height=24 * len(order))


def lengths_chart(vocabulary: pd.DataFrame, name: str) -> alt.Chart:
    by_length = vocabulary.groupby("length", as_index=False)["tokens"].sum()
    by_length["characters"] = [f"{v}+" if v == LONGEST else str(v) for v in by_length["length"]]
    return alt.Chart(by_length, title=f"{name}: its tokens by length").mark_bar(color=charts.OTHER).encode(
        x=alt.X("characters:O", sort=[str(v) for v in range(1, LONGEST)] + [f"{LONGEST}+"],
                title="characters", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("tokens:Q", title="tokens", axis=charts.number_axis(",d")),
        tooltip=["characters", alt.Tooltip("tokens:Q", format=",")],
    ).properties(height=420)
