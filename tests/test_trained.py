"""wordpiece_ui/trained.py: the corpora and trainings every session of the server shares."""

import gc
import weakref

import pytest

from helpers import TOY, app, markdown
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


@pytest.mark.slow
@pytest.mark.parametrize("page", ["pages/train.py", "pages/playground.py"])
def test_a_session_keeps_no_training_alive_after_the_store_let_it_go(monkeypatch, page):
    """A session keeps its page between runs (the step view is a fragment, which keeps the page's globals;
    AppTest keeps it as the server does): its handle must not keep the training, or a class of sessions keeps
    every training the store let go. After the store lets it go, the next step trains it again."""
    from wordpiece_ui import server
    from wordpiece_ui.jobs import TrainingService

    class Store(BudgetStore):  # a BudgetStore that lists the keys put into it
        def put(self, key, value, nbytes=None):
            self.keys.append(key)
            return super().put(key, value, nbytes)

    store = Store(100_000_000)
    store.keys = []
    monkeypatch.setattr(server, "shared", lambda: (store, TrainingService(store)))
    at = app(page, corpus="english-paragraphs", algorithm="wordpiece", vocab_size=300, step=3, text="the tokens")
    keys = [key for key in dict.fromkeys(store.keys) if key[0] == "training" and key in store]
    assert len(keys) >= 1
    trainings = [weakref.ref(store.get(key)) for key in keys]
    store.put("everything else goes", b"", nbytes=store.budget)
    gc.collect()
    kept = [ref() for ref in trainings if ref() is not None]
    assert not kept, [type(r).__name__ for r in gc.get_referrers(*kept)]
    assert store.held == 0
    next(b for b in at.button if b.label == "Next").click().run()  # the step view finds its training gone
    assert not at.exception, at.exception
    assert "Step 4 of" in at.header[0].value if page == "pages/train.py" else "Word 2 of" in markdown(at)


def test_a_download_after_the_store_let_its_training_go_trains_it_again():
    """A download button keeps the handle (caches.when_clicked); clicked after the store let the training go,
    it trains it again through the service, while the corpus is still in memory."""
    from wordpiece_core.config import TrainerConfig
    from wordpiece_core.engine import train
    from wordpiece_ui import trained
    from wordpiece_ui.corpora import WordCounts
    from wordpiece_ui.jobs import TrainingService
    from wordpiece_ui.settings import Settings
    from wordpiece_ui.trained_model import TrainedModel, TrainingGone

    store = BudgetStore(10_000_000)
    service = TrainingService(store)
    config = TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=5)
    counts = WordCounts("toy", tuple(TOY.items()), "toy digest")
    job = service.join("toy", dict(TOY), config, "student")
    assert job.wait(10) and job.result is not None
    model = TrainedModel.of("toy", job.result, Settings(), counts, service)
    first = weakref.ref(job.result)
    del job
    store.put("everything else goes", b"", nbytes=store.budget)
    assert first() is None  # the handle did not keep it
    with pytest.raises(TrainingGone):
        model.training
    again = trained.training_now(model)
    assert again == train(TOY, config) and service.cached("toy") is again and model.training is again
    del again, counts
    store.put("everything else goes", b"", nbytes=store.budget)
    with pytest.raises(TrainingGone):  # nor the corpus: the page's next run counts and trains it again
        trained.training_now(model)


def test_the_size_estimate_counts_every_word_not_the_first_thousand():
    """A corpus whose long words come after a thousand short ones is estimated by all its words (before: by the
    first thousand, so 10,000-letter words at the end passed for 3-letter ones)."""
    from wordpiece_core.config import TrainerConfig
    from wordpiece_ui.corpora import WordCounts

    short = tuple((f"w{i:02d}"[-3:] + str(i), 1) for i in range(1000))
    long = tuple(("x" * 9_000 + str(i), 1) for i in range(200))
    from wordpiece_ui import trained

    config = TrainerConfig(algorithm="bpe", vocab_size=1000)
    counts = WordCounts("b", short + long, "d2")
    average = sum(len(w) for w, _ in counts.counts) / counts.types  # about 1,500 characters
    assert trained.needed_bytes(counts, config) >= config.estimated_bytes(counts.types, int(average))
