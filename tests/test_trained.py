"""wordpiece_ui/trained.py: the corpora and trainings every session of the server shares."""

from wordpiece_core.corpus import TextSettings
from wordpiece_ui.stores import BudgetStore


def test_start_early_starts_what_the_page_asks_for_and_nothing_the_page_would_refuse(monkeypatch):
    """app.py starts a page's trainings before the page runs (trained.start_early): the same configs and
    keys the page then joins; nothing for a pasted corpus, and nothing at all once this session stopped one
    of them (the page says so and starts none)."""
    from dataclasses import replace

    import streamlit as st

    from wordpiece_ui import server, state, trained
    from wordpiece_ui.settings import defaults_for

    joined = []

    class Service:  # records what would be trained; trains nothing
        def cached(self, key):
            return None

        def failure(self, key):
            return None

        def join(self, key, words, config, waiter):
            joined.append((key, config))

    store = BudgetStore(1_000_000_000)
    monkeypatch.setattr(server, "shared", lambda: (store, Service()))
    st.session_state.pop(state.TRAINING_STOPPED, None)
    settings = replace(defaults_for("wordfreq-en"), vocab_size=8000)  # the sidebar's algorithm: WordPiece
    trained.start_early(settings, pair=True)
    counts = store.get(("sample", "wordfreq-en", TextSettings(settings.normalizer, settings.pre_tokenizer,
                                                               settings.add_prefix_space)))
    pair = [trained.config_for(settings, "bpe"), trained.config_for(settings, "wordpiece")]
    assert joined == [(trained.training_key(counts, c), c) for c in pair]
    joined.clear()
    trained.start_early(settings, pair=False)
    assert joined == [(trained.training_key(counts, trained.config_for(settings)), trained.config_for(settings))]
    joined.clear()
    trained.start_early(replace(settings, corpus="paste"), pair=True)
    assert joined == []
    st.session_state[state.TRAINING_STOPPED] = {trained.training_key(counts, trained.config_for(settings))}
    try:
        trained.start_early(settings, pair=True)  # WordPiece was stopped: BPE is not started either
        assert joined == []
    finally:
        st.session_state.pop(state.TRAINING_STOPPED, None)
