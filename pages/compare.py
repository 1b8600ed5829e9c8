"""Compare tokenizers: any two or three of BPE, WordPiece and Unigram, trained on the same corpus words.

One page of sections: the vocabularies, their overlap, a held-out text cut by each with the figures, the
frequent words, the token lengths. Merge trainings alone (BPE and WordPiece) also align step by step: their
merge timelines, the token to follow, and what Hugging Face's WordPieceTrainer learns (compare.aligned)."""

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_core import shelf
from wordpiece_core.errors import WordPieceError
from wordpiece_ui import caches, charts, chips, compare, corpus_loading, glossary, safe, state, tables, trained
from wordpiece_ui.corpora import sample_by_id
from wordpiece_ui.settings import ALGORITHM_NAMES
from wordpiece_ui.side_by_side import HF_VARIANT, PAIR

MAX_HELDOUT = 5_000
URL_TEXT_LIMIT = state.LINK_TEXT_CHARS



def split_by_each(encoders: dict, text: str) -> None:
    """The held-out text as each tokenizer cuts it: chips over the text, a column each."""
    for col, (name, tok) in zip(st.columns(len(encoders)), encoders.items()):
        with col:
            st.markdown(f"**{name}**")
            enc = tok.encode(text, add_special_tokens=False)
            st.markdown(chips.over_text(text, enc.tokens, enc.offsets, enc.ids, set(tok.special_tokens),
                                        unk_id=getattr(tok.model, "unk_id", None)), unsafe_allow_html=True)
            st.caption(tables.plural(len(enc.tokens), "token"))


def merge_metrics(bpe, wp, first_diff, ov) -> None:
    m = st.columns(5)
    m[0].metric("BPE merges", f"{len(bpe.steps):,}")
    m[1].metric("WordPiece merges", f"{len(wp.steps):,}")
    m[2].metric("first different step", "never" if first_diff is None else f"{first_diff:,}")
    m[3].metric("shared tokens", f"{ov.shared:,}")
    m[4].metric("Jaccard overlap", f"{ov.jaccard:.3f}", help=glossary.tip("Jaccard overlap"))


def timelines_section(timeline, first_diff, trainings) -> None:
    st.subheader("Merge timelines, aligned by step", anchor=False)
    if first_diff is not None:
        agree = "The algorithms differ from the first step on" if first_diff == 1 else \
            f"The algorithms agree up to step {first_diff - 1:,}"
        st.markdown(f"{agree}; **step {first_diff:,}** is the first whose new "
                    "tokens differ (marked ◆). The *… in …* columns say when the other algorithm learned the same "
                    "token; ★ marks the steps that made the token you follow below.")
    if HF_VARIANT in trainings:
        st.caption(
            f"The {HF_VARIANT} column is what Hugging Face's WordPieceTrainer learns: BPE on words written with ##, "
            "trained here by this app with the sidebar's tie-break, so it is the same on every run. "
            "tokenizers itself breaks ties by token id and numbers the ## alphabet in hash-map order, so at the steps "
            "marked ⚖ (ties) its own order can change from one run to the next (tokenizers issue 1794).")
    glossary.table(timeline)


def follow_section(shared, trainings) -> str | None:
    """A token both learned: when and from which pair each learned it, and every shared token's two steps."""
    st.subheader("Follow a token", anchor=False)
    left, right = st.columns([2, 3])
    with left:
        options = list(shared.sort_values("WordPiece")["token"]) if len(shared) else []
        state.keep(state.FOLLOW, options[0] if options else "")
        if st.session_state[state.FOLLOW] not in options:
            st.session_state[state.FOLLOW] = options[0] if options else None
        follow = st.selectbox("A token both learned", options, key=state.FOLLOW, on_change=state.remember,
                              args=(state.FOLLOW,))
        if follow:
            row = shared[shared["token"] == follow].iloc[0]
            for name in PAIR:
                s = trainings[name].steps[int(row[name]) - 1]
                st.markdown(f"**{name}** learned {safe.code(tables.fmt_token(follow))} at **step {s.step:,}**: "
                            f"{safe.code(tables.fmt_token(s.left))} + {safe.code(tables.fmt_token(s.right))} "
                            f"(count {s.pair_count:,}" + (f", score {tables.fmt_number(s.score_float)})" if name == "WordPiece" else ")"))
            st.caption("Points above the diagonal were learned earlier by BPE; below it, earlier by WordPiece. "
                       "Hover a point to see its token.")
    with right:
        if len(shared):
            caches.chart(charts.shared_scatter(shared, "BPE", "WordPiece", follow, dark=st.context.theme.type == "dark"))
        else:
            st.info("The two vocabularies share no merged token yet.")
    return follow


