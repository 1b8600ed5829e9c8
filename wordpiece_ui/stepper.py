"""One stepper for every step-by-step view: the position, First/Prev/slider/Next/Last, Play and its timer.

The Train page steps through merges and the playground through the words of a text;
both use `Stepper`, so both behave alike:

- The position lives in `st.session_state[key]` (1-based) and is kept between 1 and `count`.
- Any move by hand (a button, the slider, a key) pauses Play.
- Play moves one position per tick, stops at the end, and starts again from the first
  position when pressed at the end. A `hold` position (the quiz's hidden merge) stops Play
  when Play reaches it, and Play cannot start from it.
- The view is an `st.fragment`, so a step reruns the view alone, not the page. Its timer
  (`run_every`) is fixed when the fragment is defined, so starting, stopping or re-timing
  Play reruns the page once.
- The keys (← → Space Home End) click these buttons (keys.py).
- A view's run ends only once the server has taken its messages (`delivered`): Streamlit 1.67 could drop
  them otherwise, when a timer's request came at that moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import threading
import time
from dataclasses import dataclass, field

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import keys


ECHO_SECONDS = 3.0  # the slider's old value, sent back this soon after a move by other means, is not a drag
SETTLE_SECONDS = 10.0  # a run waits at most this long for the server to take its messages (delivered; it is
#                        released as soon as the loop has them: seconds only when the server is very busy)


def speeds_for(noun: str) -> dict[str, float]:
    """Play's speeds: the label says what the timer does (it waits after each view is drawn)."""
    return {f"~1 {noun}/s": 1.0, f"~1 {noun}/2 s": 2.0, "as fast as it draws": 0.05}


def delivered(timeout: float = SETTLE_SECONDS) -> None:
    """Wait (at most `timeout`) until the server's event loop has taken every message this run sent so far.

    Why: Streamlit 1.67 hands each message of a run to its event loop as an event of the session's ScriptRunner,
    and a runner stops as soon as its run ends with no request waiting. A request that the loop handles after
    that (a class room's poll, the teacher's count, Play: any `run_every` timer, or a click), while the run's
    last events still wait behind it on a busy loop, makes a new ScriptRunner, and the session drops every
    event of the old one it had not handled yet (`AppSession._handle_scriptrunner_event_on_event_loop`: "not the
    current ScriptRunner"): the browser never sees the end of the step (a phone stayed on the step before; a
    vote's "Your vote is in" never came). Waiting here keeps the runner running until the loop has caught up
    with the step's messages, so a request meanwhile joins this runner. (The run's end message, sent after
    this, can still be lost that way, with nothing of the step; the wait releases the GIL.) Outside a server
    (AppTest) there is no loop to wait for."""
    try:
        loop = Runtime.instance()._get_async_objs().eventloop if Runtime.exists() else None
    except Exception:  # another Streamlit: its internals differ; nothing to wait for then
        loop = None
    if not isinstance(loop, asyncio.AbstractEventLoop) or not loop.is_running():
        return  # no server loop to wait for (AppTest's runtime is a mock; a server that stops)
    taken = threading.Event()
    try:
        loop.call_soon_threadsafe(taken.set)  # after the run's messages: the loop takes events in order
    except RuntimeError:  # the loop is closed (the server stops)
        return
    taken.wait(timeout)


