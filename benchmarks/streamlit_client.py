"""A headless Streamlit client: one simulated browser tab, speaking Streamlit's websocket protocol.

Used by `bench_class.py`. It does on the wire what the browser's JavaScript does, as read
in the installed Streamlit (server: `runtime/app_session.py`, `runtime/scriptrunner/`,
`web/server/starlette/starlette_websocket.py`; browser: the bundled `static/js`) and
checked against the frames a headless Chromium sends; it draws nothing. The websocket is
the `websockets` package's asyncio client, which Streamlit installs (Streamlit 1.67 serves
with Starlette/uvicorn and no longer brings tornado).

- Connect to `ws://HOST:PORT/_stcore/stream` (subprotocol "streamlit"). The server says
  nothing until the client asks for a run: the browser's first BackMsg is `rerun_script`
  with the URL's query string, `page_name` = the URL's path ("" for the default page), an
  empty `page_script_hash`, no widget states and its `context_info` (url, timezone, ...).
- Every run starts with a `new_session` ForwardMsg (session id; `metadata.run` names the
  run and, in `fragment_ids`, the fragments it reruns; empty = a full run) and ends with
  `script_finished` carrying the same run identity. FINISHED_EARLY_FOR_RERUN means
  another run follows at once (a callback, `st.rerun()`), so it completes nothing, with
  one exception: when a run starts before the previous run's messages were sent, the
  server turns the previous run's FINISHED_FRAGMENT_RUN_SUCCESSFULLY into
  FINISHED_EARLY_FOR_RERUN (`forward_msg_queue._update_script_finished_message`). A
  fragment run is never interrupted by another fragment's rerun (only a full rerun or
  `st.rerun(scope="fragment")`, which the app does not use, preempts it), so a fragment
  run "finished early" that is followed by a run of other fragments did complete: a
  click waiting for it completes then (with the time its `script_finished` arrived).
  Without this, a vote whose run ends just as a student's 1-second poll starts would
  never complete. Likewise a run that never gets its `script_finished` at all: the
  server (Streamlit 1.67) drops the remaining events of a ScriptRunner that is no longer
  the session's current one ("Ignoring event from non-current ScriptRunner" in its debug
  log), and a fragment rerun that arrives after the runner stopped, while its last
  messages still wait on the server's event loop, starts a new runner. One script runs at
  a time per session, so a run still open when the next one starts has ended: the client
  counts it (`unfinished_runs`) and treats it as above (complete at its last message, if
  the next run is of other fragments).
- Later reruns carry the page the server reported (`navigation.page_script_hash`), the
  query string the app last set (`page_info_changed`), and the value of every widget drawn
  so far, as the browser's widget manager holds them: the value the server forced
  (`set_value`), else the one already held, else the widget's default.
- A button click is that rerun plus a WidgetState with `trigger_value=True` for the
  button's id. A button drawn inside an `st.fragment` (its delta has a `fragment_id`) is
  sent as a fragment rerun: the same message with `ClientState.fragment_id` set, so the
  server reruns only that fragment. The click is complete when a run that started after
  it, for that fragment (or a full run), finishes.
- `st.fragment(run_every=...)`: the server sends `auto_rerun` (fragment id, interval) and
  the browser then sends that fragment's rerun (`is_auto_rerun=True`) on a timer, until a
  full run starts (which clears every timer) or `stop_auto_rerun` names the fragment.
- Messages the client declares in `cached_message_hashes` come back as `ref_hash`
  references. Like the browser, the client keeps the "cacheable" messages it receives (the
  server marks new elements above `global.minCachedMessageSize`), declares their hashes,
  drops them after `max_cached_message_age` runs without use, and resolves references from
  them. `declare_cache=False` declares none, so no references come.
- A download button whose data is a callable carries a `deferred_file_id`. Clicking it
  sends a `backend_operation_request` BackMsg (request id, session id, file id); the server
  runs the callable and answers with a `backend_operation_response` holding a media URL,
  which the browser then fetches over HTTP (`GET /media/<id>`). No rerun is involved
  (`on_click="ignore"`).
- Choosing a radio's option (`choose`) is the rerun the browser sends on a widget's change:
  every widget's value with the radio's new `string_value` (the option's text), as a
  fragment rerun when the radio's delta has a `fragment_id`. Opening or closing a popover
  that tracks its state (`on_change="rerun"`: its block carries an id) is the same with
  the popover's `bool_value` (`set_popover`).
- The client keeps the texts on the page (headings, Markdown and captions, alerts, code
  blocks) by their delta path, with when each arrived, and drops those a finished run no
  longer drew, as the browser drops stale elements; `wait_for_text` waits until a text
  matching a pattern arrives (or is there already, if it arrived after `since`). `link`
  is the page and the query string the app last set: what a reload would reopen.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from websockets.asyncio.client import connect

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED_EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class ProtocolError(RuntimeError):
    """The server said something this client cannot handle (or never answered)."""


@dataclass
class Run:
    """What a page load or a click took: until the run it caused completed."""

    seconds: float
    status: int  # ForwardMsg.ScriptFinishedStatus of the completing run
    fragment: bool  # the completing run reran fragments only
    runs: int  # script runs started meanwhile (> 1 with callbacks' reruns, st.rerun(), auto-reruns)
    progress_updates: int  # st.progress elements received meanwhile (a training's progress bar)
    errors: list[str]  # st.exception and st.error elements received meanwhile


@dataclass
class Button:
    id: str
    fragment_id: str
    disabled: bool
    deferred_file_id: str = ""


@dataclass
class Radio:
    id: str
    fragment_id: str
    options: list[str]
    disabled: bool


@dataclass
class Popover:
    id: str  # "" when the popover does not track its state (no rerun when it opens)
    fragment_id: str
    open: bool


@dataclass
class Text:
    """A text element on the page: `kind` is heading, markdown, caption, code, or the alert's
    format in lower case (success, info, warning, error)."""

    kind: str
    body: str
    at: float  # time.perf_counter() when its delta arrived
    fragment_id: str


@dataclass
class _TextWaiter:
    pattern: re.Pattern
    kinds: tuple[str, ...] | None
    since: float
    future: asyncio.Future


@dataclass
class _Waiter:
    """Someone waiting for a run that starts after `after_run` and covers `fragment_id`."""

    after_run: int  # runs started before the request
    fragment_id: str  # "" = only a full run will do
    ready: Callable[[], bool] | None  # also wait until this holds after a run (page loads)
    start: float
    progress: int  # progress updates and errors received before the request
    errors: int
    future: asyncio.Future


@dataclass
class _OpenRun:
    number: int
    fragment_ids: list[str]
    last_at: float  # when its last message arrived
    deltas: int = 0


@dataclass
class _CachedMessage:
    payload: bytes
    last_run: int
    fragment_id: str


class _MessageCache:
    """The browser's ForwardMsg cache: cacheable messages by hash, aged in script runs."""

    def __init__(self) -> None:
        self._messages: dict[str, _CachedMessage] = {}
        self._run_count = 0
        self.max_age = 2  # replaced by new_session.config.max_cached_message_age

    def hashes(self) -> list[str]:
        return list(self._messages)

    def store(self, msg: ForwardMsg, payload: bytes) -> None:
        if msg.metadata.cacheable and msg.hash and msg.hash not in self._messages:
            self._messages[msg.hash] = _CachedMessage(payload, self._run_count, msg.delta.fragment_id)

    def resolve(self, ref: ForwardMsg) -> ForwardMsg:
        cached = self._messages.get(ref.ref_hash)
        if cached is None:
            raise ProtocolError(f"the server referred to message {ref.ref_hash}, which this client never cached")
        cached.last_run = self._run_count
        msg = ForwardMsg()
        msg.ParseFromString(cached.payload)
        msg.metadata.CopyFrom(ref.metadata)
        return msg

    def run_finished(self, fragment_ids: list[str]) -> None:
        """Age the cache by one run; a fragment run ages only that fragment's messages."""
        self._run_count += 1
        for key, entry in list(self._messages.items()):
            if fragment_ids and entry.fragment_id not in fragment_ids:
                continue
            if self._run_count - entry.last_run > self.max_age:
                del self._messages[key]


