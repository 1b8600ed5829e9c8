"""A class room on a student's phone: a small page of the app's own server, not a Streamlit page.

Why. A Streamlit page redraws its whole tree in the browser on every run: on a phone that is about 0.4 s of
the phone's processor a step, and on the teacher's laptop, serving a class, the runs of every phone. This page
draws only what a phone needs in class (the step, the vote with what a student reasons from, the spread, the
reveal) with a few lines of script, and learns of the teacher's action by a long poll, so it follows within
half a second of the click (SPREAD_SECONDS: the class's requests wait for the teacher's own run first).

The routes (app.py mounts them through `st.App(routes=...)`):

- `GET /class`: a box for the room's code, at the top of a phone's screen (for a student who types the address the
  projector shows instead of scanning the QR code); it opens `/class/<CODE>`.
- `GET /class/<CODE>`: the page (HTML, its script and style inline; nothing is loaded from anywhere else).
- `GET /class/<CODE>/state?since=<tag>`: what this student sees now, as JSON, once it differs from `tag` (the
  teacher stepped, showed the answers, revealed, closed the room) or after WAIT_SECONDS. The student is the
  browser's cookie for the room (classroom.device_cookie: the Streamlit pages read the same one, so *Open the
  full step* is the same student).
- `POST /class/<CODE>/join`, `/vote`, `/name`: join (or come back as the cookie's student), vote, rename.

What a phone shows of a step is its **card**: the teacher's page builds it once per step (`card`) from the step
view (lesson.StepView: the question, its choices table, what it asks) and writes it with the step
(rooms.RoomStore.set_step), so a phone never sees a step without it and no phone computes anything. A hidden
step's answer and verdicts stay on the server until the teacher reveals it.

Bounds: at most MAX_WAITING requests wait at once, MAX_WAITING_ROOM for one room (more are told to come back);
a request body is read up to BODY_BYTES and no further; a card is at most rooms.CARD_CHARS (a longer one is not
kept: the phones say they cannot show the step); the caches of what a class shares and of presence writes are
bounded by rooms and students.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import math
import numbers
import random
import time
from typing import Any

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from . import classroom, tables
from .rooms import MAX_ROUNDS, SEEN_SECONDS, NotAllowed, RoomsOff, RoomStore, change_count, normal_code, on_change, valid_token

WAIT_SECONDS = 15.0  # a state request waits this long at most, then answers with the same state
STORE_SECONDS = 2.0  # how often it reads the store anyway (a teacher served by another process)
# Woken by the teacher, a request waits a moment picked in this range first: the teacher's own run draws the
# projector meanwhile (with 60 phones answering at once, it took 0.76 s instead of 0.33 s), and the class's
# requests spread over the rest.
SPREAD_SECONDS = (0.15, 0.5)
MAX_WAITING = 2000  # requests waiting at once (a class is 30-60 phones; a flood is told to come back)
MAX_WAITING_ROOM = 600  # of which for one room (one client's flood leaves the other classes alone)
BODY_BYTES = 4096  # a POST's body at most (read no further)
MAX_STEP = 10_000_000  # a step number a vote may name (more than any training has)
_NO_STORE = {"Cache-Control": "no-store"}
# Nothing but this page's own inline script and style, and requests to its own server.
_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
           "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

_waiting = 0
_waiting_in: dict[str, int] = {}  # room → its requests waiting
_seen_at: dict[tuple[str, str], float] = {}  # (room, token) → when its presence was last written
_shared: dict[str, tuple[tuple[int, int], tuple[Any, dict | None, dict]]] = {}  # room → (when, what all share)
_sleepers: dict[str, set[asyncio.Future]] = {}  # room → the waiting requests' futures, woken by a teacher action
_loop: asyncio.AbstractEventLoop | None = None  # the server's event loop (where the requests wait)


def _wake(code: str) -> None:
    """rooms.on_change's listener (any thread): the requests waiting on room `code` look again."""
    loop = _loop
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_wake_in_loop, code)
        except RuntimeError:  # the loop closed meanwhile (the server stopping): no one waits
            pass


