"""The session's own files: pasted text, uploaded corpora and the playground's tokenizer files.

Each is kept in the app's data store (datastore.py) under the digest of its content as soon as it is
seen; the session then keeps only what names it (a `StoredFile`: no bytes), and an upload's bytes
are released from Streamlit's memory at once. Links name a file by its id, the digest's first 16
hexadecimal digits (`corpus_id` beside `corpus=paste|upload`, `tokenizer_id` on the playground),
so a view opens again after the server restarts, and for anyone who has the link. A link whose
file has gone gets one line saying to paste or upload it again.

An uploader's state is an `UploadedFile` (new: kept, then released), None (nothing chosen, or the
student removed it) or a `DeletedFile`: a file released here, or one uploaded before the server
restarted. The session's keys are named here, beside what they hold (state.py names the others).
"""

from __future__ import annotations

import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError

from . import counting
from .corpora import MAX_PASTE_CHARS, PASTE_NAME, WordCounts
from .datastore import DataStore, StoredFile, content_digest
from .settings import file_id as link_file_id

PASTE, UPLOAD, TOKENIZER = "paste", "upload", "tokenizer"
USE_MARK_SECONDS = 3600  # a session marks its own file in use at most this often (the expiry counts from a use)
TOKENIZER_LINK = "tokenizer_id"  # the playground's link parameter (a corpus' is settings.py's corpus_id)
_AGAIN = {PASTE: "paste the text into the box in the sidebar again", UPLOAD: "upload the file again",
          TOKENIZER: "upload the tokenizer file again"}


def _current(kind: str) -> str:
    return f"own {kind}"  # → the StoredFile the session uses


def _uploaded(kind: str) -> str:
    return f"own {kind} upload"  # → the uploader's file id kept last (released since)


def _gone(kind: str) -> str:
    return f"own {kind} gone"  # → the line saying that the link's file (or an upload) is no longer here


_TOKENIZER_LINK_READ = "own tokenizer link read"  # the playground's link was read (on its first visit)


@st.cache_resource(show_spinner=False)
def data_store() -> DataStore:
    """The server's one data store ($WORDPIECE_LAB_DATA), opened on the first visit."""
    return DataStore()


def current(kind: str) -> StoredFile | None:
    """The session's own file of this kind, marked in use (at most once an hour a session: a use is a write)."""
    own = st.session_state.get(_current(kind))
    if own is not None:
        used = f"_used {own.digest}"
        if time.time() - st.session_state.get(used, 0.0) > USE_MARK_SECONDS:
            st.session_state[used] = time.time()
            data_store().touch(own)
    return own


def _keep(kind: str, name: str, data: bytes) -> StoredFile:
    kept = data_store().put(kind, name, data)
    st.session_state[_current(kind)] = kept
    st.session_state.pop(_gone(kind), None)
    return kept


def made(kind: str, name: str, data: bytes) -> StoredFile:
    """A file the app made for the session (a mix of the parallel text's languages), kept as an upload is: the
    sidebar then trains on it, and the link names it by its digest."""
    st.session_state.pop(_uploaded(kind), None)
    return _keep(kind, name, data)


def pasted(text: str) -> StoredFile | None:
    """The pasted text as a kept file (kept when it is new), or None when the box is empty."""
    if not text.strip():
        st.session_state.pop(_current(PASTE), None)
        return None
    data = text.encode("utf-8", "surrogatepass")
    own = current(PASTE)
    if own is not None and own.digest == content_digest(data):
        return own
    return _keep(PASTE, PASTE_NAME, data)


def uploaded(kind: str, value: object) -> StoredFile | None:
    """The file of an uploader (`kind` UPLOAD or TOKENIZER) from its state `value` (see the module docstring):
    a new file is kept and released from Streamlit's memory."""
    getvalue, file_id = getattr(value, "getvalue", None), getattr(value, "file_id", None)
    if value is None:
        if st.session_state.pop(_uploaded(kind), None) is not None:  # removed by the student who uploaded it
            st.session_state.pop(_current(kind), None)
    elif getvalue is None:  # released: the kept file stays in use; uploaded before a restart: gone
        if current(kind) is None:
            st.session_state[_gone(kind)] = f"The file uploaded before the server restarted is no longer here: {_AGAIN[kind]}."
    elif file_id != st.session_state.get(_uploaded(kind)):
        kept = _keep(kind, str(getattr(value, "name", "") or "upload"), getvalue())
        st.session_state[_uploaded(kind)] = file_id
        _release(str(file_id))
        return kept
    return current(kind)