def _label_of_option(option) -> str:
    """How the browser names a segmented-control option (icon, then text)."""
    return f"{option.content_icon} {option.content}".strip() if option.content_icon else option.content


def _widget_value(kind: str, el, held: WidgetState | None) -> WidgetState | None:
    """The value the browser's widget manager holds for a widget just drawn, or None.

    A value forced by the script (`set_value`) wins; otherwise a value already held stays
    (the browser keeps what the user chose); otherwise the widget's default. Widget kinds
    not listed here are left out of the reruns, which makes the server keep their
    previous value, as it does for a widget the browser has not reported yet.
    """
    if held is not None and not getattr(el, "set_value", False):
        return held
    state = WidgetState(id=el.id)
    if kind in ("selectbox", "radio"):
        if el.set_value and el.HasField("raw_value"):
            state.string_value = el.raw_value
        elif el.HasField("default") and 0 <= el.default < len(el.options):
            state.string_value = el.options[el.default]
        else:
            return None
    elif kind == "number_input":
        value = el.value if el.set_value and el.HasField("value") else el.default
        if el.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind == "slider":
        values = list(el.value if el.set_value else el.default)
        if el.options:  # st.select_slider: the options' labels
            state.string_array_value.data.extend(el.options[int(v)] for v in values)
        else:
            state.double_array_value.data.extend(values)
    elif kind == "checkbox":
        state.bool_value = el.value if el.set_value else el.default
    elif kind == "button_group":
        if el.set_value:
            values = list(el.raw_values)
        else:
            values = [_label_of_option(el.options[i]) for i in el.default if 0 <= i < len(el.options)]
        state.string_array_value.data.extend(values)
    elif kind in ("text_area", "text_input"):
        if el.set_value and el.HasField("value"):
            state.string_value = el.value
        elif el.HasField("default"):
            state.string_value = el.default
        else:
            return None
    else:
        return None
    return state


