"""A session's state: the shared sidebar, the URL (the shareable link), and the session keys.

- The sidebar's widgets live in app.py's run, so their values survive moving
  between pages. On a session's first run they are filled from the URL.
- Every `st.session_state` key the app uses is named once, below (those of the session's own
  files, a paste or an upload kept by digest, in user_files.py).
- What is shared between sessions lives elsewhere: corpora in corpus_loading.py, trainings
  in trained.py, the tables derived from them in caches.py.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st
from streamlit import config as streamlit_config
from streamlit.runtime.scriptrunner import get_script_run_ctx

from wordpiece_core.algorithms import ALGORITHMS as ALGORITHM_INFO, Config
from wordpiece_core.unigram.training import RULE_LABELS, RULE_OPTIONS, UNIGRAM_RULES
from wordpiece_core.normalizers import NORMALIZERS
from wordpiece_core.pre_tokenizers import PRE_TOKENIZERS

from . import safe, user_files
from .corpora import MAX_PASTE_CHARS, MAX_UPLOAD_MB, MAX_WORD_TYPES, sample_by_id, samples
from .settings import (ALGORITHMS, MAX_MIN_FREQUENCY, MAX_VOCAB, SPECIALS, SPECIALS_LABELS, SUGGESTED, TIE_BREAKS,
                       ALGORITHM_NAMES, COMPARABLE, UNIGRAM_PRE_TOKENIZER, UNIGRAM_SUGGESTED, Settings, defaults_for,
                       from_query, parse_algorithms)

FIELDS = ("corpus", "algorithm", "vocab_size", "normalizer", "pre_tokenizer", "tie_break", "min_frequency", "specials",
          "byte_alphabet", "prefix_space", "unigram_rule", "whole_words")
BYTE_FIELDS = ("byte_alphabet", "prefix_space")  # drawn only with the byte-level pre-tokenizer
ALGORITHM_LABELS = ALGORITHM_NAMES  # the core's labels (algorithms.LABELS)
CUSTOM_LABELS = {"paste": "Paste your own text…", "upload": "Upload a file (.txt or .tsv)…"}


def training_label(config: Config) -> str:
    """A training's name on screen: its algorithm, "with ##" for BPE with a prefix, Unigram's rule (the
    configuration's `label`)."""
    return config.label


# ----- the session keys, named once ---------------------------------------------------------
SETTINGS = "settings"  # the sidebar's Settings, for the page that runs after app.py
URL_LOADED = "_url_loaded"  # the URL has been read into the session (first run only)
URL_PROBLEMS = "url_problems"  # what was wrong with the link's parameters
_LINK_PAGE = "_link_page"  # the page the link opened: its problems are said there, not on every page after it
_LINK_WARNINGS_DRAWN = "_link_warnings_drawn"  # this run's sidebar has drawn them
LINK_TEXT_CHARS = 1_000  # the most characters of a typed text a link carries (and takes: a longer one is cut)
STEP = "step_value"  # the Train page's current step (1-based; stepper.py derives its other keys)
QUIZ = "quiz"  # "ask first" mode
HANDOUT_FIRST = "handout_first"  # the Train page's handout: first and last step
HANDOUT_LAST = "handout_last"
INTRO_SEEN = "intro_seen"  # the Train page's introduction was dismissed
PRESENT = "present"  # presenter mode: big type, sidebar collapsed, the essentials above the fold
REVEALED_STEPS = "revealed_steps"  # quiz: the steps revealed this session (going back keeps them revealed)
QUIZ_GUESSES = "quiz_guesses"  # step → the pair the class guessed, for the score kept this session
GUESS = "guess"  # + " {step}": the guess box of a hidden merge (a round's: GUESS + " round {n}")
DOWNLOADS_IN_QUIZ = "downloads_in_quiz"  # ask first: the downloads shown all the same (a round's: "… rounds")
# A Unigram round's (rounds_view.py), kept apart from the merges' so that switching algorithms keeps neither's
ROUND_WORD = "unigram_word"  # the word whose share of the loss a round writes out
REVEALED_ROUNDS = "unigram_revealed"  # ask first: the rounds revealed this session
ROUND_GUESSES = "unigram_guess:said"  # + ":{round}": the guess and the cheapest pieces, once revealed
ROUND_HANDOUT_FIRST = "unigram_handout_first"  # the handout's first and last round
ROUND_HANDOUT_LAST = "unigram_handout_last"
ROUND_DOWNLOADS_IN_QUIZ = "unigram_downloads_in_quiz"
CANDIDATE_ROWS = "cand_rows"
# The Train page's panels below a step, each drawn only while open (a step's time in the browser grows
# with what it draws): the candidate table, the vocabulary, the charts over all steps, the code.
CANDIDATES_OPEN = "candidates_open"
VOCAB_OPEN = "vocab_open"
STEPS_OPEN = "steps_open"
CODE_OPEN = "code_open"
REPLAY_OPEN = "replay_open"  # the Train page's replay of a real tokenizer's merges (real_merges_view.py)
PASTE_TEXT = "paste_text"
_LAST_ALGORITHM = "_last_algorithm"  # the algorithm before the radio's change (Unigram's settings differ)
UPLOAD_FILE = "upload_file"
TRAINING_STOPPED = "training_stopped"  # the trainings this session stopped before they finished
SESSION_ID = "session_id"  # this session's name for the training service
TRACE_WORD = "trace_word"  # the playground's word-by-word trace (stepper.py derives its other keys)
SOURCE = "source"  # the playground's tokenizer: trained, from the shelf or a file
SHELF = "shelf"  # the playground's tokenizer from the shelf (wordpiece_core/shelf.py)
COMPARE_WITH = "compare_with"  # the playground's second tokenizer, side by side (a shelf name, or none)
REAL = "real"  # the Compare page's real tokenizer beside the trained ones (a shelf name, or none)
TEXT = "text"  # the playground's text
PAIR = "pair"  # the playground's second sentence
SPECIAL = "special"  # the playground adds special tokens
TOKENIZER_FILE = "tokenizer_file"
HF_COLUMN = "hf"  # the Compare page also shows Hugging Face's WordPieceTrainer
HELDOUT = "heldout"  # the Compare page's held-out text
FOLLOW = "follow"  # the Compare page's followed token
COMPARED = "algorithms"  # the Compare page's algorithms, as its link names them ("bpe,wordpiece,unigram")
COMPARE_PICK = "compare_pick"  # … and as its multiselect holds them
# The live class room (classroom.py): this session's room and its part in it.
ROOM_CHECKED = "_room_checked"  # the link's room= was read (first run only)
ROOM_NOW = "_room_now"  # the room as app.py found it in this run (classroom.current), for the page
ROOM = "room"  # the room's code, while this session is in a room
ROOM_TEACHER = "room_teacher"  # the teacher token: this session runs the room (never in the address bar)
ROOM_STUDENT = "room_student"  # the student token: this session is a student (the address bar keeps it)
ROOM_NICKNAME = "room_nickname"
ROOM_NICKNAME_BOX = "room_nickname_box"  # the student's *Change name* box
ROOM_PROBLEM = "room_problem"  # why the link's room could not be entered, or why the room ended
ROOM_SENT = "room_sent"  # the teacher: the (step, ask first) last written to the room
ROOM_CARD = "room_card"  # the teacher: the step whose card (phone_room.card) this tab last wrote
ROOM_VERSION = "room_version"  # a student: the room's version this page shows
ROOM_AT = "room_at"  # a student: the teacher's step this page knows
ROOM_REVEALED = "room_revealed"  # the teacher: the steps the room revealed
ROOM_PAGE_RUN = "room_page_run"  # a student's poll runs within the page's full run (it must not wait then)
ROOM_SEEN_AT = "room_seen_at"  # a student: when the page last told the room it is here
ROOM_JOIN_OPEN = "room_join_open"  # the teacher's join panel (QR code and code), open at first
ROOM_LINK_SHOWN = "room_link_shown"  # the teacher asked to see the teacher link on screen (until its panel closes)
ROOM_PINNED_AT = "room_pinned_at"  # the teacher: when the room's corpus was last pinned in the data store
ROOM_TYPED = "room_typed"  # the sidebar's *Join a class room* box
ROOM_GO = "room_go"  # a typed code was entered: open the Train page
ROOM_GO_FAILED = "room_go_failed"  # … and it opened no room: the sidebar says why
ROOM_RETRIED = "room_retried"  # the room could not be read: the page has waited once before trying again
ROOM_RECLAIM = "room_reclaim"  # a teacher's tab without its token (role=teacher): the room it ran
ROOM_RECLAIM_BOX = "room_reclaim_box"  # where the teacher pastes the teacher link
ROOM_RUNS = "room_runs"  # a student: when the step view's last runs started (room_student.throttle)
ROOM_VOTE_FAILED = "room_vote_failed"  # a student's vote that came after its round closed (the radio's key)


def setting_key(field: str) -> str:
    """The session key of a sidebar setting's widget."""
    return f"s_{field}"


def init_from_url() -> None:
    """On a session's first run, take the settings (and step) from the URL."""
    if st.session_state.get(URL_LOADED):
        return
    load_settings({k: st.query_params[k] for k in st.query_params.keys()})  # the last value of a repeated key


def load_settings(params: dict[str, str], step: int | None = None) -> None:
    """Put the settings a link's parameters describe into the sidebar (a class room's, or the URL's)."""
    settings, step, problems = from_query(params | ({"step": str(step)} if step is not None else {}))
    for field in FIELDS:
        st.session_state[setting_key(field)] = getattr(settings, field)
    st.session_state[STEP] = step if step is not None else 1
    st.session_state[URL_PROBLEMS] = problems
    st.session_state[_LINK_PAGE] = _page()
    st.session_state[URL_LOADED] = True
    if settings.corpus_id:  # a pasted or uploaded corpus, kept by digest: back in the box, or the session's upload
        own = user_files.from_link(settings.corpus, settings.corpus_id)
        pasted = user_files.text(own) if own is not None and settings.corpus == "paste" else None
        if pasted is not None:
            st.session_state[kept(PASTE_TEXT)] = st.session_state[PASTE_TEXT] = pasted
        elif own is not None and settings.corpus == "paste":  # named, but its text went since (expired meanwhile)
            user_files.lost(user_files.PASTE)


def _apply_corpus_defaults() -> None:
    d = defaults_for(st.session_state[setting_key("corpus")], st.session_state[setting_key("algorithm")])
    for field in (*SUGGESTED, *UNIGRAM_SUGGESTED):
        st.session_state[setting_key(field)] = getattr(d, field)
    st.session_state[STEP] = 1
    for key in (HELDOUT, kept(HELDOUT), FOLLOW, kept(FOLLOW)):
        st.session_state.pop(key, None)


def use_corpus(corpus_id: str, algorithm: str | None = None, **settings: object) -> None:
    """A button's callback that trains the sidebar on another corpus (with `algorithm`, when given), with that
    corpus's suggested settings and `settings` over them."""
    st.session_state[setting_key("corpus")] = corpus_id
    if algorithm is not None:
        st.session_state[setting_key("algorithm")] = algorithm
        st.session_state[_LAST_ALGORITHM] = algorithm
    _apply_corpus_defaults()
    for field, value in settings.items():
        st.session_state[setting_key(field)] = value


def set_setting(field: str, value: object) -> None:
    """A button's callback that changes one sidebar setting (the sidebar, drawn next, trains with it)."""
    st.session_state[setting_key(field)] = value


def _reset_step() -> None:
    st.session_state[STEP] = 1


def _apply_algorithm_defaults() -> None:
    """To Unigram or back: the corpus's suggested settings for it (Unigram's sizes, <unk> and Metaspace differ)."""
    now = st.session_state[setting_key("algorithm")]
    if ALGORITHM_INFO[now].step != ALGORITHM_INFO[st.session_state.get(_LAST_ALGORITHM, "wordpiece")].step:
        d = defaults_for(st.session_state[setting_key("corpus")], now)
        for field in ("vocab_size", "pre_tokenizer", "specials", "unigram_rule", "whole_words"):
            st.session_state[setting_key(field)] = getattr(d, field)
    st.session_state[_LAST_ALGORITHM] = now
    _reset_step()


def sidebar(locked: str = "") -> Settings:
    """Draw the shared controls and return the settings they hold (`locked`: why they cannot be changed now)."""
    init_from_url()
    st.session_state[_LINK_WARNINGS_DRAWN] = False  # a problem found before the warnings are drawn waits for them
    ids = [s.id for s in samples()] + list(CUSTOM_LABELS)
    # In the box, the title without its source ("Turkish, 10,000 words"): the whole title is cut short at the
    # sidebar's width; the description under the box names the source.
    titles = {s.id: s.title.removesuffix(" (wordfreq)") for s in samples()} | CUSTOM_LABELS
    sb = st.sidebar
    lock = bool(locked)
    if lock:
        sb.info(locked, icon=":material/lock:")
    sb.selectbox("Corpus", ids, format_func=lambda i: titles[i], key=setting_key("corpus"), on_change=_apply_corpus_defaults, disabled=lock)
    corpus = st.session_state[setting_key("corpus")]
    sample = sample_by_id(corpus)
    own = None  # a pasted or uploaded corpus, as the data store keeps it
    if sample is not None:
        sb.caption(sample.description)
    elif corpus == "paste":
        keep(PASTE_TEXT, "")  # kept for the session when another corpus is chosen in between
        sb.text_area(
            f"Your text (up to {MAX_PASTE_CHARS:,} characters; one document per line)",
            key=PASTE_TEXT, height=160, max_chars=MAX_PASTE_CHARS, on_change=remember, args=(PASTE_TEXT,), disabled=lock,
            placeholder="Paste some text, then press Ctrl+Enter or click outside the box.",
        )
        own = user_files.pasted(st.session_state[PASTE_TEXT] or "")
    else:
        sb.file_uploader(
            f"A .txt file (UTF-8 text) or a .tsv of word<TAB>count lines, up to {MAX_UPLOAD_MB} MB "
            f"and {MAX_WORD_TYPES:,} distinct words",
            type=["txt", "tsv"], key=UPLOAD_FILE, disabled=lock, max_upload_size=MAX_UPLOAD_MB,
        )
        own = user_files.uploaded(user_files.UPLOAD, st.session_state.get(UPLOAD_FILE))
        if own is not None and st.session_state.get(UPLOAD_FILE) is None:  # the link's file, not one chosen here
            sb.caption(f"Using {safe.md(own.name)} ({user_files.size_text(own.size)}); upload a file to use "
                       "another.")
    if (line := user_files.not_saved_line(own)) is not None:
        sb.warning(line, icon=":material/cloud_off:")
    sb.radio("Algorithm", ALGORITHMS, format_func=ALGORITHM_LABELS.get, key=setting_key("algorithm"), horizontal=True,
             on_change=_apply_algorithm_defaults, disabled=lock)
    algorithm = ALGORITHM_INFO[st.session_state[setting_key("algorithm")]]  # its own settings are drawn below
    st.session_state[_LAST_ALGORITHM] = algorithm.name
    rounds = algorithm.step == "round"  # removes pieces round by round (Unigram) rather than merging pairs
    if "unigram_rule" in algorithm.options:
        sb.radio("Unigram rule", UNIGRAM_RULES, format_func=RULE_LABELS.get, key=setting_key("unigram_rule"),
                 horizontal=True, on_change=_reset_step, disabled=lock,
                 help="tokenizers: as Hugging Face's UnigramTrainer trains (EM, pruning by an estimated loss); "
                      "the course's loop: every piece's exact loss increase, the cheapest 10 % removed a round.")
        if "whole_words" in RULE_OPTIONS[st.session_state[setting_key("unigram_rule")]]:
            sb.checkbox("Seed whole words too", key=setting_key("whole_words"), on_change=_reset_step, disabled=lock,
                        help="The course's code seeds whole words as well as their substrings; its worked example "
                             "(the toy words) seeds only substrings shorter than a word.")
    sb.number_input("Vocabulary size", 1, MAX_VOCAB, step=1 if rounds else 10, key=setting_key("vocab_size"),
                    on_change=_reset_step, disabled=lock,
                    help=f"Training stops here, or earlier when no pair is left (1 to {MAX_VOCAB:,})." if not rounds
                    else f"{algorithm.label} removes pieces until this size; every character stays.")
    is_tsv = sample is not None and sample.is_word_counts or (
        corpus == "upload" and own is not None and own.name.lower().endswith(".tsv"))
    text_help = "Word-count files are used as they are: no normalizer or pre-tokenizer." if is_tsv else None
    sb.selectbox("Normalizer", NORMALIZERS, key=setting_key("normalizer"), disabled=is_tsv or lock, on_change=_reset_step, help=text_help or
                 "none; lowercase; bert = clean, CJK spacing, strip accents and lowercase; bert-cased = the same without lowercasing.")
    pre_tokenizers = algorithm.pre_tokenizers
    if st.session_state.get(setting_key("pre_tokenizer")) not in pre_tokenizers:
        st.session_state[setting_key("pre_tokenizer")] = "whitespace"
    sb.selectbox("Pre-tokenizer", pre_tokenizers, key=setting_key("pre_tokenizer"), disabled=is_tsv or lock, on_change=_reset_step, help=text_help or
                 "How text is cut into words before training (Hugging Face's Whitespace, WhitespaceSplit, BertPreTokenizer, ByteLevel"
                 + ("; Metaspace, SentencePiece's: ▁ before each word)." if UNIGRAM_PRE_TOKENIZER in pre_tokenizers
                    else ")."))
    if st.session_state[setting_key("pre_tokenizer")] == "byte-level" and not is_tsv:
        sb.checkbox("All 256 bytes in the alphabet", key=setting_key("byte_alphabet"), on_change=_reset_step, disabled=lock,
                    help="Start from every byte value, as GPT-2 does, so any text can be spelled; otherwise only "
                         "the bytes seen in the corpus, and other characters are dropped when encoding.")
        sb.checkbox("Add a prefix space", key=setting_key("prefix_space"), on_change=_reset_step, disabled=lock,
                    help="Put a space before the text, so its first word is spelled like every other word (Ġword).")
    if "tie_break" in algorithm.options:
        sb.radio("Tie-break", TIE_BREAKS, key=setting_key("tie_break"), horizontal=True, on_change=_reset_step, disabled=lock,
                 format_func={"first": "first seen (course)", "hf": "smallest ids (HF)"}.get,
                 help="Which pair wins when several share the best score.")
    if "min_frequency" in algorithm.options:
        sb.number_input("Min pair frequency", 0, MAX_MIN_FREQUENCY, step=1, key=setting_key("min_frequency"), on_change=_reset_step, disabled=lock,
                        help="Pairs seen fewer times are never merged (0 = no limit).")
    sb.selectbox("Special tokens", list(SPECIALS), format_func=SPECIALS_LABELS.__getitem__, key=setting_key("specials"), on_change=_reset_step, disabled=lock,
                 help="Put at the start of the vocabulary; they count towards its size.")
    if _page() == st.session_state.get(_LINK_PAGE):  # (another page of the app is not the link's to speak for)
        for problem in st.session_state.get(URL_PROBLEMS, []):
            _link_warning(problem)
    st.session_state[_LINK_WARNINGS_DRAWN] = True
    return Settings(**{f: st.session_state.get(setting_key(f), False) if f in BYTE_FIELDS else
                       st.session_state.get(setting_key(f), getattr(Settings(), f)) for f in FIELDS},
                    corpus_id=own.id if own is not None else "")


def kept(key: str) -> str:
    """Where `keep` remembers a page widget's value while the widget is not drawn."""
    return "keep_" + key


def _page() -> str:
    """The page this run draws (its script's hash)."""
    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def _link_warning(problem: str) -> None:
    st.sidebar.warning("Link: " + safe.md(problem))


def keep(key: str, default: object, kind: type = str, limit: int = LINK_TEXT_CHARS) -> None:
    """Prepare a page widget's state: from the URL on the session's first visit, then
    remembered across page switches (Streamlit forgets widgets that are not drawn).
    Pass `on_change=remember, args=(key,)` to the widget. A text from the URL longer than
    `limit` characters is cut there, and the sidebar says so with the link's other problems."""
    store = kept(key)
    if store not in st.session_state:
        raw = st.query_params.get(key) if not st.session_state.get(f"_url_used_{key}") else None
        st.session_state[f"_url_used_{key}"] = True
        if raw is None:
            value = default
        elif kind is bool:
            value = raw not in ("0", "false", "no", "")
        else:
            value = raw
            if len(raw) > limit:
                value = raw[:limit]
                problem = (f"{key} has {len(raw):,} characters; a link carries at most {limit:,}, "
                           f"so its first {limit:,} are used")
                st.session_state.setdefault(URL_PROBLEMS, []).append(problem)
                if st.session_state.get(_LINK_WARNINGS_DRAWN):  # a page's text: said now, and from the next run on
                    _link_warning(problem)
        st.session_state[store] = value
    if key not in st.session_state:
        st.session_state[key] = st.session_state[store]


def hold(key: str, default: object) -> None:
    """Keep a widget's value while the widget is not drawn (a closed panel, a hidden quiz step,
    another page): Streamlit forgets the state of a widget a run does not draw, and after a page
    switch it may still list the key but draw the widget at its default. So the remembered value is
    set before every full run; each change by hand is remembered first, by the widget's
    `on_change=remember, args=(key,)`. Unlike `keep`, nothing is read from the URL."""
    store = kept(key)
    if store not in st.session_state:
        st.session_state[store] = default
    st.session_state[key] = st.session_state[store]


def panel(label: str, icon: str, key: str, then: Callable[[], None] | None = None):
    """A closed-by-default expander whose content the page draws only while it is open (`.open`).

    Its state is kept (`remember`) while it is not drawn: a hidden quiz step, presenter mode, another
    page. It comes back through `expanded`, which a browser takes from a panel it draws anew (the
    widget's own state, set before the panel is drawn, would not open it). `then`: called after each
    opening or closing (a panel's content may keep what its widgets hold before they go)."""
    return st.expander(label, expanded=bool(st.session_state.get(kept(key))), icon=icon, key=key,
                       on_change=remember, args=(key, then))


def is_open(key: str) -> bool:
    """Whether the panel `key` is open, before it is drawn in this run."""
    return bool(st.session_state.get(key, st.session_state.get(kept(key), False)))


def presenting() -> bool:
    """Presenter mode is on: the Train page's toggle, or `present=1` in the link on a first visit."""
    if kept(PRESENT) in st.session_state:
        return bool(st.session_state[kept(PRESENT)])
    return st.query_params.get(PRESENT) not in (None, "0", "false", "no", "")


def remember(key: str, then: Callable[[], None] | None = None) -> None:
    st.session_state[kept(key)] = st.session_state[key]
    if then is not None:
        then()


def public_origin() -> str:
    """The app's server as students reach it, without `server.baseUrlPath`: the app's own routes (the class
    room's phone page) are served at the server's root whatever the pages' base path."""
    root = public_root()
    base_path = (st.get_option("server.baseUrlPath") or "").strip("/")
    return root[: -len(base_path) - 1] if base_path and root.endswith("/" + base_path) else root


def public_root() -> str:
    """The app's address as students reach it.

    `--browser.serverAddress` (and `--browser.serverPort`) name the address other
    machines use, e.g. the teacher's laptop on the room's network; without them, the
    address this browser used.
    """
    if streamlit_config.is_manually_set("browser.serverAddress"):
        host = st.get_option("browser.serverAddress")
        port = st.get_option("browser.serverPort")
        base_path = (st.get_option("server.baseUrlPath") or "").strip("/")
        root = f"http://{host}:{port}" + (f"/{base_path}" if base_path else "")
        return root
    base = (st.context.url or "http://localhost:8501/").split("?", 1)[0].rstrip("/")
    return base.rsplit("/", 1)[0] if base.endswith(("/compare", "/playground", "/corpora")) else base


def page_url(settings: Settings, page: str = "", **extra: object) -> str:
    params = settings.to_query() | {k: str(v) for k, v in extra.items() if v is not None}
    return f"{public_root()}/{page}?{urlencode(params)}"


def only_this_computer(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


@functools.lru_cache(maxsize=64)
def qr_png(url: str) -> bytes:
    """A QR code of `url` as a PNG, large enough to scan from the back of a room."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=10, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


def room_params() -> dict[str, str]:
    """What the address bar carries of this session's class room, on every page: its code, and a student's own
    token (so a reload keeps their name and votes) or the teacher's `role=teacher` (never the teacher's token)."""
    code = st.session_state.get(ROOM)
    if not code:
        return {}
    if st.session_state.get(ROOM_TEACHER):
        return {"room": code, "role": "teacher"}
    return {"room": code, "student": st.session_state.get(ROOM_STUDENT, "")}


def sync_url(settings: Settings, **extra: object) -> None:
    """Make the address bar describe the current view (the shareable link), and this session's class room."""
    params = settings.to_query() | {k: str(v) for k, v in extra.items() if v is not None} | room_params()
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != params:
        st.query_params.from_dict(params)


def _share_contents(settings: Settings, url: str, page: str, qr_at_once: bool, room_link: bool = False) -> None:
    if qr_at_once:  # presenter mode: the room scans first
        st.image(qr_png(url), caption="Scan to open this view" if not room_link else "Scan to join the class",
                 width=280)
    if room_link:
        st.caption("The class room's link: whoever opens it joins the room as a student, with a name of their own.")
    else:
        if settings.corpus in CUSTOM_LABELS:
            st.caption(user_files.share_note(settings.corpus))
        st.caption("The link opens this page with these settings (copy it with the button at its right).")
    st.code(url, language=None, wrap_lines=True)
    if only_this_computer(url):
        st.info("This address only works on this computer. To share it with a room, start the app with "
                "`--server.address 0.0.0.0 --browser.serverAddress` followed by this computer's address on "
                "the room's network (README: *Serving a class*).", icon=":material/info:")
    # Drawn on demand otherwise: a QR code costs as much as the rest of a step.
    if not qr_at_once and st.toggle("QR code for the room", key=f"qr {page}",
                                    help="A code to scan from the back of the room."):
        st.image(qr_png(url), caption="Scan to join the class" if room_link else "Scan to open this view", width=320)


def share_box(settings: Settings, page: str = "", **extra: object) -> None:
    """An expander with the link to this view and, on demand, its QR code."""
    url = page_url(settings, page, **extra)
    with st.expander("Share this view: a link and a QR code that open exactly this view", icon=":material/link:"):
        _share_contents(settings, url, page, qr_at_once=False)


def share_button(settings: Settings, page: str = "", qr_at_once: bool = False, url: str | None = None,
                 **extra: object) -> None:
    """A "Share" button that opens the link to this view (and its QR code) in one click; `url`, when given,
    is shared instead (a class room's student link: never a student's own token)."""
    link = url or page_url(settings, page, **extra)
    # Drawn only while open (the link is then the view on screen): a step redraws this button.
    with st.popover("Share", icon=":material/link:", key=f"share_open {page}", on_change="rerun",
                    help="A link and a QR code that open exactly this view") as panel:
        if panel.open:
            _share_contents(settings, link, page, qr_at_once, room_link=url is not None)


def compared_algorithms() -> list[str]:
    """The Compare page's algorithms: the multiselect's, taken from the link's `algorithms` on the first visit
    (a bad value is said once, in words). Kept while the page is not shown."""
    store = kept(COMPARE_PICK)
    if store not in st.session_state:
        chosen, problem = parse_algorithms(st.query_params.get(COMPARED))
        st.session_state[store] = chosen
        if problem:
            st.session_state.setdefault(URL_PROBLEMS, []).append(problem)
            st.warning("Link: " + safe.md(problem))
    st.session_state[COMPARE_PICK] = list(st.session_state[store])
    picked = [a for a in COMPARABLE if a in st.session_state[store]]
    return picked if len(picked) >= 2 else ["bpe", "wordpiece"]


def compare_control() -> None:
    """Which algorithms the page compares (two or three)."""
    def changed() -> None:
        value = st.session_state[COMPARE_PICK]
        if len(value) >= 2:
            st.session_state[kept(COMPARE_PICK)] = list(value)

    st.multiselect("Compare", list(COMPARABLE), key=COMPARE_PICK, format_func=ALGORITHM_NAMES.__getitem__,
                   max_selections=3, on_change=changed,
                   help="Two or three algorithms, trained on the same corpus words. The merge timelines and the "
                        "token-following chart need BPE and WordPiece alone.")
    if len(st.session_state[COMPARE_PICK]) < 2:
        st.caption("Pick at least two: the page keeps the last two or three you picked.")