def _wake_in_loop(code: str) -> None:
    for future in _sleepers.pop(code, ()):
        if not future.done():
            future.set_result(None)


async def _sleep_until_change(code: str, seconds: float) -> None:
    """Wait until a teacher action in room `code` (this process) or `seconds`, whichever comes first."""
    future = asyncio.get_running_loop().create_future()
    _sleepers.setdefault(code, set()).add(future)
    try:
        await asyncio.wait_for(future, seconds)
    except asyncio.TimeoutError:
        pass
    finally:
        waiting = _sleepers.get(code)
        if waiting is not None:
            waiting.discard(future)
            if not waiting:
                _sleepers.pop(code, None)


# ----- the card: what a phone shows of a step, built once by the teacher's page ----------------------------

def _cell(value: Any) -> str:
    """A table's cell as a phone reads it: integers with separators, other numbers to 4 significant digits, as the
    projector writes them (one minus sign, a power of ten below 0.001)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return "—" if math.isnan(float(value)) else tables.fmt_number(float(value), 4)  # 2.5 × 10⁻⁵, as the projector
    return "—" if value is None else str(value)


def card(view: Any, number: int) -> dict:
    """Step `number` as a phone shows it, from the step view (lesson.StepView): what it asks and the choices with
    what a student reasons from; the answer and each choice's verdict (sent only once the step is revealed)."""
    question = view.question(number)
    table = view.choices_table(number)
    columns = [str(c) for c in table.columns]
    facts = {_cell(row[0]): [_cell(v) for v in row[1:]] for row in table.itertuples(index=False)}
    offered = [c for c in question.choices if c in facts]  # none when the view offers no vote (all tie)
    return {"step": number, "steps": view.steps, "noun": view.noun, "ask": view.ask, "hint": view.hint(),
            "kind": view.vote_kind, "answer_name": view.answer_name, "columns": columns[1:],
            "choices": [{"text": c, "facts": facts[c]} for c in offered],
            "answer": question.answer,
            "verdicts": {c: list(question.judge(c)) for c in offered}}


# ----- what a student sees now -------------------------------------------------------------------------------

