"""Fast page tests with Streamlit's AppTest."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


def test_app_runs_and_the_step_control_changes_the_merge():
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=60).run()
    assert not at.exception
    assert "##g + ##s → ##gs" in at.subheader[0].value
    at.slider[0].set_value(3).run()
    assert not at.exception
    assert "hu + ##gs → hugs" in at.subheader[0].value