def pair_overlap_section(ov) -> None:
    st.subheader("Vocabulary overlap", anchor=False)
    st.markdown(f"As learned: BPE **{ov.a_tokens:,}** tokens, WordPiece **{ov.b_tokens:,}**.  \n"
                f"Matched by their letters (`##e` and `e` count as one spelling): BPE **{ov.a_size:,}** spellings, "
                f"WordPiece **{ov.b_size:,}**, shared **{ov.shared:,}**.  \n"
                f"Jaccard = {ov.shared:,} / {ov.a_size + ov.b_size - ov.shared:,} = **{ov.jaccard:.3f}**")
    c2, c3 = st.columns(2)
    c2.caption(f"Only BPE learned ({len(ov.a_only):,})")
    c2.dataframe({"token": ov.a_only}, hide_index=True, width="stretch", height=220)
    c3.caption(f"Only WordPiece learned ({len(ov.b_only):,})")
    c3.dataframe({"token": ov.b_only}, hide_index=True, width="stretch", height=220)


def vocabularies_section(vocabularies) -> None:
    st.caption("All trained on the same corpus words, asked for the sidebar's vocabulary size (Unigram: tokenizers' "
               "UnigramTrainer with <unk>, unless the sidebar's algorithm is Unigram); one that stopped short of it "
               "says why. Tokens are matched by their letters: WordPiece's `##ug`, Unigram's `▁ug` (with Metaspace) "
               "and BPE's `ug` count as one.")
    for col, vocabulary in zip(st.columns(len(vocabularies)), vocabularies):
        col.metric(f"{vocabulary.name} vocabulary", f"{len(vocabulary.tokens):,}")
        if len(vocabulary.tokens) < vocabulary.asked:
            col.caption(tables.stopped_early(len(vocabulary.tokens), vocabulary.asked, vocabulary.stop_reason))
    st.subheader("Vocabulary overlap", anchor=False)
    glossary.table(compare.overlap_frame(vocabularies), {"Jaccard": st.column_config.NumberColumn(format="%.3f", help=glossary.tip("Jaccard overlap"))})


NO_REAL = "none"


def real_tokenizer():
    """The real tokenizer (from the shelf) to set beside the trained ones: (its name, its tokenizer), or None."""
    state.keep(state.REAL, NO_REAL)
    if st.session_state[state.REAL] not in (NO_REAL, *shelf.SHELF):
        st.session_state[state.REAL] = NO_REAL
    st.selectbox("Beside them, a real tokenizer", (NO_REAL, *shelf.SHELF), key=state.REAL, on_change=state.remember,
                 args=(state.REAL,), format_func=lambda n: "none" if n == NO_REAL else shelf.title(n),
                 help="OpenAI's encodings, shipped with the app: how GPT-2, GPT-4 or GPT-4o cut the same text.")
    name = st.session_state[state.REAL]
    if name == NO_REAL:
        return None
    try:
        with st.spinner(f"Reading {name} (once for the server)…"):
            return name, caches.shelf_tokenizer(name)
    except WordPieceError as error:
        st.error(f"Cannot open {name}: {safe.md(error)}")
        return None


def heldout_text(some: str) -> tuple[str, str]:
    """The held-out text box: (what was typed, the part encoded)."""
    st.subheader(f"The same words, tokenized by {some}", anchor=False)
    st.text_area(f"Held-out text (not in the corpus; up to {MAX_HELDOUT:,} characters are encoded)", key=state.HELDOUT,
                 on_change=state.remember, args=(state.HELDOUT,), height=90)
    heldout = st.session_state[state.HELDOUT] or ""
    if len(heldout) > MAX_HELDOUT:
        st.warning(f"The text has {len(heldout):,} characters; the first {MAX_HELDOUT:,} are encoded (your text is "
                   "kept).")
    if len(heldout) > URL_TEXT_LIMIT:
        st.caption(f"Texts over {URL_TEXT_LIMIT:,} characters are not put in the shareable link.")
    return heldout, heldout[:MAX_HELDOUT]


