"""What a session sees while its trainings run: progress bars with a Stop button, and a browser warm-up.

A page whose trainings are not stored yet waits `WAIT_SECONDS` for them; trainings that
end that soon are shown without a progress view. Otherwise the progress view polls them
every `POLL_SECONDS` and reruns the page when the last has ended. Stop leaves them (each
is cancelled unless other sessions wait for it too), and the page then says so, with a
button to train again. No pandas or Altair here.
"""

from __future__ import annotations

import hashlib
import time

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from wordpiece_core.algorithms import info_of

from . import server, state
from .jobs import Job

WAIT_SECONDS = 1.0  # trainings that end this soon are shown without a progress view
POLL_SECONDS = 0.5  # how often a waiting session's progress view polls its trainings
POLL_WAIT_SECONDS = 0.4  # how long a poll waits for them to end (then it shows their progress)
WARM_UP_KEY = "wpl-warm-up"  # the hidden containers of _warm_up_browser: their keys start with it


def wait_for(jobs: list[Job], seconds: float) -> bool:
    """Wait up to `seconds` in all for every job to end; whether they all did."""
    deadline = time.monotonic() + seconds
    return all(job.wait(max(0.0, deadline - time.monotonic())) for job in jobs)


def ended(jobs: list[Job], keys: list[str]) -> bool:
    """Whether every job has ended, after waiting up to WAIT_SECONDS for them; if not, the progress view is drawn.

    `keys`: the cache keys of all the trainings the page waits for (stored ones too), naming its warm-up.
    """
    warm_up = st.empty() if any(not job.finished.is_set() for job in jobs) else None
    if warm_up is not None:
        with warm_up.container():
            _warm_up_browser(keys)
    if wait_for(jobs, WAIT_SECONDS) and warm_up is not None:  # else: a progress view
        warm_up.empty()  # they ended within the wait: the page goes on without it
    waiting = [job for job in jobs if not job.finished.is_set()]
    if waiting:
        _progress_view([(str(job.key), state.training_label(job.config)) for job in waiting])
        return False
    return True


def stopped_keys() -> set[str]:
    """The trainings this session stopped before they finished."""
    return st.session_state.setdefault(state.TRAINING_STOPPED, set())


def say_stopped(labels: list[str], keys: list[str]) -> None:
    """That this session stopped these trainings (named by `labels`), with a button that trains them again."""
    names = " and ".join(labels)
    told = (f"You stopped the {names} training before it finished, so it was cancelled (unless other sessions "
            "on this server were waiting for it too)." if len(labels) == 1 else
            f"You stopped the {names} trainings before they finished, so they were cancelled (unless other "
            "sessions on this server were waiting for them too).")
    st.info(told, icon=":material/stop_circle:")
    st.button("Train again", icon=":material/replay:", on_click=stopped_keys().difference_update, args=(keys,),
              key=f"again {keys[0]}")


def _warm_up_browser(keys: list[str]) -> None:
    """Have the browser load, while the trainings run, the code of the elements drawn when they end.

    Streamlit's front end fetches and compiles the code of each kind of element (a table, a
    chart, a metric: about 2 MB of JavaScript) the first time the page draws one. On a fresh tab
    that happened after the trainings: the Compare page's timelines then took about a second
    more to show. One small element of each kind is drawn here, in a container that the CSS
    below hides; it is taken away when the trainings end within the page's first wait, and the
    page's next run (the one with its trainings) no longer draws it. `keys`: the
    trainings' cache keys (a page may wait for two sets of trainings in one run: one container each).
    """
    key = f"{WARM_UP_KEY}-{hashlib.sha256(' '.join(keys).encode()).hexdigest()[:16]}"
    hidden = f'[class*="st-key-{WARM_UP_KEY}"]'
    try:
        # One pixel high (its contents scroll, out of sight) until the CSS, which a browser applies
        # a moment later, takes it and what holds it out of the layout.
        with st.container(key=key, height=1, border=False):
            st.html(f"<style>{hidden} {{ display: none; }} :has(> {hidden}) {{ display: none; }}</style><span></span>")
            st.metric("warm-up", 0)
            st.dataframe({"warm-up": [0]}, hide_index=True)
            st.vega_lite_chart(spec={"data": {"values": [{"x": 0}]}, "mark": "point",
                                     "encoding": {"x": {"field": "x", "type": "quantitative"}}})
    except StreamlitDuplicateElementKey:
        pass  # the same trainings waited for twice in one run: drawn already


def _stop(keys: list[str]) -> None:
    """This session stops waiting for these trainings (each is cancelled unless other sessions wait for it)."""
    service = server.service()
    for key in keys:
        job = service.job(key)
        if job is not None:
            service.leave(job, server.session_id())
    stopped_keys().update(keys)


def _progress_view(waiting: list[tuple[str, str]]) -> None:
    """The progress of each (key, name) training, polled every POLL_SECONDS; the page reruns when all have ended."""

    first = [True]

    @st.fragment(run_every=POLL_SECONDS)
    def progress() -> None:
        service = server.service()
        stopped = st.session_state.get(state.TRAINING_STOPPED, ())
        jobs = [(key, name, service.job(key)) for key, name in waiting]
        if any(key in stopped for key, _, _ in jobs):
            st.rerun()  # this session pressed Stop: it waits no more (and says so)
        alive = [job for _, _, job in jobs if job is not None]
        if not first[0]:  # a poll waits for the trainings a while: the page reruns as the last ends
            wait_for(alive, POLL_WAIT_SECONDS)
        if all(job is None or job.finished.is_set() for _, _, job in jobs):
            st.rerun()  # the whole page, now with the trainings (or their errors)
        for key, name, job in jobs:
            if job is None or job.finished.is_set():
                text, fraction = f"Training {name}: done", 1.0
            else:
                service.touch(job, server.session_id())
                fraction = job.fraction
                if job.state == "queued":
                    text = f"Training {name}: waiting for another training on this server to finish…"
                else:
                    text = f"Training {name}: {progress_line(job)}"
                if job.restarts:
                    text += " (started again: its process stopped before it finished)"
            st.progress(min(1.0, fraction), text=text)
        if first[0]:
            # The first call, in the page's run, waits too once the bars are drawn: the next poll comes
            # only POLL_SECONDS later, and a training that ends in between would wait for it. The Stop
            # button is drawn after that wait, as the page's run ends: a click on a fragment's button
            # while the page's own run still goes on is lost.
            first[0] = False
            if wait_for(alive, POLL_WAIT_SECONDS):
                st.rerun()
        st.button("Stop", icon=":material/stop_circle:", on_click=_stop, args=([key for key, _ in waiting],),
                  key=f"stop {waiting[0][0]}",
                  help="Stop waiting; a training is cancelled unless other sessions wait for it too.")

    progress()


def progress_line(job: Job) -> str:
    """How far a running training is, in its own steps: "120 of 1,000 merges", "3 of about 8 rounds" (Unigram's
    total is the trainer's estimate, made again after each round), or "counting the corpus…" before any is known."""
    if not job.total_steps:
        return "counting the corpus…"
    info = info_of(job.config)
    return f"{job.done_steps:,} of {'about ' if info.steps_estimated else ''}{job.total_steps:,} {info.steps}"
