"""Helpers for the browser tests: a real `streamlit run` and Debian's Chromium via Playwright.

benchmarks/bench_browser.py imports this module too, outside pytest: so it finds the project root
from its own place, where the tests take it from pytest's configuration (tests/helpers.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/bin/chromium"
SHOTS = os.environ.get("SCREENSHOT_DIR", os.path.join(ROOT, "artifacts", "screenshots"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StreamlitServer:
    """`streamlit run app.py` on a free port, with a data directory (WORDPIECE_LAB_DATA) of its own: a new
    temporary one, removed when the server stops, unless `data_dir` names one (a restart keeps it)."""

    def __init__(self, data_dir: str | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.own_data = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="wordpiece-lab-data-")
        os.makedirs(SHOTS, exist_ok=True)  # a fresh clone has no artifacts folder yet
        self.log = open(os.path.join(SHOTS, "streamlit.log"), "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(self.port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "WORDPIECE_LAB_DATA": self.data_dir},
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("streamlit did not start within 60 s; see " + self.log.name)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        if self.own_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def tab(browser, viewport, scheme="light", phone=False):
    """A page in a browser context of its own (a phone: is_mobile and touch), its script errors kept in
    `page.errors`."""
    context = browser.new_context(viewport=viewport, color_scheme=scheme, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until Streamlit has finished running the script (no 'running' status widget, no skeleton, no element
    kept stale from the run before)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]') ||
                  !document.querySelector('[data-testid="stStatusWidget"]').innerText.includes('Running')""",
        timeout=timeout,
    )
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                           timeout=timeout)
    # A run still drawing keeps the elements of the one before, marked stale, until it ends (a status widget
    # may not show yet for a run younger than half a second).
    page.wait_for_function("() => document.querySelectorAll('[data-stale=\"true\"]').length === 0",
                           timeout=timeout)
    page.wait_for_timeout(800)


def start_room(page, url: str, algorithm: str = "wordpiece") -> str:
    """The teacher opens the course's toy corpus (with `algorithm`) and clicks *Start a class room*; the student
    link the page shows (the room's phone page, /class/CODE: what the QR code gives)."""
    import re

    page.goto(url + f"/?corpus=course-toy&algorithm={algorithm}&step=1")
    page.get_by_text(re.compile(r"(Step|Round) 1 of \d+")).first.wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Start a class room").click()
    page.get_by_text(re.compile(r"Class room [A-Z2-9]{6}")).first.wait_for(timeout=30_000)
    wait_idle(page)
    return page.locator('[data-testid="stCode"]').filter(has_text="/class/").first.inner_text().strip()


def full_link(link: str) -> str:
    """The room on the Train page (a laptop's view, *Open the full step*) for a student link /class/CODE."""
    root, code = link.rsplit("/class/", 1)
    return f"{root}/?room={code}"

