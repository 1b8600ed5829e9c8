"""wordpiece_ui/glossary.py: every term the app uses, in plain words."""

from wordpiece_ui import glossary


def test_the_glossary_defines_every_term_the_tables_use():
    for column in ("rank", "count(ab)", "count(a)", "score", "score × |V|", "Δ log-likelihood", "BPE rank"):
        assert column in glossary.candidate_columns()


def test_the_units_and_measures_on_screen_are_defined():
    for term in ("nats", "Jaccard overlap", "EM objective"):
        assert len(glossary.tip(term)) > 60
    assert "|A ∩ B| / |A ∪ B|" in glossary.tip("Jaccard overlap")
    assert "log" in glossary.tip("nats") and "nats a word" in glossary.tip("EM objective")


def test_tables_write_tiny_numbers_as_prose_does_and_leave_missing_cells_empty():
    import pandas as pd

    frame = pd.DataFrame({"piece": ["a", None], "loss increase": [-7.8e-5, 2.0], "p": [0.25, 0.5],
                          "rank": pd.array([None, 1234], dtype="Int64"), "count": [13334, 5]})
    shown, config = glossary.readable(frame, {"p": glossary.st.column_config.NumberColumn(format="%.4f", help="h")})
    assert list(shown["loss increase"]) == ["−7.8 × 10⁻⁵", "2"]
    assert config["loss increase"]["type_config"]["type"] == "text" and config["loss increase"]["alignment"] == "right"
    assert list(shown["piece"]) == ["a", ""] and list(shown["rank"]) == ["", "1,234"]
    assert list(shown["p"]) == [0.25, 0.5] and config["p"]["type_config"]["format"] == "%.4f"  # kept as it was
    assert config["count"]["type_config"]["format"] == "localized"  # 13,334, as the sentences write it
    assert list(frame["loss increase"]) == [-7.8e-5, 2.0]  # the caller's frame is left alone
