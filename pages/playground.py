"""Encoder playground: type text, see it tokenized live, and how each word was cut."""

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_core import shelf
from wordpiece_core.errors import WordPieceError
from wordpiece_core.pipeline import Tokenizer
from wordpiece_core.pre_tokenizers import is_byte_level
from wordpiece_ui import caches, chips, encodings, glossary, safe, state, tables, trained, user_files
from wordpiece_ui.corpora import sample_by_id
from wordpiece_ui.datastore import StoredFile
from wordpiece_ui.stepper import Stepper
from wordpiece_ui.trained_model import TrainedModel

MAX_TEXT = 20_000  # characters encoded live; longer text is kept, and its start is encoded
URL_TEXT_LIMIT = state.LINK_TEXT_CHARS
SOURCES = {"trained": "The tokenizer trained in the sidebar", "shelf": "A real tokenizer (GPT-2, GPT-4, GPT-4o)",
           "file": "A tokenizer file (tokenizer.json, vocab.txt, .tiktoken)"}

settings = st.session_state[state.SETTINGS]
st.title("Encoder playground")
sample = sample_by_id(settings.corpus)
state.keep(state.SOURCE, "trained")
state.keep(state.TEXT, sample.heldout if sample else "Type something here.")
state.keep(state.PAIR, "")
state.keep(state.SPECIAL, True, bool)
state.keep(state.SHELF, "o200k_base")
NO_COMPARISON = "none"
state.keep(state.COMPARE_WITH, NO_COMPARISON)
if st.session_state[state.COMPARE_WITH] not in (NO_COMPARISON, *shelf.SHELF):
    st.session_state[state.COMPARE_WITH] = NO_COMPARISON
if st.session_state[state.SHELF] not in shelf.SHELF:
    st.session_state[state.SHELF] = "o200k_base"
if st.session_state[state.SOURCE] not in SOURCES:
    st.session_state[state.SOURCE] = "trained"

st.segmented_control("Tokenizer", list(SOURCES), format_func=SOURCES.__getitem__, key=state.SOURCE, required=True,
                     on_change=state.remember, args=(state.SOURCE,))
tokenizer: Tokenizer | None = None
model: TrainedModel | None = None  # the training behind the tokenizer, when it is the one trained in the sidebar
file: StoredFile | None = None  # the tokenizer file, when it is one uploaded (kept by digest)
kind, label = "", ""
if st.session_state[state.SOURCE] == "trained":
    model = trained.sidebar_training(settings)
    if model is not None:
        tokenizer = caches.tokenizer(model)
        kind = settings.algorithm
        label = (f"{state.ALGORITHM_LABELS[kind]} trained on {safe.md(model.corpus.name)}: {model.tokens:,} tokens · "
                 f"normalizer {settings.normalizer} · pre-tokenizer {settings.pre_tokenizer}")
elif st.session_state[state.SOURCE] == "shelf":  # shipped with the app: nothing is downloaded
    st.selectbox("Tokenizer", shelf.SHELF, format_func=shelf.title, key=state.SHELF,
                 on_change=state.remember, args=(state.SHELF,))
    name = st.session_state[state.SHELF]
    with st.spinner(f"Reading {name} (once for the server)…"):
        tokenizer = caches.shelf_tokenizer(name)
    kind = tokenizer.model.kind
    label = (f"{shelf.title(name)}: OpenAI's encoding as tiktoken publishes it, {len(tokenizer.vocab):,} tokens · "
             "byte-level BPE after a regex split · no normalizer · the same ids as tiktoken")
else:
    st.file_uploader(f"tokenizer.json (WordPiece, BPE or Unigram), a BERT vocab.txt or a .tiktoken file, up to "
                     f"{encodings.MAX_TOKENIZER_MB} MB", type=["json", "txt", "tiktoken"], key=state.TOKENIZER_FILE,
                     max_upload_size=encodings.MAX_TOKENIZER_MB)
    file = user_files.tokenizer_file(st.session_state.get(state.TOKENIZER_FILE))  # kept by digest (or the link's)
    if file is None:
        st.info(user_files.gone_line(user_files.TOKENIZER)
                or "Choose a tokenizer file, or switch back to the tokenizer trained in the sidebar.")
    else:
        if (not_saved := user_files.not_saved_line(file)) is not None:
            st.caption(not_saved)
        try:
            lowercase = None
            if caches.uploaded_file_kind(file) == "vocab.txt":  # it does not say whether it is cased
                guessed, case_reason = caches.uploaded_looks_uncased(file)
                choice = st.radio("This vocabulary is", ["uncased", "cased"], index=0 if guessed else 1,
                                  horizontal=True, key=f"cased {file.name}",
                                  help="Uncased: the text is lowercased and its accents stripped first (the bert "
                                       "normalizer), as for bert-base-uncased. Cased: it is used as typed "
                                       "(bert-cased). A vocab.txt does not say which; the app guesses from its tokens.")
                st.caption(f"Read as {case_reason}." if choice == ("uncased" if guessed else "cased") else
                           f"You chose {choice}; the file alone reads as {case_reason}.")  # (our words, counts)
                lowercase = choice == "uncased"
            tokenizer = caches.uploaded_tokenizer(file, lowercase)
            kind = tokenizer.model.kind
            label = (f"{safe.md(file.name)}: {kind}, {len(tokenizer.vocab):,} tokens · normalizer "
                     f"{encodings.stage_names(tokenizer.normalizer)} · pre-tokenizer "
                     f"{encodings.stage_names(tokenizer.pre_tokenizer)}")
        except WordPieceError as exc:
            st.error(f"Cannot use this file: {safe.md(exc)}")