def _room_now(rooms: RoomStore, code: str) -> tuple[Any, dict | None, dict]:
    """What every student of room `code` shares now (its snapshot, the step's card, the step's tally), read once
    per teacher action for the whole class (this process' actions; another process' within STORE_SECONDS)."""
    key = (change_count(code), int(time.monotonic() // STORE_SECONDS))
    kept = _shared.get(code)
    if kept is not None and kept[0] == key:
        return kept[1]
    snap = rooms.snapshot(code)
    found = rooms.card(code, snap.step) if snap is not None else None
    tally = rooms.tally(code, snap.step) if snap is not None else {}
    if len(_shared) > 10_000:  # (bounded: a server's rooms over a day)
        _shared.clear()
    _shared[code] = (key, (snap, found, tally))
    return snap, found, tally


def student_state(rooms: RoomStore, code: str, token: str | None) -> dict:
    """What the student with `token` sees of room `code` now (JSON-ready). The room's part is shared by the
    class (_room_now: the tally shown is of closed rounds only, which no vote changes); the student's own part
    (their nickname, their votes) is read for them."""
    snap, found, tally = _room_now(rooms, code)
    if snap is None:
        return {"room": code, "gone": True}
    member = rooms.member_at(code, token, snap.step) if token else None
    you, mine = member if member is not None else (None, {})
    out: dict[str, Any] = {"room": code, "open": not snap.closed, "you": you, "step": snap.step}
    if you is None:
        return out
    hidden = snap.hidden
    out.update(hidden=hidden, voting=snap.voting, shown=snap.shown, round=snap.round)
    if hidden and not snap.shown and snap.closes > 0:  # the teacher's countdown: when the vote closes (server time)
        out.update(closes=snap.closes, time_up=snap.time_up)
    if found is None:
        out["card"] = None
        return out
    secret = ("answer", "verdicts")
    out["card"] = {k: v for k, v in found.items() if k not in secret}
    out["mine"] = mine.get(snap.round)
    out["tally"] = {str(r): counts for r, counts in snap.shown_rounds(tally).items()}
    if not hidden:
        out["answer"] = found.get("answer")
        last = mine[max(mine)] if mine else None
        out["your_last"] = last
        out["verdict"] = found.get("verdicts", {}).get(last) if last is not None else None
    return out


def _tag(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]


def _token(request: Request, code: str) -> str | None:
    return valid_token(request.cookies.get(classroom.device_cookie(code)))


def _mark_seen(rooms: RoomStore, code: str, token: str | None) -> None:
    if not token:
        return
    now = time.monotonic()
    if now - _seen_at.get((code, token), -SEEN_SECONDS) >= SEEN_SECONDS:
        if len(_seen_at) > 20_000:  # (bounded: a server's students over a day)
            _seen_at.clear()
        _seen_at[(code, token)] = now
        try:
            rooms.seen(code, token)
        except RoomsOff:
            pass


def _with_tag(state: dict, rooms: RoomStore) -> dict:
    """The state with its tag, and the store's clock (outside the tag: a countdown is counted against it)."""
    return {**state, "tag": _tag(state), "now": rooms.clock()}


# ----- the routes ----------------------------------------------------------------------------------------------

def _code(request: Request) -> str | None:
    return normal_code(request.path_params.get("code", ""))


def _error(text: str, status: int, retry: int | None = None) -> JSONResponse:
    headers = _NO_STORE if retry is None else {**_NO_STORE, "Retry-After": str(retry)}
    return JSONResponse({"error": text}, status_code=status, headers=headers)


async def page_route(request: Request) -> Response:
    code = _code(request)
    if code is None:
        return HTMLResponse("<!doctype html><meta charset=utf-8><title>WordPiece Lab</title>"
                            "<p>No class room has that code: a code is six letters and digits.</p>",
                            status_code=404, headers={**_NO_STORE, "Content-Security-Policy": _POLICY})
    full = _pages_root() + f"?room={code}"  # the Train page (under the pages' base path)
    return HTMLResponse(PAGE.replace("__FULL__", html.escape(full, quote=True)).replace("__CODE__", code),
                        headers={**_NO_STORE, "Content-Security-Policy": _POLICY})


async def code_box_route(request: Request) -> Response:
    """The box that takes a room's code (typed from the projector) and opens the room's page."""
    return HTMLResponse(CODE_BOX.replace("__HOME__", html.escape(_pages_root(), quote=True)),
                        headers={**_NO_STORE, "Content-Security-Policy": _POLICY})


def _pages_root() -> str:
    """The Streamlit pages' root path (under `server.baseUrlPath`, if set)."""
    base_path = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base_path}/" if base_path else "/"


async def state_route(request: Request) -> Response:
    """The student's state once it is not `since` (or after WAIT_SECONDS)."""
    global _waiting, _loop
    code = _code(request)
    since = request.query_params.get("since", "")
    if code is None or len(since) > 64:
        return _error("a room's code, and ?since=<the tag you have>", 400)
    if _waiting >= MAX_WAITING or _waiting_in.get(code, 0) >= MAX_WAITING_ROOM:
        return _error("the server is busy: come back in a moment", 503, retry=3)
    rooms, token = classroom.store(), _token(request, code)
    _loop = asyncio.get_running_loop()  # (the server's one loop; a test client's own)
    on_change(_wake)
    _waiting += 1
    _waiting_in[code] = _waiting_in.get(code, 0) + 1
    try:
        known = change_count(code)
        state = _with_tag(await run_in_threadpool(student_state, rooms, code, token), rooms)
        if state.get("you"):  # (a member's presence; an unknown token writes nothing)
            await run_in_threadpool(_mark_seen, rooms, code, token)
        deadline = time.monotonic() + WAIT_SECONDS
        while state["tag"] == since and not state.get("gone") and time.monotonic() < deadline:
            # Woken by this process' teacher at once (then SPREAD_SECONDS); another process' action is seen
            # within about twice STORE_SECONDS (a re-read may find the class's copy from just before it).
            if change_count(code) == known:
                await _sleep_until_change(code, min(STORE_SECONDS, max(0.0, deadline - time.monotonic())))
                if change_count(code) != known:
                    await asyncio.sleep(random.uniform(*SPREAD_SECONDS))
            known = change_count(code)
            state = _with_tag(await run_in_threadpool(student_state, rooms, code, token), rooms)
    except RoomsOff as exc:
        return _error(f"the class room is busy ({exc}): trying again", 503, retry=2)
    finally:
        _waiting -= 1
        _waiting_in[code] -= 1
        if not _waiting_in[code]:
            del _waiting_in[code]
    return JSONResponse(state, headers=_NO_STORE)


async def _body(request: Request) -> dict | None:
    """A POST's JSON object, read up to BODY_BYTES (a longer body is not read on); None if it is not one."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return None  # (a form posted from another site cannot send this type without asking first)
    declared = request.headers.get("content-length", "")
    if declared and (not declared.isdigit() or int(declared) > BODY_BYTES):
        return None
    raw = b""
    async for part in request.stream():
        raw += part
        if len(raw) > BODY_BYTES:
            return None
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # (not JSON; or nested past Python's depth)
        return None
    return body if isinstance(body, dict) else None


async def join_route(request: Request) -> Response:
    """Join the room, or come back as the student the browser's cookie names; the state, and the cookie."""
    code, body = _code(request), await _body(request)
    if code is None or body is None:
        return _error("a room's code and a JSON body", 400)
    rooms = classroom.store()
    nickname = body.get("nickname") if isinstance(body.get("nickname"), str) else None
    try:
        member = await run_in_threadpool(rooms.join, code, _token(request, code), nickname)
        state = _with_tag(await run_in_threadpool(student_state, rooms, code, member.token), rooms)
    except NotAllowed as exc:
        return _error(f"You cannot join this class room: {exc}.", 403)
    except RoomsOff as exc:
        return _error(f"The class room is busy ({exc}): try again in a moment.", 503)
    response = JSONResponse(state, headers=_NO_STORE)
    response.set_cookie(classroom.device_cookie(code), member.token, max_age=int(rooms.idle_hours * 3600),
                        path="/", samesite="strict")
    return response


async def vote_route(request: Request) -> Response:
    """Store this student's choice for the room's current step and round; the state."""
    code, body = _code(request), await _body(request)
    if code is None or body is None:
        return _error("a room's code and a JSON body", 400)
    token = _token(request, code)
    step, round_, choice = body.get("step"), body.get("round"), body.get("choice")
    if (token is None or not isinstance(step, int) or not isinstance(round_, int) or not isinstance(choice, str)
            or not 0 < step <= MAX_STEP or not 0 < round_ <= MAX_ROUNDS):
        return _error("join the room first, then vote for one of the choices", 400)
    rooms = classroom.store()
    try:
        found = await run_in_threadpool(rooms.card, code, step)
        if found is None or choice not in [c["text"] for c in found.get("choices", [])]:
            return _error("That is not one of this step's choices.", 409)
        await run_in_threadpool(rooms.vote, code, token, step, round_, choice, str(found.get("kind", "pair")))
        state = _with_tag(await run_in_threadpool(student_state, rooms, code, token), rooms)
    except NotAllowed:
        return _error("Your vote was not stored: the vote was over, or the class moved on.", 409)
    except RoomsOff as exc:
        return _error(f"Your vote was not stored ({exc}): choose again in a moment.", 503)
    return JSONResponse(state, headers=_NO_STORE)


async def name_route(request: Request) -> Response:
    """Change this student's nickname; the state."""
    code, body = _code(request), await _body(request)
    token = _token(request, code) if code is not None else None
    if code is None or body is None or token is None or not isinstance(body.get("nickname"), str):
        return _error("join the room first, then send a nickname", 400)
    rooms = classroom.store()
    try:
        await run_in_threadpool(rooms.rename, code, token, body["nickname"])
        state = _with_tag(await run_in_threadpool(student_state, rooms, code, token), rooms)
    except (NotAllowed, RoomsOff) as exc:
        return _error(f"Your name did not change: {exc}.", 409)
    return JSONResponse(state, headers=_NO_STORE)


def routes() -> list[Route]:
    """The app's own routes, for app.py's `st.App(routes=...)`."""
    return [Route("/class", code_box_route, methods=["GET"]),
            Route("/class/", code_box_route, methods=["GET"]),
            Route("/class/{code}", page_route, methods=["GET"]),
            Route("/class/{code}/state", state_route, methods=["GET"]),
            Route("/class/{code}/join", join_route, methods=["POST"]),
            Route("/class/{code}/vote", vote_route, methods=["POST"]),
            Route("/class/{code}/name", name_route, methods=["POST"])]


# ----- the page --------------------------------------------------------------------------------------------------
# Every text from the server (choices, nicknames, sentences) is put on the page with textContent: shown as text,
# never read as HTML.

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Class room __CODE__ · WordPiece Lab</title>
<style>
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2430; --muted: #5f6572; --line: #d5d8de;
        --accent: #d33d4a; --pick: #e8f0fe; --pickline: #1a66d2; --right: #1b7f3b; --wrong: #b3261e; --bar: #1a66d2; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14161b; --fg: #e9ebef; --muted: #a5abb6; --line: #3a3f49; --pick: #1d2b44; --pickline: #7fb0ff;
          --right: #5fd38a; --wrong: #ff8a80; --bar: #7fb0ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; gap: 8px; align-items: center; justify-content: space-between; padding: 10px 14px;
         border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--bg); }
