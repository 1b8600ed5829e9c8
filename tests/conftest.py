"""pytest's hooks for every test. The imports come from pytest.ini (`pythonpath = . tests`); the shared
helpers and data are in tests/helpers.py, whose ROOT is pytest's rootdir, set here."""

import pytest

import helpers


def pytest_configure(config):
    helpers.ROOT = config.rootpath  # the folder of pytest.ini: the project root


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
