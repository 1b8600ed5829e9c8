"""pytest's hooks for every test. The imports come from pytest.ini (`pythonpath = . tests`); the shared
helpers and data are in tests/helpers.py, whose ROOT is pytest's rootdir, set here."""

import helpers


def pytest_configure(config):
    helpers.ROOT = config.rootpath  # the folder of pytest.ini: the project root