settings = st.session_state[state.SETTINGS]
sample = sample_by_id(settings.corpus)
state.keep(state.HF_COLUMN, False, bool)
state.keep(state.HELDOUT, sample.heldout if sample else "")
picked = state.compared_algorithms()  # the multiselect's, from the link's `algorithms` at first
aligned = compare.aligned(picked)  # merge trainings alone: their steps align
names = [ALGORITHM_NAMES[a] for a in picked]
st.title(" vs ".join(names) if aligned else "Compare tokenizers: " + " vs ".join(names))
if aligned:
    st.caption("Both trained on the same corpus with the sidebar's settings. Tokens are matched by their letters: "
               "WordPiece's `##ug` and BPE's `ug` count as the same token (plain BPE does not mark word-internal "
               "pieces).")
state.compare_control()
hf = aligned and st.toggle("Also show what Hugging Face's WordPieceTrainer learns (BPE with the ## prefix)",
                           key=state.HF_COLUMN, on_change=state.remember, args=(state.HF_COLUMN,))
counts = corpus_loading.word_counts(settings)
runs = trained.trainings(compare.wanted(picked, hf), settings, counts) if counts else {}
if not runs:
    st.stop()
trainings = {name: trained.loaded_any(model) for name, model in runs.items()}
follow = None
merges = {name: trained.loaded(model) for name, model in runs.items()} if aligned else {}
if aligned:
    bpe, wp = merges["BPE"], merges["WordPiece"]
    timeline, first_diff = compare.timelines(merges, st.session_state.get(state.kept(state.FOLLOW)),
                                             mark_ties=(HF_VARIANT,))
    shared = compare.shared_steps("BPE", bpe, "WordPiece", wp)
    ov = compare.overlap(bpe, wp)
    merge_metrics(bpe, wp, first_diff, ov)
    timelines_section(timeline, first_diff, merges)
    follow = follow_section(shared, merges)
    pair_overlap_section(ov)
else:
    vocabularies_section([compare.vocabulary_of(name, t) for name, t in trainings.items()])

encoders = {name: caches.tokenizer(model) for name, model in runs.items()}
real = real_tokenizer()
if real is not None:
    encoders[real[0]] = real[1]
heldout, held = heldout_text("both" if len(encoders) == 2 else "each")
if held.strip():
    split_by_each(encoders, held)
else:
    st.info("Type some text above (words not in the corpus) to see it cut by each tokenizer, and their figures on it.")
words = tuple(w for w, _ in counts.counts) if counts else ()
numbers = tuple(n for _, n in counts.counts) if counts else ()
real_names = frozenset([real[0]]) if real else frozenset()
glossary.table(compare.metrics_rows_over(encoders, words, numbers, held, real_names), glossary.metric_columns())
st.caption("Fertility = tokens per word; [UNK] words = words with a piece the vocabulary cannot spell; "
           "continuation pieces = tokens after the first of their word (WordPiece writes them with ##). "
           "Corpus figures are weighted by word counts."
           + (f" {real[0]} was not trained on these words: its figures are on the held-out text only."
              if real and held.strip() else ""))
if aligned and (example := caches.fertility_example(runs["BPE"], runs["WordPiece"])):
    st.markdown(example)
frequent = [w for w, _ in counts.most_frequent(12)] if counts else []
glossary.table(compare.words_table(encoders, frequent, real_names, settings.pre_tokenizer == "byte-level"), rows=12)
if real:
    st.caption(f"{real[0]} gets each word as running text has it, after a space (␣): a byte-level tokenizer's "
               "tokens for a word at the start of a text differ.")

st.subheader("Token lengths in each vocabulary", anchor=False)
if aligned:
    caches.chart(charts.length_histogram(compare.length_histogram(merges),
                                          "Vocabulary tokens by length (letters, ## not counted), as in the likelihood "
                                          "article's chart of BERT's vocabulary"))
else:
    caches.chart(charts.length_histogram(compare.lengths_frame([compare.vocabulary_of(n, t) for n, t in trainings.items()]),
                                          "Vocabulary tokens by length (letters; ## and ▁ not counted)"))

url_extra = {"algorithms": None if aligned else ",".join(picked),
             "real": real[0] if real else None,
             "hf": "1" if hf else None,
             "heldout": heldout if len(heldout) <= URL_TEXT_LIMIT and heldout != (sample.heldout if sample else "")
             else None,
             "follow": follow or None}
state.sync_url(settings, **url_extra)
state.share_box(settings, "compare", **url_extra)
