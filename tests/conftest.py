"""pytest's hooks for every test. The imports come from pytest.ini (`pythonpath = . tests`); the shared
helpers and data are in tests/helpers.py, whose ROOT is pytest's rootdir, set here.

Every test runs with a data directory of its own (WORDPIECE_LAB_DATA, wordpiece_ui/datastore.py), made
here and removed at the end: the tests never touch the user's real folder."""

import os
import shutil
import tempfile

import helpers

DATA = tempfile.mkdtemp(prefix="wordpiece-lab-test-data-")


def pytest_configure(config):
    helpers.ROOT = config.rootpath  # the folder of pytest.ini: the project root
    os.environ["WORDPIECE_LAB_DATA"] = DATA


def pytest_unconfigure(config):
    shutil.rmtree(DATA, ignore_errors=True)
