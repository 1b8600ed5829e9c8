"""The Train page's first-visit introduction: what a merge is, what ## means, BPE's count against
WordPiece's score, in five sentences and one tiny example (and Unigram's, which removes instead of
merging). Dismissed once per session."""

from __future__ import annotations

import streamlit as st

from . import glossary, state

INTRO = """\
**New here? How a tokenizer learns its vocabulary, one merge at a time.**
1. Training starts from single characters: *hugs* is `h ##u ##g ##s`, where `##` marks a piece that continues a word.
2. At each step the trainer looks at every pair of neighbouring tokens, such as `h + ##u`, and merges the best pair into one new token, `hu`, everywhere in the corpus.
3. BPE calls the most frequent pair the best.
4. WordPiece divides the pair's count by the counts of its two parts, count(ab) / (count(a) × count(b)), so it prefers pairs whose parts are rare on their own.
5. In the course's toy corpus (hug 10, pug 5, pun 12, bun 4, hugs 5), BPE (which writes no `##`: `h u g s`) first merges `u + g` (20 times), while WordPiece first merges `##g + ##s`: 5 / (20 × 5) = 1/20, the best score.
"""

UNIGRAM_INTRO = """\
**New here? Unigram runs the other way: it starts big and removes pieces, one round at a time.**
1. Training starts from a large vocabulary: every character and many frequent substrings (`hu`, `ug`, `hug`, …), each with a probability.
2. A word's split is the one whose pieces' probabilities multiply to the most (Viterbi); its cost is −log of that product, and the loss is the cost of every word occurrence added up.
3. Each round asks, for every piece longer than one character: how much would the loss grow without it? The cheapest pieces go; single characters always stay, so every word can still be split (tokenizers' trainer may drop one while it trains, and puts every character back at the end).
4. The course's loop computes that growth exactly and removes the cheapest 10 % a round. tokenizers' UnigramTrainer estimates it (each use of a piece becomes its second-best split) and first re-estimates the probabilities by EM, over all of a word's splits.
5. In the course's toy corpus, removing `hug` would raise the loss by 23.5, while `pu` costs nothing: `p ug` and `pu g` score the same.
"""


def show(text: str = INTRO) -> None:
    """An introduction (the step view's: INTRO or UNIGRAM_INTRO), until the visitor dismisses it (remembered for the
    session)."""
    if st.session_state.get(state.INTRO_SEEN):
        return

    def seen() -> None:
        st.session_state[state.INTRO_SEEN] = True

    with st.container(border=True):
        st.markdown(text)
        hint, button = st.columns([5, 1], vertical_alignment="center")
        hint.caption("Step with Next or the → key. Every term has a tooltip; the *Glossary* button explains them all.")
        button.button("Got it", on_click=seen, type="primary", width="stretch")


def glossary_button() -> None:
    """A popover with every term the app uses."""
    # Drawn only while open: a step redraws this row, and the list would be sent with every step.
    with st.popover("Glossary", icon=":material/menu_book:", key="glossary_open", on_change="rerun") as panel:
        if panel.open:
            st.markdown("\n".join(f"- **{term}**: {text}" for term, text in glossary.GLOSSARY.items()))