header b { font-size: 1.05em; }
main { padding: 12px 14px 40px; max-width: 720px; margin: 0 auto; }
h1 { font-size: 1.35em; margin: 6px 0 4px; line-height: 1.25; }
.muted { color: var(--muted); font-size: .92em; }
.choice { display: block; width: 100%; min-height: 52px; margin: 8px 0; padding: 10px 12px; text-align: left;
          border: 2px solid var(--line); border-radius: 10px; background: transparent; color: var(--fg); font: inherit; cursor: pointer; }
.choice .t { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.choice .f { display: block; color: var(--muted); font-size: .85em; margin-top: 2px; }
.choice.picked { border-color: var(--pickline); background: var(--pick); }
.choice:disabled { cursor: default; }
.note { padding: 10px 12px; border-radius: 10px; margin: 10px 0; border: 1px solid var(--line); }
.note.ok { border-color: var(--right); }
.note.bad { border-color: var(--wrong); }
.note.countdown { font-size: 1.2em; font-weight: 700; font-variant-numeric: tabular-nums; border-color: var(--accent); }
.row { display: grid; grid-template-columns: minmax(80px, 40%) 1fr auto; gap: 8px; align-items: center; margin: 6px 0; }
.row .l { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.row .b { height: 18px; background: var(--bar); border-radius: 4px; min-width: 2px; }
.row.right .l { font-weight: 700; color: var(--right); }
.row.faded { opacity: .55; }
button.small { min-height: 44px; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--line); background: transparent; color: var(--fg); font: inherit; }
input { font: inherit; min-height: 44px; padding: 6px 10px; border-radius: 8px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); width: 100%; }
a { color: var(--pickline); }
#status { min-height: 1.4em; }
</style>
</head>
<body>
<header><div><b>Class room __CODE__</b><div class="muted" id="who"></div></div>
<button class="small" id="rename" hidden>Change name</button></header>
<main>
<div id="status" class="muted" role="status"></div>
<form id="nameform" hidden><label class="muted" for="nick">Your name in this room (others see it in the record)</label>
<input id="nick" maxlength="24" autocomplete="off"><div style="display:flex;gap:8px;margin-top:8px">
<button class="small" type="submit">Save</button><button class="small" type="button" id="nameclose">Cancel</button></div></form>
<div id="view"></div>
<p class="muted" style="margin-top:28px"><a id="full" href="__FULL__">Open the full step</a> (tables and charts; heavier on a phone).</p>
</main>
<script>
(function () {
  "use strict";
  var CODE = "__CODE__", base = "/class/" + CODE, tag = "", state = null, failures = 0, sending = false;
  var joined = false, outside = null;  // this page was in the class once; why it is not now (a sentence)
  var skew = 0, ticker = null;  // the server's clock minus this phone's (ms); the countdown's timer
  function $(id) { return document.getElementById(id); }
  function el(name, cls, text) { var e = document.createElement(name); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }
  function sleep(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }
  function status(text) { $("status").textContent = text || ""; }
  function post(path, body) {
    return fetch(base + path, {method: "POST", credentials: "same-origin", cache: "no-store",
                               headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || String(r.status)); return j; }); });
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  function histogram(box, s, c) {
    var rounds = Object.keys(s.tally || {}).sort(function (a, b) { return a - b; });
    rounds.forEach(function (r) {
      var counts = s.tally[r], total = 0, most = 1;
      c.choices.forEach(function (ch) { var n = counts[ch.text] || 0; total += n; most = Math.max(most, n); });
      box.appendChild(el("div", "muted", (rounds.length > 1 ? "Round " + r + ": " : "") + "what the class answered (" + plural(total, "vote") + ")"));
      c.choices.forEach(function (ch) {
        var n = counts[ch.text] || 0, row = el("div", "row");
        if (s.answer != null) row.className += ch.text === s.answer ? " right" : " faded";
        row.appendChild(el("span", "l", (s.answer != null && ch.text === s.answer ? "✓ " : "") + ch.text));
        var bar = el("div", "b"); bar.style.width = Math.round(100 * n / most) + "%"; row.appendChild(bar);
        row.appendChild(el("span", "", String(n)));
        box.appendChild(row);
      });
    });
  }
  function secondsLeft(s) { return s && s.closes ? Math.max(0, Math.ceil((s.closes * 1000 - (Date.now() + skew)) / 1000)) : null; }
  function clock(s) { var left = secondsLeft(s); return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0"); }
  function tick() {  // the countdown's line, each quarter second; at 0 the vote is over on this page too
    var s = state, left = secondsLeft(s), line = $("countdown");
    if (left === null || !s.voting) { clearInterval(ticker); ticker = null; return; }
    if (left <= 0) { s.voting = false; s.time_up = true; clearInterval(ticker); ticker = null; render(); return; }
    if (line) line.textContent = clock(s) + " left to answer";
  }
  function render() {
    var s = state, v = $("view");
    v.textContent = "";
    if (!s) return;
    $("who").textContent = s.you ? "you are " + s.you : "";
    $("rename").hidden = !s.you || !s.open || !!s.gone;
    if (s.gone) { $("nameform").hidden = true; v.appendChild(el("div", "note", "There is no class room " + CODE + " (it expired, or the code is mistyped).")); return; }
    if (!s.you) {
      if (!joined && !outside) { v.appendChild(el("div", "note", "Joining the class…")); return; }
      v.appendChild(el("div", "note bad", outside || ("You are not in this class room now: the teacher took you out, or this browser " +
        "did not keep its cookie for this page (allow cookies for this site to stay in the class).")));
      var again = el("button", "small", "Join again"); again.type = "button";
      again.addEventListener("click", function () { join(); });
      v.appendChild(again);
      return;
    }
    var c = s.card;
    if (!s.open) v.appendChild(el("div", "note", "The teacher closed this class room: it is read-only now."));
    if (!c) { v.appendChild(el("h1", "", "Step " + s.step)); v.appendChild(el("p", "muted", "Waiting for the teacher's screen… (or open the full step below)")); return; }
    var noun = c.noun === "round" ? "Round" : "Step";
    if (s.hidden) {
      v.appendChild(el("h1", "", noun + " " + c.step + " of " + c.steps + ": " + c.ask));
      if (c.hint) v.appendChild(el("p", "muted", c.hint));
      if (!c.choices.length) { v.appendChild(el("div", "note", "Nothing to vote on in this " + c.noun + ": every choice costs the same. Wait for the teacher to reveal it.")); return; }
      if (s.round > 1) v.appendChild(el("p", "muted", "Vote again: round " + s.round + "."));
      if (s.voting && s.closes) {
        v.appendChild(el("div", "note countdown", clock(s) + " left to answer")).id = "countdown";
        if (!ticker) ticker = setInterval(tick, 250);
      }
      if (s.voting) {
        var facts = c.columns.length ? c.columns : [];
        c.choices.forEach(function (ch) {
          var picked = (sending || s.mine) === ch.text;
          var b = el("button", "choice" + (picked ? " picked" : ""));
          b.type = "button"; b.disabled = !!sending;
          b.setAttribute("aria-pressed", picked ? "true" : "false");
          b.appendChild(el("span", "t", ch.text));
          if (ch.facts.length) b.appendChild(el("span", "f", ch.facts.map(function (f, i) { return (facts[i] ? facts[i] + ": " : "") + f; }).join(" · ")));
          b.addEventListener("click", function () { vote(ch.text); });
          v.appendChild(b);
        });
        if (sending) v.appendChild(el("div", "note", "Sending your vote: " + sending + "…"));
        else v.appendChild(s.mine ? el("div", "note ok", "Your vote is in: " + s.mine + ". You may change it until the teacher shows the answers.")
                                  : el("p", "muted", "Tap your answer."));
      } else if (s.mine) {
        if (s.time_up && !s.shown) v.appendChild(el("div", "note", "Time is up: the vote is closed."));
        v.appendChild(el("div", "note ok", "Your vote is in: " + s.mine + ". Wait for the teacher to reveal the " + (c.noun === "round" ? "round" : "merge") + "."));
      } else {
        v.appendChild(el("div", "note", s.time_up && !s.shown ? "Time is up: the vote is closed. Wait for the teacher." : "The vote is closed: wait for the teacher."));
      }
      histogram(v, s, c);
      return;
    }
    v.appendChild(el("h1", "", noun + " " + c.step + " of " + c.steps));
    if (s.answer != null && s.answer !== "") v.appendChild(el("p", "", c.answer_name.charAt(0).toUpperCase() + c.answer_name.slice(1) + ": " + s.answer));
    if (s.verdict) v.appendChild(el("div", "note " + (s.verdict[0] ? "ok" : "bad"), (s.verdict[0] ? "✓ " : "✗ ") + s.verdict[1]));
    histogram(v, s, c);
  }
  function show(next) { if (next.now) skew = next.now * 1000 - Date.now(); state = next; tag = next.tag || ""; render(); }
  function join() {  // (by itself once; after that only when the student asks: a browser without cookies
    outside = null;  //  would otherwise join as a new student at every round trip)
    return post("/join", {}).then(function (s) { joined = true; status(""); show(s); })
      .catch(function (e) { outside = e.message; render(); });
  }
  function vote(choice) {
    if (!state || sending) return;
    sending = choice; render();
    post("/vote", {step: state.step, round: state.round, choice: choice})
      .then(function (s) { sending = false; status(""); show(s); })
      .catch(function (e) { sending = false; status(e.message); render(); });
  }
  $("rename").addEventListener("click", function () { $("nameform").hidden = false; $("nick").value = state && state.you || ""; $("nick").focus(); });
  $("nameclose").addEventListener("click", function () { $("nameform").hidden = true; });
  $("nameform").addEventListener("submit", function (ev) {
    ev.preventDefault();
    post("/name", {nickname: $("nick").value}).then(function (s) { $("nameform").hidden = true; status(""); show(s); })
      .catch(function (e) { status(e.message); });
  });
  async function follow() {
    for (;;) {
      try {
        var stop = new AbortController(), timer = setTimeout(function () { stop.abort(); }, 40000);
        var r = await fetch(base + "/state?since=" + encodeURIComponent(tag), {cache: "no-store", credentials: "same-origin", signal: stop.signal});
        var s = await r.json();
        clearTimeout(timer);
        if (!r.ok) throw new Error(s.error || String(r.status));
        failures = 0; status("");
        if (s.tag !== tag) show(s);
        if (s.gone) return;
      } catch (e) {
        failures += 1;
        if (failures > 1) status("Reconnecting… (" + (e.name === "AbortError" ? "no answer" : e.message) + ")");
        await sleep(Math.min(10000, 400 * Math.pow(2, failures)));
      }
    }
  }
  join().then(follow);
})();
</script>
</body>
</html>
"""


# The code box: the alphabet is rooms.CODE_ALPHABET's (no 0/O, 1/I/L); spaces and dashes typed are dropped.
CODE_BOX = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join a class room · WordPiece Lab</title>
<style>
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2430; --muted: #5f6572; --line: #d5d8de; --accent: #1a66d2; --bad: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --bg: #14161b; --fg: #e9ebef; --muted: #a5abb6; --line: #3a3f49; --accent: #7fb0ff; --bad: #ff8a80; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { padding: 20px 16px; max-width: 520px; margin: 0 auto; }
h1 { font-size: 1.4em; margin: 4px 0 12px; }
input { font: 600 1.6em/1.2 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: .12em; text-transform: uppercase;
        width: 100%; min-height: 56px; padding: 8px 12px; border-radius: 10px; border: 2px solid var(--line); background: var(--bg); color: var(--fg); }
button { margin-top: 12px; width: 100%; min-height: 52px; border-radius: 10px; border: 0; background: var(--accent); color: var(--bg); font: 600 1.1em system-ui, sans-serif; }
.muted { color: var(--muted); font-size: .92em; }
#why { color: var(--bad); min-height: 1.4em; margin-top: 8px; }
a { color: var(--accent); }
</style>
</head>
<body>
<main>
<h1>Join a class room</h1>
<form id="join"><label class="muted" for="code">The code on the teacher's screen (six letters and digits)</label>
<input id="code" name="code" maxlength="14" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus>
<div id="why" role="alert"></div>
<button type="submit">Join</button></form>
<p class="muted"><a href="__HOME__">WordPiece Lab</a>: train a tokenizer step by step, on your own.</p>
</main>
<script>
(function () {
  "use strict";
  var ok = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/;
  document.getElementById("join").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var code = document.getElementById("code").value.replace(/[\s\-_.]/g, "").toUpperCase();
    if (!ok.test(code)) {
      document.getElementById("why").textContent = /[01OIL]/.test(code)
        ? "A code has no 0, O, 1, I or L: look again at the teacher's screen."
        : "A code is six letters and digits, like K7RM2Q.";
      return;
    }
    window.location.assign("/class/" + code);
  });
})();
</script>
</body>
</html>
"""