@dataclass(frozen=True)
class Stepper:
    key: str  # the session key of the position; the stepper's other keys start with it
    count: int
    noun: str = "step"
    hold: Callable[[int], bool] = field(default=lambda position: False)
    hold_help: str = ""  # why Play cannot start at a held position
    # How far the position may go, when less than `count` (a student in a class room: up to the teacher's step).
    # The slider still spans `count`: a slider whose range changes is a new widget to Streamlit, and a request the
    # browser sent before it heard of the new one carried the old widget's value, which sent the view a step back.
    limit: int | None = None

    # ----- state -----------------------------------------------------------------------------
    @property
    def last(self) -> int:
        """The last position one may go to."""
        return max(1, min(self.count, self.count if self.limit is None else self.limit))

    @property
    def position(self) -> int:
        return max(1, min(int(st.session_state.get(self.key, 1)), self.last))

    def _k(self, part: str) -> str:
        return f"{self.key}:{part}"

    @staticmethod
    def drawn(key: str) -> int | None:
        """The position the view of the stepper whose session key is `key` last drew, or None before it drew."""
        return st.session_state.get(f"{key}:drawn")

    @staticmethod
    def hold_echo(key: str) -> None:
        """The browser is known to show an older view (a class room's poll saw its address bar): the slider's old
        value it keeps sending is still no drag, however long the new view takes to reach it (see _slid)."""
        echo = st.session_state.get(f"{key}:echo")
        if echo is not None:
            st.session_state[f"{key}:echo"] = (echo[0], time.monotonic())

    @property
    def slider_key(self) -> str:
        return self._k("slider")

    @property
    def playing(self) -> bool:
        return bool(st.session_state.get(self._k("playing")))

    def _set(self, position: int, playing: bool = False) -> None:
        st.session_state[self.key] = max(1, min(position, self.last))
        st.session_state[self._k("playing")] = playing

    def go(self, position: int) -> None:
        """Move by hand (pauses Play)."""
        self._set(position)

    def _slid(self) -> None:
        value = st.session_state[self.slider_key]
        ctx = get_script_run_ctx()
        fragments = (ctx.fragment_ids_this_run or []) if ctx is not None else []
        own = st.session_state.get(self._k("fragment"))
        if fragments and own is not None and own not in fragments:
            # Not a drag: a drag reruns this view's fragment. Another fragment's run (a class room's poll, the
            # teacher's count) carries the slider's value as the browser has it, which is the old one for as
            # long as the browser has not drawn the last move (seconds on a busy machine: taken as a drag after
            # ECHO_SECONDS, it sent a student a step back, off the class's step, and the page stayed there).
            st.session_state[self.slider_key] = self.position
            return
        echo = st.session_state.get(self._k("echo"))
        if echo is not None and value == echo[0] and time.monotonic() - echo[1] < ECHO_SECONDS:
            # Not a drag: a rerun the browser sent before it heard of the last move (a class room's poll, say)
            # carries the slider's old value. Taken as a move, it would send the view back a step.
            st.session_state[self.slider_key] = self.position
            return
        self._set(value)

    def _toggle_play(self) -> None:
        if self.playing:
            self._set(self.position)
        else:  # at the end, Play starts again from the first position
            self._set(1 if self.position >= self.last else self.position, playing=True)
        st.session_state[self._k("started")] = False

    def _tick(self) -> None:
        """What Play does on each run of the view: move on (not on the first run after Play), stop at the end or a hold."""
        if not self.playing:
            return
        if st.session_state.get(self._k("started")):
            st.session_state[self.key] = min(self.last, self.position + 1)
            if self.position >= self.last or self.hold(self.position):
                st.session_state[self._k("playing")] = False
        st.session_state[self._k("started")] = True

    # ----- drawing -----------------------------------------------------------------------------
    def run(self, body: Callable[[int], None], *, extra: Callable[[int], None] | None = None,
            keys_legend: bool = True, player: bool = True) -> None:
        """Draw the controls and `body(position)` in a fragment that Play reruns on its timer.

        `extra(position)` draws one more control at the end of the controls' row (the Train
        page's Share button, which must follow the step). `player`: Play and its speed (a class room's
        student follows the teacher instead: a phone's first screen keeps the vote).
        """
        st.session_state[self.key] = self.position
        speeds = speeds_for(self.noun)
        if st.session_state.get(self._k("speed")) not in speeds:
            st.session_state[self._k("speed")] = next(iter(speeds))
        playing_now, speed_now = self.playing, st.session_state[self._k("speed")]
        keys.step_keys()

        @st.fragment(run_every=speeds[speed_now] if playing_now else None)
        def view() -> None:
            ctx = get_script_run_ctx()
            if ctx is not None and ctx.fragment_ids_this_run and len(ctx.fragment_ids_this_run) == 1:
                st.session_state[self._k("fragment")] = ctx.fragment_ids_this_run[0]  # this view's own (see _slid)
            self._tick()
            if self.playing != playing_now or (playing_now and st.session_state[self._k("speed")] != speed_now):
                st.rerun()  # start, stop or re-time the timer: it is fixed when the fragment is defined
            self.controls(speeds, keys_legend, extra, player)
            st.session_state[self._k("drawn")] = self.position
            body(self.position)
            delivered()

        view()

    def controls(self, speeds: dict[str, float], keys_legend: bool,
                 extra: Callable[[int], None] | None = None, player: bool = True) -> None:
        position, n, last = self.position, self.count, self.last
        before = st.session_state.get(self.slider_key)
        if before is not None and before != position:  # moved by a button, a key, Play or the page: see _slid
            st.session_state[self._k("echo")] = (before, time.monotonic())
        st.session_state[self.slider_key] = position
        row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")  # buttons as wide as their labels
        row.button("First", icon=":material/first_page:", on_click=self.go, args=(1,), disabled=position <= 1,
                   width="content", key=self._k("first"))
        row.button("Prev", icon=":material/chevron_left:", on_click=self.go, args=(position - 1,),
                   disabled=position <= 1, width="content", key=self._k("prev"))
        row.slider(self.noun.capitalize(), 1, max(n, 2), key=self.slider_key, on_change=self._slid, disabled=n <= 1,
                   width="stretch", label_visibility="collapsed")  # the view's heading says which one
        row.button("Next", icon=":material/chevron_right:", icon_position="right", on_click=self.go,
                   args=(position + 1,), disabled=position >= last, width="content", key=self._k("next"))
        row.button("Last", icon=":material/last_page:", icon_position="right", on_click=self.go, args=(last,),
                   disabled=position >= last, width="content", key=self._k("last"))
        if player:
            held = not self.playing and self.hold(position)
            row.button("Pause" if self.playing else "Play", on_click=self._toggle_play,
                       icon=":material/pause:" if self.playing else ":material/play_arrow:",
                       disabled=last <= 1 or held, width="content", key=self._k("play"),
                       help=self.hold_help if held else (f"From {self.noun} 1 again" if position >= last else None))
            row.selectbox("Speed", list(speeds), key=self._k("speed"), label_visibility="collapsed", width=150,
                          help=f"Play waits this long after a {self.noun} is drawn, so a {self.noun} can take a little "
                               "longer.")
        if keys_legend:  # the legend, with the extra control at its right
            row = st.container(horizontal=True, vertical_alignment="center")
            row.caption(keys.legend(self.noun), width="stretch")
        if extra:
            with row:
                extra(position)