_STEP_HEADING = re.compile(r"Step ([\d,]+) of ([\d,]+)")  # the Train page's step heading (Markdown)
_VALUE_WIDGETS = {"selectbox", "radio", "number_input", "slider", "checkbox", "button_group", "text_area",
                  "text_input"}


class StreamlitClient:
    """One browser tab on one page of a Streamlit app (no rendering, just the protocol).

        client = StreamlitClient("http://127.0.0.1:8501", "/?corpus=course-toy")
        load = await client.open()          # connect + first complete run
        step = await client.click("Next")   # trigger + the (fragment) run it causes
        size, seconds = await client.download("trace.jsonl")
        await client.close()
    """

    def __init__(self, base_url: str, link: str = "/", *, declare_cache: bool = True,
                 run_timeout: float = 300.0) -> None:
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(link)
        self.page_name = parts.path.strip("/")
        self.query_string = parts.query
        self.declare_cache = declare_cache
        self.run_timeout = run_timeout
        self.session_id = ""
        self.page_script_hash = ""
        self.step_heading = ""  # the Train page's last "Step k of n: ..." heading
        self.buttons: dict[str, Button] = {}  # by label
        self.file_uploaders: dict[str, tuple[str, str]] = {}  # label → (widget id, fragment id)
        self.text_boxes: dict[str, tuple[str, str, int]] = {}  # label → (widget id, fragment id, max_chars or 0)
        self.radios: dict[str, Radio] = {}  # by label
        self.popovers: dict[str, Popover] = {}  # by label
        self.connected = False
        self._texts: dict[tuple[int, ...], Text] = {}  # by delta path
        self._texts_seen: set[tuple[int, ...]] = set()  # drawn by the run in progress
        self._text_waiters: list[_TextWaiter] = []
        self.errors: list[str] = []  # every st.exception and st.error received
        self.bytes_received = 0
        self._widgets: dict[str, WidgetState] = {}
        self._widget_fragment: dict[str, str] = {}
        self._seen_this_run: set[str] = set()
        self._runs_started = 0
        self._open_runs: dict[str, _OpenRun] = {}  # by script_run_id: runs started and not finished
        self.unfinished_runs = 0  # runs that ended without a script_finished (see the module docstring)
        self._run_fragment_ids: list[str] = []  # of the run in progress
        self._early: _OpenRun | None = None  # a fragment run that "finished early"
        self._trace: collections.deque[str] = collections.deque(maxlen=400)  # the last runs, for errors
        self._progress_updates = 0
        self._auto_reruns: dict[str, tuple[float, asyncio.Task]] = {}  # fragment id → (interval, timer)
        self._waiters: list[_Waiter] = []
        self._cache = _MessageCache()
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._requests: dict[str, asyncio.Future] = {}
        self._request_ids = itertools.count(1)

    # ------------------------------------------------------------------ actions

    async def open(self, ready: Callable[[StreamlitClient], bool] | None = None) -> Run:
        """Open the link: connect, ask for the first run, wait until it is complete.

        With `ready`, keep waiting (through the runs the page starts itself: callbacks,
        `st.rerun()`, auto-reruns) until a complete run leaves `ready(client)` true.
        """
        start = time.perf_counter()
        ws_url = "ws" + self.base_url[len("http"):] + "/_stcore/stream"
        self._ws = await connect(ws_url, subprotocols=["streamlit"], origin=self.base_url, proxy=None,
                                 max_size=None, open_timeout=self.run_timeout)
        self.connected = True
        self._reader = asyncio.create_task(self._read_forever())
        return await self._request_run(start, fragment_id="", ready=(lambda: ready(self)) if ready else None)

    async def click(self, label: str) -> Run:
        """Click the button with this label; return when the run it triggers is complete."""
        button = self.buttons.get(label)
        if button is None:
            raise ProtocolError(f"no button labelled {label!r} on the page (have: {sorted(self.buttons)})")
        if button.disabled:
            raise ProtocolError(f"button {label!r} is disabled")
        trigger = WidgetState(id=button.id, trigger_value=True)
        return await self._request_run(time.perf_counter(), fragment_id=button.fragment_id, trigger=trigger)

    async def choose(self, label: str, option: str) -> Run:
        """Choose `option` in the radio with this label, as a click on it does; return when the run it
        triggers (a fragment's, if the radio is in one) is complete."""
        radio = self.radios.get(label)
        if radio is None:
            raise ProtocolError(f"no radio labelled {label!r} on the page (have: {sorted(self.radios)})")
        if radio.disabled:
            raise ProtocolError(f"radio {label!r} is disabled")
        if option not in radio.options:
            raise ProtocolError(f"radio {label!r} has no option {option!r} (has: {radio.options})")
        start = time.perf_counter()
        self._widgets[radio.id] = WidgetState(id=radio.id, string_value=option)
        self._widget_fragment[radio.id] = radio.fragment_id
        return await self._request_run(start, fragment_id=radio.fragment_id)

    async def flood(self, label: str, seconds: float, pause: float = 0.002) -> int:
        """Choose the radio's options in turn as fast as the socket takes them for `seconds`, never waiting
        for a run (a client that hammers the vote); how many choices it sent."""
        radio = self.radios.get(label)
        if radio is None:
            raise ProtocolError(f"no radio labelled {label!r} on the page (have: {sorted(self.radios)})")
        sent, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            self._widgets[radio.id] = WidgetState(id=radio.id, string_value=radio.options[sent % len(radio.options)])
            self._widget_fragment[radio.id] = radio.fragment_id
            await self._send_rerun(radio.fragment_id)
            sent += 1
            await asyncio.sleep(pause)
        return sent

    async def type_text(self, label_start: str, text: str) -> Run:
        """Type `text` into the text box (st.text_area, st.text_input) whose label starts so, as a browser sends it:
        cut at the box's max_chars (the browser takes no more), the whole value at once when the box loses focus;
        return when the run it triggers is complete."""
        found = [label for label in self.text_boxes if label.startswith(label_start)]
        if not found:
            raise ProtocolError(f"no text box labelled {label_start!r}… (have: {sorted(self.text_boxes)})")
        widget_id, fragment_id, max_chars = self.text_boxes[found[0]]
        start = time.perf_counter()
        self._widgets[widget_id] = WidgetState(id=widget_id, string_value=text[:max_chars] if max_chars else text)
        self._widget_fragment[widget_id] = fragment_id
        return await self._request_run(start, fragment_id=fragment_id)

    async def set_popover(self, label: str, open_: bool = True) -> Run:
        """Open (or close) the popover with this label; it must track its state (`on_change="rerun"` or a
        callback), so the browser reruns the app (the fragment it is in) with its new `bool_value`."""
        popover = self.popovers.get(label)
        if popover is None:
            raise ProtocolError(f"no popover labelled {label!r} on the page (have: {sorted(self.popovers)})")
        if not popover.id:
            raise ProtocolError(f"popover {label!r} does not track its state: opening it reruns nothing")
        start = time.perf_counter()
        self._widgets[popover.id] = WidgetState(id=popover.id, bool_value=open_)
        self._widget_fragment[popover.id] = popover.fragment_id
        return await self._request_run(start, fragment_id=popover.fragment_id)

    def texts(self, kinds: tuple[str, ...] | None = None) -> list[Text]:
        """The texts on the page now (as of the last message received), in the page's order."""
        return [t for _, t in sorted(self._texts.items()) if kinds is None or t.kind in kinds]

    def find_text(self, pattern: re.Pattern | str, kinds: tuple[str, ...] | None = None,
                  since: float = float("-inf")) -> Text | None:
        """The first text on the page now that matches `pattern` (re.search) and arrived at or after `since`."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        for text in self.texts(kinds):
            if text.at >= since and pattern.search(text.body):
                return text
        return None

    async def wait_for_text(self, pattern: re.Pattern | str, timeout: float, *,
                            kinds: tuple[str, ...] | None = None, since: float = float("-inf")) -> Text:
        """Wait until a text matching `pattern` arrives (or is on the page already, if it arrived at or after
        `since`); return it, with its arrival time (`Text.at`). TimeoutError after `timeout` seconds;
        the connection's error if it closes meanwhile."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        found = self.find_text(pattern, kinds, since)
        if found is not None:
            return found
        if not self.connected:
            raise ProtocolError("not connected")
        waiter = _TextWaiter(pattern, kinds, since, asyncio.get_running_loop().create_future())
        self._text_waiters.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
        finally:
            if waiter in self._text_waiters:
                self._text_waiters.remove(waiter)

    def debug_state(self, since: float | None = None) -> str:
        """What this tab waits for, for an error message: runs started, the run in progress, the timers."""
        return (f"runs started {self._runs_started}, running {sorted(r.number for r in self._open_runs.values())} "
                f"(fragments {[f[:8] for f in self._run_fragment_ids]}), waiting for "
                f"{[(w.after_run, w.fragment_id[:8]) for w in self._waiters]}, timers "
                f"{[f[:8] for f in self._auto_reruns]}, connected {self.connected}; the last runs: "
                + " | ".join(list(self._trace)[-12:] if since is None else
                             [t for t in self._trace if float(t.split()[0]) >= since - 1.0][:30]))

    @property
    def link(self) -> str:
        """The page and the query string the app last set: the link a reload of this tab would open."""
        return f"/{self.page_name}" + (f"?{self.query_string}" if self.query_string else "")

    async def download(self, label: str) -> tuple[int, float]:
        """Click a deferred download button: (bytes downloaded, seconds from click to last byte)."""
        button = self.buttons.get(label)
        if button is None or not button.deferred_file_id:
            raise ProtocolError(f"no deferred download button labelled {label!r}")
        start = time.perf_counter()

        def fill(msg: BackMsg, request_id: str) -> None:
            msg.backend_operation_request.request_id = request_id
            msg.backend_operation_request.session_id = self.session_id
            msg.backend_operation_request.deferred_file.file_id = button.deferred_file_id
        response = await self._ask(fill)
        if response.error_msg:
            raise ProtocolError(f"deferred download failed: {response.error_msg}")
        url = urljoin(self.base_url + "/", response.deferred_file.url.lstrip("/"))
        size = await asyncio.to_thread(self._http_get_size, url)
        return size, time.perf_counter() - start

    async def upload(self, label: str, name: str, data: bytes, mime: str = "text/plain") -> Run:
        """Choose a file in the uploader with this label, as the browser does; return the run it triggers.

        The browser asks the session for an upload URL (BackMsg `file_urls_request`), PUTs the file
        there as multipart form data (with the XSRF cookie the page set and its token in a header),
        then reruns the script with the uploader's new value (the file's id, name, size and URLs)."""
        found = self.file_uploaders.get(label)
        if found is None:
            raise ProtocolError(f"no file uploader labelled {label!r} (have: {sorted(self.file_uploaders)})")
        widget_id, fragment_id = found
        start = time.perf_counter()

        def fill(msg: BackMsg, request_id: str) -> None:
            msg.file_urls_request.request_id = request_id
            msg.file_urls_request.session_id = self.session_id
            msg.file_urls_request.file_names.append(name)
        urls = (await self._ask(fill)).file_urls[0]
        status = await asyncio.to_thread(self._http_put_file, urljoin(self.base_url + "/", urls.upload_url.lstrip("/")),
                                         name, data, mime)
        if status >= 300:
            raise ProtocolError(f"the upload of {name!r} was answered HTTP {status}")
        state = WidgetState(id=widget_id)
        info = UploadedFileInfo(file_id=urls.file_id, name=name, size=len(data),
                                file_urls=FileURLs(file_id=urls.file_id, upload_url=urls.upload_url,
                                                   delete_url=urls.delete_url))
        state.file_uploader_state_value.uploaded_file_info.append(info)
        self._widgets[widget_id] = state
        self._widget_fragment[widget_id] = fragment_id
        return await self._request_run(start, fragment_id=fragment_id)

    async def _ask(self, fill: Callable[[BackMsg, str], None]):
        """Send a BackMsg that `fill` makes a request (given its id); return the server's answer to it."""
        request_id = f"bench-{next(self._request_ids)}"
        answer = asyncio.get_running_loop().create_future()
        self._requests[request_id] = answer
        msg = BackMsg()
        fill(msg, request_id)
        await self._ws.send(msg.SerializeToString())
        return await asyncio.wait_for(answer, self.run_timeout)

    def _xsrf_cookie(self) -> str:
        """The XSRF cookie the server sets on its health check (the browser's first request)."""
        if not hasattr(self, "_xsrf"):
            with _NO_PROXY.open(self.base_url + "/_stcore/health", timeout=self.run_timeout) as response:
                cookies = response.headers.get_all("Set-Cookie") or []
            found = [c.split(";", 1)[0].split("=", 1)[1] for c in cookies if c.startswith("_streamlit_xsrf=")]
            self._xsrf = found[0] if found else ""
        return self._xsrf

    def _http_put_file(self, url: str, name: str, data: bytes, mime: str) -> int:
        boundary = f"----bench{time.monotonic_ns()}"
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: {mime}\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(url, data=body, method="PUT", headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}", "Origin": self.base_url})
        token = self._xsrf_cookie()
        if token:
            request.add_header("X-Xsrftoken", token)
            request.add_header("Cookie", f"_streamlit_xsrf={token}")
        try:
            with _NO_PROXY.open(request, timeout=self.run_timeout) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code

    async def close(self) -> None:
        self._stop_auto_reruns(list(self._auto_reruns))
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
        self._ws = self._reader = None

    @property
    def step(self) -> tuple[int, int] | None:
        """(step, steps) from the Train page's "Step k of n: ..." heading, if shown."""
        found = _STEP_HEADING.match(self.step_heading)
        return (int(found[1].replace(",", "")), int(found[2].replace(",", ""))) if found else None

    @property
    def runs_started(self) -> int:
        """Script runs this tab saw start (page loads, clicks, callbacks' reruns, auto-reruns)."""
        return self._runs_started

    @property
    def auto_rerunning(self) -> bool:
        """Whether a fragment of the page reruns itself on a timer (a progress poll, say)."""
        return bool(self._auto_reruns)

    # ------------------------------------------------------------------ sending

    async def _request_run(self, start: float, fragment_id: str, trigger: WidgetState | None = None,
                           ready: Callable[[], bool] | None = None) -> Run:
        waiter = _Waiter(self._runs_started, fragment_id, ready, start, self._progress_updates, len(self.errors),
                         asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        try:
            await self._send_rerun(fragment_id, trigger)
            return await asyncio.wait_for(asyncio.shield(waiter.future), self.run_timeout)
        except asyncio.TimeoutError:
            raise ProtocolError(f"no complete run within {self.run_timeout:.0f} s") from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    async def _send_rerun(self, fragment_id: str, trigger: WidgetState | None = None,
                          is_auto_rerun: bool = False) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query_string
        state.page_script_hash = self.page_script_hash
        if not self.page_script_hash:
            state.page_name = self.page_name
        state.fragment_id = fragment_id
        state.is_auto_rerun = is_auto_rerun
        self._trace.append(f"{time.perf_counter():.2f} sent {'auto ' if is_auto_rerun else ''}rerun "
                           f"{fragment_id[:6] or 'full'}{' trigger' if trigger is not None else ''}")
        state.widget_states.widgets.extend(w for i, w in self._widgets.items() if trigger is None or i != trigger.id)
        if trigger is not None:
            state.widget_states.widgets.append(trigger)
        if self.declare_cache:
            state.cached_message_hashes.extend(self._cache.hashes())
        info = state.context_info
        info.url = f"{self.base_url}/{self.page_name}"  # what Chromium sends: no query string
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.is_embedded, info.color_scheme = False, "light"
        await self._ws.send(msg.SerializeToString())

    async def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        with contextlib.suppress(Exception):  # ends with the connection
            while True:
                await asyncio.sleep(interval)
                await self._send_rerun(fragment_id, is_auto_rerun=True)

    def _start_auto_rerun(self, fragment_id: str, interval: float) -> None:
        current = self._auto_reruns.get(fragment_id)
        if current is not None and current[0] == interval:
            return
        self._stop_auto_reruns([fragment_id])
        self._auto_reruns[fragment_id] = (interval, asyncio.create_task(self._auto_rerun(fragment_id, interval)))

    def _stop_auto_reruns(self, fragment_ids: list[str]) -> None:
        for fragment_id in fragment_ids:
            _, timer = self._auto_reruns.pop(fragment_id, (None, None))
            if timer is not None:
                timer.cancel()

    def _http_get_size(self, url: str) -> int:
        with _NO_PROXY.open(url, timeout=self.run_timeout) as response:
            size = 0
            while chunk := response.read(1 << 16):
                size += len(chunk)
            return size

    # ------------------------------------------------------------------ receiving

    async def _read_forever(self) -> None:
        try:
            async for payload in self._ws:
                self.bytes_received += len(payload)
                self._on_message(payload)
        except Exception as exc:  # connection lost or a protocol error: fail whoever waits
            self._fail(exc)
            return
        self._fail(ProtocolError("the server closed the connection"))

    def _fail(self, exc: BaseException) -> None:
        self.connected = False
        self._stop_auto_reruns(list(self._auto_reruns))
        futures = [w.future for w in self._waiters] + list(self._requests.values())
        for future in futures + [w.future for w in self._text_waiters]:
            if not future.done():
                future.set_exception(exc)

    def _on_message(self, payload: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            msg = self._cache.resolve(msg)
            kind = msg.WhichOneof("type")
        else:
            self._cache.store(msg, payload)
        if kind == "new_session":
            self._on_run_started(msg)
        elif kind == "navigation":
            if msg.navigation.page_script_hash:
                self.page_script_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "delta":
            self._on_delta(msg.delta, tuple(msg.metadata.delta_path))
        elif kind == "auto_rerun":
            self._start_auto_rerun(msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
        elif kind == "stop_auto_rerun":
            self._stop_auto_reruns(list(msg.stop_auto_rerun.fragment_ids))
        elif kind == "script_finished":
            self._on_run_finished(msg)
        elif kind == "backend_operation_response":
            answer = self._requests.pop(msg.backend_operation_response.request_id, None)
            if answer is not None and not answer.done():
                answer.set_result(msg.backend_operation_response)
        elif kind == "file_urls_response":
            answer = self._requests.pop(msg.file_urls_response.response_id, None)
            if answer is not None and not answer.done():
                answer.set_result(msg.file_urls_response)

    def _on_run_started(self, msg: ForwardMsg) -> None:
        session = msg.new_session
        self.session_id = session.initialize.session_id or self.session_id
        self._cache.max_age = session.config.max_cached_message_age or self._cache.max_age
        if session.page_script_hash and not self.page_script_hash:
            self.page_script_hash = session.page_script_hash
        fragment_ids = list(msg.metadata.run.fragment_ids)
        now = time.perf_counter()
        self._trace.append(f"{now:.2f} run {self._runs_started + 1} started {[f[:6] for f in fragment_ids] or 'full'}")
        ended = [self._early] if self._early is not None else []
        self._early = None
        for run in list(self._open_runs.values()):  # one script runs at a time: these ended without a word
            self.unfinished_runs += 1
            self._trace.append(f"{now:.2f} run {run.number} never finished ({run.deltas} deltas)")
            ended.append(run)
        self._open_runs.clear()
        if fragment_ids:  # a run of other fragments follows: they did complete (see the module docstring)
            for run in ended:
                self._complete_waiters(run.number, run.fragment_ids, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
                                       run.last_at, unless_covered_by=fragment_ids)
        self._runs_started += 1
        self._open_runs[msg.metadata.run.script_run_id] = _OpenRun(self._runs_started, fragment_ids, now)
        self._run_fragment_ids = fragment_ids
        self._seen_this_run = set()
        self._texts_seen = set()
        if not self._run_fragment_ids:  # a full run draws everything again and restarts the timers
            self.buttons = {}
            self.radios = {}
            self.popovers = {}
            self.step_heading = ""
            self._stop_auto_reruns(list(self._auto_reruns))

    def _on_delta(self, delta, path: tuple[int, ...] = ()) -> None:
        for run in self._open_runs.values():
            run.deltas += 1
            run.last_at = time.perf_counter()
        if delta.WhichOneof("type") == "add_block" and delta.add_block.WhichOneof("type") == "popover":
            popover = delta.add_block.popover
            self.popovers[popover.label] = Popover(popover.id, delta.fragment_id, popover.open)
            if popover.id:
                self._seen_this_run.add(popover.id)
                if popover.id not in self._widgets:  # the browser reports a tracked popover's state
                    self._widgets[popover.id] = WidgetState(id=popover.id, bool_value=popover.open)
                    self._widget_fragment[popover.id] = delta.fragment_id
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        el = getattr(element, kind)
        self._keep_text(kind, el, path, delta.fragment_id)
        if kind == "radio":
            self.radios[el.label] = Radio(el.id, delta.fragment_id, list(el.options), el.disabled)
            self._seen_this_run.add(el.id)
        if kind in _VALUE_WIDGETS:
            state = _widget_value(kind, el, self._widgets.get(el.id))
            if state is not None:
                self._widgets[el.id] = state
                self._widget_fragment[el.id] = delta.fragment_id
                self._seen_this_run.add(el.id)
        if kind in ("text_area", "text_input"):
            self.text_boxes[el.label] = (el.id, delta.fragment_id, el.max_chars)
        elif kind == "file_uploader":
            self.file_uploaders[el.label] = (el.id, delta.fragment_id)
            self._seen_this_run.add(el.id)
        elif kind in ("button", "download_button"):
            self.buttons[el.label] = Button(el.id, delta.fragment_id, el.disabled,
                                            el.deferred_file_id if kind == "download_button" else "")
        elif kind == "heading" and _STEP_HEADING.match(el.body):
            self.step_heading = el.body
        elif kind == "progress":
            self._progress_updates += 1
        elif kind == "exception":
            self.errors.append(f"{el.type}: {el.message}")
        elif kind == "alert" and el.format == Alert.ERROR:
            self.errors.append(f"st.error: {el.body}")

    def _keep_text(self, kind: str, el, path: tuple[int, ...], fragment_id: str) -> None:
        """Keep a text element by its delta path (or forget what was at that path); wake its waiters."""
        if kind == "heading":
            text_kind, body = "heading", el.body
        elif kind == "markdown":
            text_kind, body = ("caption" if el.element_type == el.CAPTION else "markdown"), el.body
        elif kind == "alert":
            text_kind, body = Alert.Format.Name(el.format).lower(), el.body
        elif kind == "code":
            text_kind, body = "code", el.code_text
        else:
            self._texts.pop(path, None)
            return
        text = Text(text_kind, body, time.perf_counter(), fragment_id)
        self._texts[path] = text
        self._texts_seen.add(path)
        for waiter in list(self._text_waiters):
            if ((waiter.kinds is None or text_kind in waiter.kinds) and text.at >= waiter.since
                    and waiter.pattern.search(body) and not waiter.future.done()):
                self._text_waiters.remove(waiter)
                waiter.future.set_result(text)

    def _forget_stale_texts(self, fragment_ids: list[str]) -> None:
        """Drop the texts the run just finished did not draw again (of its fragments, for a fragment run)."""
        for path, text in list(self._texts.items()):
            if path not in self._texts_seen and (not fragment_ids or text.fragment_id in fragment_ids):
                del self._texts[path]

    def _on_run_finished(self, msg: ForwardMsg) -> None:
        status = msg.script_finished
        run = self._open_runs.pop(msg.metadata.run.script_run_id, None)
        number = run.number if run is not None else self._runs_started
        fragment_ids = list(msg.metadata.run.fragment_ids)
        self._trace.append(f"{time.perf_counter():.2f} run {number} finished "
                           f"{ForwardMsg.ScriptFinishedStatus.Name(status)} {[f[:6] for f in fragment_ids] or 'full'}"
                           f" ({run.deltas if run else '?'} deltas)")
        if status == FINISHED_EARLY_FOR_RERUN:
            # Another run follows at once; if that run is of other fragments, this one did complete.
            self._early = (_OpenRun(number, fragment_ids, time.perf_counter(), run.deltas if run else 0)
                           if fragment_ids else None)
            return
        self._cache.run_finished(fragment_ids)
        self._forget_inactive_widgets(fragment_ids)
        self._forget_stale_texts(fragment_ids)
        self._complete_waiters(number, fragment_ids, status, time.perf_counter())

    def _complete_waiters(self, number: int, fragment_ids: list[str], status: int, at: float,
                          unless_covered_by: list[str] | None = None) -> None:
        """Complete whoever waits for a run that run `number` (of `fragment_ids`; [] = a full run) answers."""
        for waiter in list(self._waiters):
            covered = not fragment_ids or waiter.fragment_id in fragment_ids
            if unless_covered_by is not None and waiter.fragment_id in unless_covered_by:
                continue  # the run that follows covers it too: wait for that one
            if number > waiter.after_run and covered and (waiter.ready is None or waiter.ready()):
                self._waiters.remove(waiter)
                if not waiter.future.done():
                    waiter.future.set_result(Run(
                        seconds=at - waiter.start, status=status, fragment=bool(fragment_ids),
                        runs=self._runs_started - waiter.after_run,
                        progress_updates=self._progress_updates - waiter.progress,
                        errors=self.errors[waiter.errors:]))

    def _forget_inactive_widgets(self, fragment_ids: list[str]) -> None:
        """Drop the widgets the run just finished no longer draws, as the browser does."""
        if fragment_ids:
            gone = [i for i, f in self._widget_fragment.items() if f in fragment_ids and i not in self._seen_this_run]
        else:
            gone = [i for i in self._widgets if i not in self._seen_this_run]
        for widget_id in gone:
            self._widgets.pop(widget_id, None)
            self._widget_fragment.pop(widget_id, None)
        for label, radio in list(self.radios.items()):
            if (not fragment_ids or radio.fragment_id in fragment_ids) and radio.id not in self._seen_this_run:
                del self.radios[label]
