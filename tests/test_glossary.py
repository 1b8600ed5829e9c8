"""wordpiece_ui/glossary.py: every term the app uses, in plain words."""

from wordpiece_ui import glossary


def test_the_glossary_defines_every_term_the_tables_use():
    for column in ("rank", "count(ab)", "count(a)", "score", "score × |V|", "Δ log-likelihood", "BPE rank"):
        assert column in glossary.candidate_columns()
