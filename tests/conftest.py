"""pytest's hooks for every test. The imports come from pytest.ini (`pythonpath = . tests`); the shared
helpers and data are in tests/helpers.py, whose ROOT is pytest's rootdir, set here.

Every test runs with a data directory of its own (WORDPIECE_LAB_DATA, wordpiece_ui/datastore.py), made
here and removed at the end: the tests never touch the user's real folder."""

import os
import shutil
import tempfile

import pytest

import helpers

DATA = tempfile.mkdtemp(prefix="wordpiece-lab-test-data-")


def pytest_configure(config):
    helpers.ROOT = config.rootpath  # the folder of pytest.ini: the project root
    os.environ["WORDPIECE_LAB_DATA"] = DATA


def pytest_unconfigure(config):
    shutil.rmtree(DATA, ignore_errors=True)


# ----- the browser tests' server and browser (tests/browser.py): one of each per test module ---------


@pytest.fixture(scope="module")
def server():
    """A real `streamlit run` of the app; a module's first test is its first visitor."""
    from browser import StreamlitServer

    s = StreamlitServer()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    from browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