if label:
    st.caption(label)

# Drawn whatever the tokenizer's state: a widget that is not drawn for a run loses its value in the browser.
left, right = st.columns([3, 2])
left.text_area(f"Text (the first {MAX_TEXT:,} characters are encoded)", key=state.TEXT, height=120,
               on_change=state.remember, args=(state.TEXT,))
right.text_area("Second sentence (optional: a pair, as for question answering)", key=state.PAIR, height=120,
                on_change=state.remember, args=(state.PAIR,))
st.toggle("Add special tokens ([CLS] … [SEP] when the vocabulary has them)", key=state.SPECIAL,
          on_change=state.remember, args=(state.SPECIAL,))
text, pair = st.session_state[state.TEXT] or "", st.session_state[state.PAIR] or ""
url_extra = {"source": st.session_state[state.SOURCE] if st.session_state[state.SOURCE] != "trained" else None,
             "shelf": st.session_state[state.SHELF] if st.session_state[state.SOURCE] == "shelf" else None,
             "compare_with": (st.session_state[state.COMPARE_WITH]
                              if st.session_state[state.COMPARE_WITH] != NO_COMPARISON else None),
             user_files.TOKENIZER_LINK: file.id if file is not None else None,
             "text": text if len(text) <= URL_TEXT_LIMIT else None,
             "pair": pair if pair and len(pair) <= URL_TEXT_LIMIT else None,
             "special": None if st.session_state[state.SPECIAL] else "0"}
state.sync_url(settings, **url_extra)
if tokenizer is None:
    st.stop()
if len(text) > URL_TEXT_LIMIT:
    st.caption(f"Texts over {URL_TEXT_LIMIT:,} characters are not put in the shareable link.")
if not text.strip() and not pair.strip():
    st.info("Type or paste some text above to see it encoded.")
    st.stop()
for name, value in (("text", text), ("second sentence", pair)):
    if len(value) > MAX_TEXT:
        st.warning(f"The {name} has {len(value):,} characters; the first {MAX_TEXT:,} are encoded. Your text is kept as it is.")
a, b = text[:MAX_TEXT], pair[:MAX_TEXT] if pair.strip() else None

try:
    enc = tokenizer.encode(a, b, add_special_tokens=st.session_state[state.SPECIAL], trace=True)
except WordPieceError as exc:  # a word this tokenizer cannot encode here (its text stays in the box)
    st.error(f"Cannot encode this text: {safe.md(exc)}")
    st.stop()
dropped = encodings.dropped_in(enc, (a, b))
missing = encodings.unencodable_words(enc, tokenizer)
if missing:
    shown = ", ".join(repr(w) for w in missing[:12]) + (f" and {len(missing) - 12:,} more" if len(missing) > 12 else "")
    unk = safe.code(tokenizer.model.unk_token)
    st.warning(f"This vocabulary has no {unk} token, so {tables.plural(len(missing), 'word')} cannot be encoded: "
               f"{safe.md(shown)}. They are shown as {unk} with no id (Hugging Face's tokenizers would "
               "refuse the whole text); the rest is encoded as usual.", icon=":material/warning:")
if model is not None and (missing := encodings.missing_characters(tokenizer, a + " " + (b or ""))):
    if (why := encodings.why_unknown(missing, model.corpus.name, model.corpus.lowercase_words,
                                     unk=getattr(tokenizer.model, "unk_token", None) or "[UNK]")) is not None:
        sentence, lowercasing_helps = why
        with st.container(border=True):
            st.markdown(sentence)
            if lowercasing_helps:
                st.button("Train with the lowercase normalizer", icon=":material/text_format:",
                          on_click=state.set_setting, args=("normalizer", "lowercase"))
m = st.columns(5)
m[0].metric("tokens", f"{len(enc.tokens):,}")
m[1].metric("characters", f"{len(a) + len(b or ''):,}")
m[2].metric("words", f"{len(enc.words):,}")
m[3].metric("[UNK]", f"{encodings.unknown_count(enc, unk_id=getattr(tokenizer.model, 'unk_id', None)):,}")
m[4].metric("dropped characters", f"{dropped:,}", help="Characters the vocabulary cannot spell and that BPE without [UNK] drops (struck through below).")