def _release(file_id: str) -> None:
    """Drop an upload's bytes from Streamlit's memory (kept in the data store now): without this, they
    stay until the session ends, minutes after its tab is closed. The uploader keeps showing its name."""
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "uploaded_file_mgr", None)
    if ctx is not None and manager is not None:
        manager.remove_file(session_id=ctx.session_id, file_id=file_id)


def from_link(kind: str, file_id: str) -> StoredFile | None:
    """The kept file a link names by its id (settings.file_id's form), now the session's; None when
    it has gone (the page then says so: `gone_line`)."""
    found = data_store().find(file_id)
    if found is not None and ((found.kind == TOKENIZER) != (kind == TOKENIZER)
                              or (kind == PASTE and found.size > 4 * MAX_PASTE_CHARS)):
        found = None  # a corpus named as a tokenizer file (or the other way), or a file too large for the box
    if found is None:
        lost(kind)
        return None
    st.session_state[_current(kind)] = found
    return found


def lost(kind: str) -> None:
    """The link's file of this kind is no longer here: the page says so in one line (`gone_line`), and it is not
    the session's file."""
    what = "tokenizer file" if kind == TOKENIZER else "corpus"
    st.session_state.pop(_current(kind), None)
    st.session_state[_gone(kind)] = (f"The {what} in this link is no longer kept on this server (files are "
                                     f"kept {data_store().days:g} days after their last use): {_AGAIN[kind]}.")


def tokenizer_file(value: object) -> StoredFile | None:
    """The playground's tokenizer file, from its uploader's state `value`: the one uploaded, else the
    link's (`tokenizer_id`, read on the session's first visit)."""
    if not st.session_state.get(_TOKENIZER_LINK_READ):
        st.session_state[_TOKENIZER_LINK_READ] = True
        raw = st.query_params.get(TOKENIZER_LINK)
        if raw is not None:
            found, problem = link_file_id(TOKENIZER_LINK, raw)
            if problem is not None:
                st.session_state[_gone(TOKENIZER)] = "Link: " + problem + "."
            else:
                from_link(TOKENIZER, found)
    return uploaded(TOKENIZER, value)


def text(own: StoredFile) -> str | None:
    """A kept text (a paste, to put back in its box), or None if it has gone."""
    data = data_store().read(own.digest)
    return None if data is None else data.decode("utf-8", "replace")


def read(own: StoredFile) -> bytes:
    """A kept file's content (a tokenizer file, to load it); WordPieceError when it has gone."""
    data = data_store().read(own.digest)
    if data is None:
        raise WordPieceError(counting.gone(own))
    return data


def count(own: StoredFile, text_settings: TextSettings) -> WordCounts:
    """A kept corpus' word counts, counted in a worker process (counting.py)."""
    store = data_store()
    data = None if own.saved else read(own)  # kept only in this server's memory: handed to the worker
    return counting.count(counting.Request(own, text_settings, store.path, store.max_age, data))


def gone_line(kind: str) -> str | None:
    """The one line for a link's file (or an upload from before a restart) that is no longer here."""
    return st.session_state.get(_gone(kind))


def not_saved_line(own: StoredFile | None) -> str | None:
    """One line when `own` is kept only until the server restarts, saying why; None when it is saved."""
    if own is None or own.saved:
        return None
    return f"Not kept across a restart of the server: {own.why_not_saved or 'the data folder cannot be used'}."


def share_note(kind: str) -> str:
    """What the Share box says of a pasted or uploaded corpus and its link."""
    own, noun = current(kind), "text" if kind == PASTE else "file"
    if own is None:
        return f"Your own {noun} is not in the link yet: {'paste' if kind == PASTE else 'upload'} it first."
    if not own.saved:
        return (f"The link names your {noun} (corpus_id), but this server cannot save it: the link works until "
                "the server restarts.")
    return (f"The link names your {noun} by its digest (corpus_id): it opens the same corpus on this server for "
            f"anyone who has the link, also after a restart, until it has gone unused for {data_store().days:g} days.")


def size_text(nbytes: int) -> str:
    """A file's size for a person: 812 bytes, 14 KB, 1.5 MB."""
    if nbytes < 1000:
        return f"{nbytes:,} bytes"
    if nbytes < 1_000_000:
        return f"{nbytes / 1000:,.0f} KB"
    return f"{nbytes / 1e6:,.1f} MB"
