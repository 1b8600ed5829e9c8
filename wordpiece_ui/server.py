"""What the server holds once for all its sessions: the store and the training service.

The store (stores.py) keeps the corpora, trainings and derived tables of every session
under one budget in MB (`WORDPIECE_LAB_CACHE_MB`, default 400); the training service
(jobs.py) trains each key once however many sessions ask. No pandas or Altair here.
"""

from __future__ import annotations

import uuid

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import state
from .jobs import TrainingService
from .stores import BudgetStore, budget_from_env, free_promptly


@st.cache_resource(show_spinner=False)
def shared() -> tuple[BudgetStore, TrainingService]:
    """The server's one store and training service (made on the first visit)."""
    free_promptly()  # what the store lets go leaves the process too (stores.py)
    store = BudgetStore(budget_from_env())
    return store, TrainingService(store, connected=connected)


def connected(waiter: object) -> bool:
    """Whether the session `waiter` (a `session_id`) still has its browser connection. True where no server
    runs (AppTest): the service then waits for its heartbeats to stop. Safe from any thread."""
    if not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(str(waiter))


def store() -> BudgetStore:
    return shared()[0]


def service() -> TrainingService:
    return shared()[1]


def session_id() -> str:
    """This session's name for the training service (a waiting session polls under it): Streamlit's own, so
    the service can ask whether its connection is still there (`connected`)."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        return ctx.session_id
    if state.SESSION_ID not in st.session_state:
        st.session_state[state.SESSION_ID] = uuid.uuid4().hex
    return st.session_state[state.SESSION_ID]