st.subheader("Tokens over the text", anchor=False)
st.caption("Each chip is one token laid over the characters it came from (hover for the token and its id); "
           "dotted chips are special tokens; hatched chips with a double border are [UNK].")
if is_byte_level(tokenizer.pre_tokenizer):
    st.caption(glossary.BYTE_LEVEL_NOTE)
for drawn in encodings.chips_of(enc, (a, b), tokenizer):
    st.markdown(drawn, unsafe_allow_html=True)
ids = [i for i in enc.ids if i is not None]
st.markdown("**ids:** `" + " ".join(str(i) if i is not None else "∅" for i in enc.ids) + "`")
st.markdown("**decoded:** " + (safe.code(tokenizer.decode(ids)) if ids else "(nothing)"))
if ids and tokenizer.decoder.kind == "join":
    st.caption(encodings.JOIN_DECODER_NOTE)
with st.expander("Token table"):
    glossary.table(encodings.tokens_frame(enc, [a, b or ""]))

# The same text through a real tokenizer of the shelf, beside this one (o200k's tokens beside an uploaded Llama 3's).
st.selectbox("Side by side with", (NO_COMPARISON, *shelf.SHELF), key=state.COMPARE_WITH,
             format_func=lambda n: "no other tokenizer" if n == NO_COMPARISON else shelf.title(n),
             on_change=state.remember, args=(state.COMPARE_WITH,))
if (other_name := st.session_state[state.COMPARE_WITH]) != NO_COMPARISON:
    with st.spinner(f"Reading {other_name} (once for the server)…"):
        other = caches.shelf_tokenizer(other_name)
    other_enc = other.encode(a, b or None, add_special_tokens=st.session_state[state.SPECIAL])
    left_col, right_col = st.columns(2)
    here = (label or "This tokenizer").split(" · ")[0]  # "tokenizer.json: bpe, 128,256 tokens"
    there = f"{shelf.title(other_name)}: {len(other.vocab):,} tokens"
    for col, (name, tok, e) in zip((left_col, right_col), ((here, tokenizer, enc), (there, other, other_enc))):
        with col:
            st.markdown(f"**{tables.plural(len(e.tokens), 'token')}**")
            st.caption(name)
            for drawn in encodings.chips_of(e, (a, b), tok):
                st.markdown(drawn, unsafe_allow_html=True)

st.subheader("How each word was cut", anchor=False)
if model is not None and (note := encodings.course_lattice_note(settings)) is not None:
    with st.container(border=True):
        st.markdown(note)
        st.button(f"Use the course's vocabulary ({encodings.COURSE_LATTICE_SIZE})", icon=":material/undo:",
                  on_click=state.set_setting, args=("vocab_size", encodings.COURSE_LATTICE_SIZE))
words = enc.words


def word_view(position: int) -> None:
    w = words[position - 1]
    st.markdown(f"#### Word {position} of {len(words)}: {safe.code(tables.fmt_token(w.word))}")
    st.markdown(encodings.word_sentence(w, kind))
    table, left_out = encodings.trace_frame(w, kind)
    glossary.table(table)
    if left_out:
        st.caption(left_out)
    if model is not None and not w.result.unknown and encodings.word_view(kind).made_by_merges:
        st.markdown(encodings.origins_sentence(w, caches.token_steps(model),
                                               lambda n: state.page_url(settings, step=n)))


if words:
    Stepper(state.TRACE_WORD, len(words), noun="word").run(word_view)
else:
    st.info("No words (only special tokens).")


def side_by_side(model: TrainedModel) -> None:
    """BPE and WordPiece on the same text (their tokenizers in locals: the word view, a fragment, keeps the globals)."""
    st.subheader("BPE and WordPiece on the same text", anchor=False)
    runs = trained.side_by_side_of(model)
    cols = st.columns(2)
    for col, (name, run) in zip(cols, runs.items()):
        tok = caches.tokenizer(run)
        e = tok.encode(a, add_special_tokens=False)
        with col:
            st.markdown(f"**{name}**: {tables.plural(len(e.tokens), 'token')}, {encodings.unknown_count(e)} [UNK]")
            st.markdown(chips.over_text(a, e.tokens, e.offsets, e.ids, set(tok.special_tokens)), unsafe_allow_html=True)


if model is not None and encodings.word_view(kind).made_by_merges:
    side_by_side(model)
elif model is not None:
    st.caption("The Compare page splits a text with BPE, WordPiece and Unigram side by side (pick them there).")
del tokenizer  # the store keeps it; the word view (a fragment) keeps this page's globals for the session
state.share_box(settings, "playground", **url_extra)
