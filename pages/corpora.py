"""Corpora and notes: what each sample corpus is, where the sources disagree, and the glossary."""

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_ui import caches, glossary, sources, state, tables
from wordpiece_ui.corpora import MAX_PASTE_CHARS, MAX_UPLOAD_MB, MAX_WORD_TYPES

settings = st.session_state[state.SETTINGS]
state.sync_url(settings)
st.title("Corpora and notes")

st.subheader("Sample corpora", anchor=False)
st.caption("Pick one in the sidebar, or open it on the Train page with its suggested settings.")
st.markdown(tables.samples_markdown(caches.samples_table()))  # a Markdown table: the descriptions wrap
st.markdown(
    f"**Your own text**: paste up to {MAX_PASTE_CHARS:,} characters, or upload a `.txt` file (one document per line) "
    f"or a `.tsv` of `word<TAB>count` lines, up to {MAX_UPLOAD_MB} MB and {MAX_WORD_TYPES:,} distinct words, in UTF-8 "
    "or UTF-16 (as Windows' Notepad saves it). Binary, empty or otherwise encoded files are refused with the reason "
    "and the position of the first bad byte."
)

st.subheader("Where the sources disagree", anchor=False)
S = sources
st.markdown(f"""
The app is built from five documents: {S.COURSE_WORDPIECE.md()} and {S.COURSE_BPE.md()}, two WordPiece tutorials
({S.SCRATCH_TUTORIAL.md()} and {S.VARIANT_TUTORIAL.md()}) and a likelihood derivation, {S.LIKELIHOOD.md()}.

| question | what the sources do | what this app does |
|---|---|---|
| the score | count(ab) / (count(a) × count(b)) in the course, the from-scratch tutorial and the likelihood article; “A BPE Variant” multiplies it by the vocabulary size | the plain score; the product is a column (*score × \\|V\\|*): it scales a step's scores alike, so the winner is the same |
| ties | the course takes the first best pair it meets; Hugging Face's BpeTrainer the smallest ids | a setting (*Tie-break*), and every step says how many pairs tied and what the other rule would pick |
| the course's toy step 3 | the prose says `hu` + `##g` (1/15) | the numbers give `hu` + `##gs` 1/15 and `hu` + `##g` 2/45; `hu` + `##gs` is merged |
| “A BPE Variant”'s example | (q, ##u) scores 29 | `##u` also occurs in *jumps*: count(##u) = 2, so 1 × 29 / (1 × 2) |
| the likelihood article's example | count(e) = 11; merges (l, ##o) at 1/7 | count(e) = 17; (w, ##i) and (##i, ##d) score 1/3 and win; its code's 20-token output matches ours |
| Hugging Face's `WordPieceTrainer` | called WordPiece | it is BPE with the `##` prefix (it ranks by count); see *Compare tokenizers* |
| minimum frequency | the from-scratch tutorial and the likelihood article drop rare pairs | a setting (*Min pair frequency*) |
""")
st.markdown(f"**Unigram**: {S.COURSE_UNIGRAM.md()} against its own model (the Unigram page shows the arithmetic "
            "beside each, and what this app does):\n\n"
            + "\n".join(f"- **{topic}**: {text}" for topic, text in S.UNIGRAM_ERRATA.items()))
st.markdown(
    "Every step also records the **exact** change of the corpus' unigram log-likelihood (the likelihood article's "
    "derivation), shown beside the score on the Train page, so you can see where the score's approximation picks "
    "a different pair."
)

st.subheader("Glossary", anchor="glossary")
st.markdown("\n".join(f"- **{term}**: {text}" for term, text in glossary.GLOSSARY.items()))
