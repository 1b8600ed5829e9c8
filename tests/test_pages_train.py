"""pages/train.py in AppTest: the page renders from a shared link, the step control works and the URL
follows it, bad input gives a message (not a traceback), long trainings show their progress and stop,
and the page explains itself (introduction, notes, the algorithm in code)."""

import pytest

from helpers import app, everything, shown
from wordpiece_ui import state
from wordpiece_ui.sources import ALL as ALL_SOURCES

pytest.importorskip("streamlit.testing.v1")  # AppTest


def texts(at):
    return shown("\n".join([m.value for m in at.markdown] + [h.value for h in at.header] + [w.value for w in at.warning]
                     + [s.value for s in at.success] + [c.value for c in at.caption]))


def test_shared_link_step_1_shows_the_course_first_merge():
    at = app(corpus="course-toy", algorithm="wordpiece", step=1)
    assert not at.exception
    assert shown(at.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"
    assert "5 / (20 × 5) = 1/20 = 0.05" in texts(at)
    assert "No tie" in texts(at)


def test_shared_link_step_2_shows_the_six_way_tie():
    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    assert not at.exception
    assert "h + ##u → hu" in shown(at.header[0].value)
    body = texts(at)
    assert "15 / (15 × 36) = 1/36 ≈ 0.0278" in body
    assert "6-way tie at 1/36" in body
    for pair in ["##u + ##g", "p + ##u", "##u + ##n", "b + ##u", "##u + ##gs"]:
        assert pair in shown(at.warning[0].value)


@pytest.mark.slow
def test_the_url_follows_the_step_control():
    at = app(corpus="course-toy", algorithm="wordpiece", step=1)
    next_button = next(b for b in at.button if b.label == "Next")
    next_button.click().run()
    assert not at.exception
    assert "h + ##u → hu" in shown(at.header[0].value)
    assert at.query_params["step"] == "2"
    at.slider(key="step_value:slider").set_value(3).run()
    assert "hu + ##gs → hugs" in shown(at.header[0].value)
    assert "5 / (15 × 5) = 1/15 ≈ 0.0667" in texts(at)
    prev_button = next(b for b in at.button if b.label == "Prev")
    prev_button.click().run()
    assert "h + ##u → hu" in shown(at.header[0].value)


def test_course_toy_step_3_note_explains_the_course_miscount():
    at = app(corpus="course-toy", algorithm="wordpiece", step=3)
    assert "2/45" in texts(at) and "hu + ##gs scores 5 / (15 × 5) = 1/15" in texts(at)


@pytest.mark.slow
def test_the_likelihood_examples_miscount_is_noted_at_its_step_only():
    at = app(corpus="low-lower-newest-widest", algorithm="wordpiece", step=1)
    assert "6 × 2 + 2 + 3 = 17" in texts(at) and "2/45" not in texts(at)
    at = app(corpus="low-lower-newest-widest", algorithm="wordpiece", step=2)
    assert "6 × 2 + 2 + 3 = 17" not in texts(at)
    at = app(corpus="low-lower-newest-widest", algorithm="bpe", step=1)
    assert "6 × 2 + 2 + 3 = 17" not in texts(at)


@pytest.mark.slow
def test_bpe_on_the_toy_corpus_counts_pairs():
    at = app(corpus="course-toy", algorithm="bpe", step=1)
    assert not at.exception
    assert "u + g → ug" in shown(at.header[0].value)
    assert "count(u g) = 20" in texts(at)


def test_seed_004_corpus_opens_with_its_settings_and_note():
    at = app(corpus="low-lower-newest-widest", algorithm="wordpiece")
    assert not at.exception
    assert "w + ##i → wi" in shown(at.header[0].value)
    assert "6 × 2 + 2 + 3 = 17" in texts(at)  # the note on the source's miscount (count(e) = 17 is the Corpora page's)
    assert at.number_input(key="s_min_frequency").value == 1


def test_bad_url_parameters_are_reported_and_replaced():
    at = app(corpus="nope", algorithm="gpt", vocab_size="-5", step="many")
    assert not at.exception
    warnings = " ".join(shown(w.value) for w in at.warning)
    assert "no sample corpus called 'nope'" in warnings
    assert "algorithm='gpt'" in warnings and "vocab_size='-5'" in warnings
    assert "Step 1 of 9" in shown(at.header[0].value)


def test_a_step_past_the_end_is_clamped_and_said():
    at = app(corpus="course-toy", step=999)
    assert not at.exception
    assert shown(at.header[0].value).startswith("Step 9 of 9")
    assert [i.value for i in at.info] == ["Step 999 is past this training's last step: showing step 9."]
    at = app(corpus="course-toy", step=10 ** 12)  # past the link's limit: step 1, and the sidebar says why
    assert shown(at.header[0].value).startswith("Step 1 of 9")
    assert "step='1000000000000' must be a whole number from 1 to 10,000,000" in shown(at.sidebar.warning[0].value)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["course-sentences", "english-paragraphs", "wordfreq-tr"])
def test_sample_corpora_train_and_render(corpus):
    at = app(corpus=corpus, step=5)
    assert not at.exception
    assert shown(at.header[0].value).startswith("Step 5 of")


@pytest.mark.slow
def test_changing_the_corpus_applies_its_suggested_settings():
    at = app(corpus="course-toy")
    at.selectbox(key="s_corpus").set_value("course-sentences").run()
    assert not at.exception
    assert at.number_input(key="s_vocab_size").value == 70
    assert at.selectbox(key="s_pre_tokenizer").value == "bert"
    assert at.query_params["corpus"] in ("course-sentences", ["course-sentences"])


def test_pasted_text_trains():
    at = app(corpus="paste")
    assert any("Paste some text" in i.value for i in at.info)
    at.text_area(key="paste_text").set_value("low lower lowest newer newest wider widest\n" * 3).run()
    assert not at.exception
    assert shown(at.header[0].value).startswith("Step 1 of")


@pytest.mark.parametrize("name,data,message", [
    ("corpus.txt", b"\x00\x01\x02\x00" * 400 + b"\x89PNG", "binary"),
    ("corpus.txt", "caf\xe9 au lait".encode("latin-1"), "not valid UTF-8"),
    ("corpus.txt", b"   \n\n", "empty"),
    ("counts.tsv", b"hug\t10\npug\tmany\n", "line 2"),
])
def test_bad_uploads_give_a_message(name, data, message):
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value((name, data, "text/plain")).run()
    assert not at.exception
    errors = " ".join(shown(e.value) for e in at.error)
    assert message in errors


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_a_utf16_upload_trains_as_its_utf8_twin(codec):
    """A file saved by Windows' Notepad or PowerShell (UTF-16, a byte order mark or none): once "a binary file"."""
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value(("toy.tsv", "hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n".encode(codec),
                                                  "text/plain")).run()
    assert not at.exception and not at.error
    assert shown(at.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"


def test_a_good_tsv_upload_trains():
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value(("toy.tsv", b"hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", "text/plain")).run()
    assert not at.exception
    assert shown(at.header[0].value) == "Step 1 of 9:  ##g + ##s → ##gs"


@pytest.mark.slow
def test_ask_first_hides_the_merge_until_revealed():
    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    at.toggle(key="quiz").set_value(True).run()
    assert not at.exception
    assert shown(at.header[0].value) == "Step 2 of 9:  which pair merges next?"
    assert "1/36" not in texts(at)  # no score until revealed
    quiz = at.dataframe[0].value
    assert list(quiz.columns) == ["pair", "count(ab)", "count(a)", "count(b)"]
    assert list(quiz["pair"]) == sorted(quiz["pair"])
    next(b for b in at.button if b.label == "Reveal the merge").click().run()
    assert "h + ##u → hu" in shown(at.header[0].value)
    next(b for b in at.button if b.label == "Next").click().run()
    assert "which pair merges next?" in shown(at.header[0].value)  # the next step is hidden again


@pytest.mark.slow
def test_a_long_training_shows_its_progress_and_stop_cancels_it(monkeypatch):
    """The page does not block while a large training runs: a progress view polls it, with
    a Stop button; stopping says so and offers to train again."""
    from wordpiece_ui import progress_view

    monkeypatch.setattr(progress_view, "POLL_WAIT_SECONDS", 0.0)  # Stop at once, long before the training ends
    at = app(corpus="wordfreq-en", algorithm="wordpiece", vocab_size=19_990)
    assert not at.exception
    assert len(at.get("progress")) == 1 and "Training WordPiece" in at.get("progress")[0].proto.text
    # While it waits, the browser is given one table, chart and metric to load their code with (in a
    # container its CSS hides: tests/test_browser.py); the page's next run no longer draws them.
    assert (len(at.dataframe), len(at.metric), len(at.get("vega_lite_chart"))) == (1, 1, 1)
    stop = next(b for b in at.button if b.label == "Stop")
    stop.click().run()
    assert not at.exception and not at.get("progress")
    assert (len(at.dataframe), len(at.metric), len(at.get("vega_lite_chart"))) == (0, 0, 0)
    assert any("You stopped the WordPiece training" in shown(i.value) for i in at.info)
    again = next(b for b in at.button if b.label == "Train again")
    again.click().run()
    assert len(at.get("progress")) == 1  # a new training starts
    next(b for b in at.button if b.label == "Stop").click().run()


@pytest.mark.slow
def test_the_first_poll_reruns_the_page_as_soon_as_the_training_ends(monkeypatch):
    """The progress view's first call (in the page's run) waits for the trainings once it has drawn their
    bars: the page shows a training as soon as it ends, not at the next poll (half a second later)."""
    from wordpiece_ui import progress_view

    monkeypatch.setattr(progress_view, "WAIT_SECONDS", 0.0)  # the progress view at once
    monkeypatch.setattr(progress_view, "POLL_WAIT_SECONDS", 60.0)  # and its first call waits for the training
    at = app(corpus="wordfreq-en", algorithm="wordpiece", vocab_size=5_123)  # (a size no other test trains)
    assert not at.exception and not at.get("progress")
    assert shown(at.header[0].value).startswith("Step 1 of ")


@pytest.mark.slow
def test_a_training_that_ends_within_the_first_wait_leaves_no_warm_up_behind():
    """The table, chart and metric drawn for the browser to load their code (progress_view._warm_up_browser)
    are taken away when the training ends before a progress view is needed."""
    app(corpus="course-toy")  # the pages' imports done, the training is still running when the page asks
    at = app(corpus="wordfreq-en", algorithm="bpe", vocab_size=400)
    assert not at.exception and not at.get("progress")
    assert not any("warm-up" in str(f.value.columns.tolist()) for f in at.dataframe)
    assert not any(m.label == "warm-up" for m in at.metric)


@pytest.mark.slow
def test_pasted_text_is_kept_when_another_corpus_is_chosen_in_between():
    at = app(corpus="paste")
    at.text_area(key="paste_text").set_value("low lower lowest\n").run()
    at.selectbox(key="s_corpus").set_value("course-toy").run()
    at.selectbox(key="s_corpus").set_value("paste").run()
    assert at.text_area(key="paste_text").value == "low lower lowest\n"
    assert shown(at.header[0].value).startswith("Step 1 of")


@pytest.mark.slow
def test_a_one_megabyte_word_is_refused_in_one_line():
    """A merge training takes words of up to 10,000 characters (wordpiece_core/engine/training.py)."""
    at = app(corpus="paste", algorithm="bpe")
    at.text_area(key="paste_text").set_value("ab" * 499_000).run()
    for _ in range(60):
        if not at.get("progress"):
            break
        import time
        time.sleep(0.5)
        at.run()
    assert not at.exception and not any(shown(h.value).startswith("Step") for h in at.header)
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "takes words of up to 10,000 characters, and the corpus has one of 998,000" in errors[0]


def test_the_longest_word_a_training_takes_is_drawn_shortened():
    at = app(corpus="paste")
    at.text_area(key="paste_text").set_value("ab" * 5_000).run()
    for _ in range(60):
        if not at.get("progress"):
            break
        import time
        time.sleep(0.5)
        at.run()
    assert not at.exception
    header = shown(at.header[0].value)
    assert header.startswith("Step 1 of") and len(header) < 200
    sizes = [len(m.value) for m in at.markdown]
    assert max(sizes) < 60_000, max(sizes)  # the before → after rows: the first 200 characters only
    assert any("the first 200 of 10,000 characters" in m.value for m in at.markdown)
    at.session_state["step_value"] = 10_000  # clamped to the last step, where tokens are longest
    at.run()
    header = shown(at.header[0].value)
    assert "characters)" in header and len(header) < 250  # long tokens shown by their ends and length
    assert max(len(m.value) for m in at.markdown) < 60_000


def test_a_training_larger_than_the_memory_budget_is_refused_with_its_size(monkeypatch):
    from wordpiece_ui import server

    monkeypatch.setenv("WORDPIECE_LAB_CACHE_MB", "16")
    server.shared.clear()  # the server's store is made anew with this budget
    try:
        at = app(corpus="wordfreq-en", algorithm="wordpiece", vocab_size=50_000)
        assert not at.exception and not at.get("progress")
        errors = " ".join(shown(e.value) for e in at.error)
        assert "would need about" in errors and "(16 MB)" in errors and "at most 50,000" in errors
    finally:
        server.shared.clear()


@pytest.mark.parametrize("algorithm", ["bpe", "unigram"])
def test_a_corpus_whose_training_would_outweigh_the_worker_budget_is_refused_by_its_size(monkeypatch, algorithm):
    """What a training weighs while it runs grows with its distinct words' characters (the pair index, Unigram's
    lattices), not with what it stores: past the worker budget (WORDPIECE_LAB_WORKER_MB) one line says so and no
    training starts."""
    monkeypatch.setenv("WORDPIECE_LAB_WORKER_MB", "100")
    at = app(corpus="paste", algorithm=algorithm, vocab_size=1000)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ("".join(letters[(i // 26 ** k) % 26] for k in range(10)) for i in range(40_000))  # 400,000 characters
    at.text_area(key="paste_text").set_value(" ".join(words)).run()
    assert not at.exception and not at.get("progress")
    errors = " ".join(shown(e.value) for e in at.error)
    assert "This corpus is too large to train here" in errors and "characters in 40,000 distinct words" in errors
    assert "(100 MB)" in errors and "fewer or shorter distinct words" in errors


def test_a_unigram_training_too_large_for_any_vocabulary_is_told_to_use_a_smaller_corpus(monkeypatch):
    """Unigram's size hardly depends on the vocabulary: the refusal does not send the student lowering it."""
    from wordpiece_ui import server

    monkeypatch.setenv("WORDPIECE_LAB_CACHE_MB", "16")
    server.shared.clear()
    try:
        at = app(corpus="paste", algorithm="unigram", vocab_size=1000)
        letters = "abcdefghijklmnopqrstuvwxyz"
        words = ("".join(letters[(i // 26 ** k) % 26] for k in range(10)) for i in range(40_000))  # 40,000 distinct
        at.text_area(key="paste_text").set_value(" ".join(words)).run()
        assert not at.exception and not at.get("progress")
        errors = " ".join(shown(e.value) for e in at.error)
        assert "would need about" in errors and "(16 MB)" in errors, errors
        assert "Use a smaller corpus: a smaller vocabulary would not bring it under that." in errors
        assert "Lower the vocabulary" not in errors
    finally:
        server.shared.clear()


@pytest.mark.slow
def test_tokens_of_a_pasted_corpus_are_shown_as_text():
    at = app(corpus="paste", pre_tokenizer="whitespace-split", algorithm="bpe", vocab_size=200)
    at.text_area(key="paste_text").set_value("**b** **b** [l](http://evil.example) [l](http://evil.example)\n" * 3).run()
    assert not at.exception
    at.session_state["step_value"] = 3  # the merge that makes **b**
    at.run()
    header = at.header[0].value
    assert "\\*\\*b\\*\\*" in header and shown(header) == "Step 3 of 26:  **b + ** → **b**", header  # escaped …
    at.session_state["step_value"] = 10_000  # the last step: the link merged whole
    at.run()
    header = at.header[0].value
    assert "\\[l\\]\\(http" in header, header
    assert shown(header) == "Step 26 of 26:  [l](http://evil.example + ) → [l](http://evil.example)", header
    sources = [header] + [m.value for m in at.markdown if "wpl-chip" not in m.value]
    import re

    for body in sources + [w.value for w in at.warning]:
        outside_code = re.sub(r"(`+).*?\1", "", body)  # code spans show their text as it is
        for source in ALL_SOURCES:  # the app's own links to its sources are the only live ones
            outside_code = outside_code.replace(source.md(), "")
        assert "](http" not in outside_code.replace("\\](http", "")  # … and no live Markdown link anywhere


@pytest.mark.slow
@pytest.mark.parametrize("count", ["1" + "0" * 30, "1" + "0" * 400])
def test_an_uploaded_count_too_large_is_refused_with_the_limit(count):
    at = app(corpus="upload")
    at.file_uploader(key="upload_file").set_value(("huge.tsv", f"hug\t{count}\npug\t5\n".encode(), "text/plain")).run()
    assert not at.exception
    errors = " ".join(shown(e.value) for e in at.error)
    assert "9,223,372,036,854,775,807 (2^63 − 1)" in errors


@pytest.mark.slow
def test_quiz_guesses_are_judged_with_both_scores_and_counted():
    at = app(corpus="course-toy", algorithm="wordpiece", step=1, quiz=1)
    assert shown(at.header[0].value) == "Step 1 of 9:  which pair merges next?"
    at.selectbox(key="guess 1").set_value("##g + ##s").run()
    next(b for b in at.button if b.label == "Reveal the merge").click().run()
    verdict = shown(at.success[0].value)
    assert verdict.startswith("Right: ##g + ##s wins with score 1/20") and "1 of 1 right" in verdict
    next(b for b in at.button if b.label == "Next").click().run()
    at.selectbox(key="guess 2").set_value("##u + ##g").run()  # count 15, but the winner scores 1/36 and ties
    next(b for b in at.button if b.label == "Reveal the merge").click().run()
    assert "Right, by a tie" in shown(at.success[0].value) and "2 of 2 right" in shown(at.success[0].value)
    next(b for b in at.button if b.label == "Next").click().run()
    at.selectbox(key="guess 3").set_value("##u + ##n").run()
    next(b for b in at.button if b.label == "Reveal the merge").click().run()
    verdict = shown(at.error[0].value)
    assert verdict.startswith("Not this one: ##u + ##n has score") and "hu + ##gs" in verdict
    assert "× lower" in verdict and "2 of 3 right" in verdict
    next(b for b in at.button if b.label == "First").click().run()  # back to a step the class has seen
    assert shown(at.header[0].value).startswith("Step 1 of 9:  ##g + ##s → ##gs")  # still revealed …
    assert "2 of 3 right" in shown(at.success[0].value)  # … with its guess and the same score



def test_a_step_draws_its_panels_only_while_open_and_they_stay_open():
    """The candidate table, the vocabulary and the charts over all steps are closed panels: a step
    draws none of them (so a class's clicks stay quick), and a panel opened stays open at the next step."""
    from wordpiece_ui import state

    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    assert [e.label for e in at.expander] == [
        "Candidate table: every count and score at this step", "Vocabulary so far",
        "Over all steps: the chosen score, vocabulary size and tokens per word",
        "The algorithm in code, with this step's numbers",
        "A real tokenizer's training, replayed: GPT-2's, GPT-4's and GPT-4o's merges"]
    assert not at.dataframe and len(at.get("vega_lite_chart")) == 1  # only the step's own candidate chart
    at.session_state[state.CANDIDATES_OPEN] = True
    at.session_state[state.VOCAB_OPEN] = True
    at.session_state[state.STEPS_OPEN] = True
    at.run()
    ranking, vocab = at.dataframe[0].value, at.dataframe[1].value
    assert list(ranking["pair"][:3]) == ["h + ##u", "##u + ##g", "p + ##u"] and set(ranking["exact"][:3]) == {"1/36"}
    assert list(vocab["token"][:2]) == ["hu", "##gs"] and list(vocab["new"][:2]) == ["★", ""]
    assert len(at.get("vega_lite_chart")) == 2  # and the chart over all steps
    next(b for b in at.button if b.label == "Next").click().run()
    assert not at.exception
    assert list(at.dataframe[1].value["token"][:2]) == ["hugs", "hu"]  # still open, at step 3
    assert at.dataframe[0].value["pair"].iloc[0] == "hu + ##gs"


@pytest.mark.slow
def test_the_candidate_tables_choice_and_its_panel_survive_a_hidden_quiz_step_and_a_page_switch():
    from wordpiece_ui import state

    at = app(corpus="course-toy", algorithm="wordpiece", step=2)
    at.session_state[state.kept(state.CANDIDATES_OPEN)] = True  # opened (the panel remembers it so)
    at.run()
    at.segmented_control(key=state.CANDIDATE_ROWS).set_value("all").run()
    at.toggle(key="quiz").set_value(True).run()
    assert "which pair merges next?" in shown(at.header[0].value)  # the panel is not drawn now
    next(b for b in at.button if b.label == "Reveal the merge").click().run()
    assert at.segmented_control(key=state.CANDIDATE_ROWS).value == "all" and len(at.dataframe) == 1
    at.switch_page("pages/corpora.py").run()
    at.switch_page("pages/train.py").run()
    assert not at.exception
    assert at.segmented_control(key=state.CANDIDATE_ROWS).value == "all"
    assert at.expander[0].label.startswith("Candidate table") and len(at.dataframe) == 1  # open, with its table


@pytest.mark.slow
def test_all_pairs_are_recounted_when_the_open_table_comes_back_after_a_page_switch():
    """On a corpus too large for the full table by default, "all" must still mean every pair after
    the table's panel is drawn anew (another page and back), not the trainer's recorded top ones."""
    from wordpiece_ui import state

    at = app(corpus="wordfreq-en", algorithm="wordpiece", vocab_size=300, step=5)
    at.session_state[state.kept(state.CANDIDATES_OPEN)] = True
    at.run()
    at.segmented_control(key=state.CANDIDATE_ROWS).set_value("all").run()
    assert "candidates shown from every pair" in texts(at)
    at.switch_page("pages/corpora.py").run()
    at.switch_page("pages/train.py").run()
    assert not at.exception
    assert "candidates shown from every pair" in texts(at) and len(at.dataframe[0].value) > 25


def test_the_introduction_shows_once_and_is_dismissed_for_the_session():
    at = app(corpus="course-toy", algorithm="wordpiece", step=1)
    body = everything(at)
    assert "New here?" in body and "h ##u ##g ##s" in body and "5 / (20 × 5) = 1/20" in body
    next(b for b in at.button if b.label == "Got it").click().run()
    assert "New here?" not in everything(at)
    at.session_state["step_value"] = 2
    at.run()
    assert "New here?" not in everything(at)  # remembered


@pytest.mark.slow
def test_notes_fit_the_toy_steps():
    first = everything(app(corpus="course-toy", algorithm="wordpiece", step=1))
    assert "Why ##g + ##s and not h + ##u? 5 / (20 × 5) = 1/20 = 0.05 against 15 / (15 × 36) = 1/36" in first
    assert "its second part is rarer on its own: ##s occurs 5 times, ##u 36" in first  # tokens named, not "b"
    assert "WordPiece's score is not that gain: the gain is roughly count(ab) × log(score × N)" in first
    assert "the score approximates it" not in first
    assert "BPE would merge ##u + ##g here (count(ab) = 20" in first
    second = everything(app(corpus="course-toy", algorithm="wordpiece", step=2))
    assert "A tie decided this step: 6 pairs score 1/36" in second
    assert "smallest ids (Hugging Face's tokenizers), would merge ##u + ##g instead" in second  # ids 3, 0
    third = everything(app(corpus="course-toy", algorithm="wordpiece", step=3))
    assert "A whole word becomes one token: hugs (×5)" in third
    assert "The course's step 3" in third
    hf = everything(app(corpus="course-toy", algorithm="wordpiece", step=2, tie_break="hf"))
    assert "first seen (the course), would merge h + ##u instead" in hf
    bpe = everything(app(corpus="course-toy", algorithm="bpe", step=1))
    assert "Why u + g? It occurs 20 times" in bpe


@pytest.mark.slow
@pytest.mark.parametrize("params,message", [
    ({"min_frequency": "1000000"}, "no pair occurs at least 1000000 times"),
    ({"vocab_size": "3"}, "already fill the vocabulary size"),
])
def test_settings_that_allow_no_merge_explain_why(params, message):
    at = app("pages/train.py", corpus="course-toy", **params)
    assert any(message in w.value for w in at.warning), [w.value for w in at.warning]


@pytest.mark.slow
def test_the_share_box_holds_the_current_link():
    at = app("pages/train.py", corpus="course-toy", algorithm="wordpiece", step="2")
    assert not at.code  # the Share popover is drawn only while open
    at.session_state["share_open "] = True  # opened
    at.run()
    link = at.code[0].value
    assert "corpus=course-toy" in link and "algorithm=wordpiece" in link and "step=2" in link


def test_the_sliders_old_value_sent_back_just_after_a_move_is_not_a_drag():
    """A rerun the browser sent before it heard of a move (a class room's poll, a fast click) carries the slider's
    old value: within stepper.ECHO_SECONDS it must not send the view back a step; a real drag still moves it."""
    at = app(corpus="course-toy", algorithm="wordpiece", step=1)
    next(b for b in at.button if b.label == "Next").click().run()
    assert shown(at.header[0].value).startswith("Step 2 of 9")
    at.slider(key="step_value:slider").set_value(1).run()  # the old value, echoed
    assert shown(at.header[0].value).startswith("Step 2 of 9")
    at.slider(key="step_value:slider").set_value(4).run()  # a drag
    assert shown(at.header[0].value).startswith("Step 4 of 9")


def _download_labels(at) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


@pytest.mark.slow
def test_ask_first_keeps_the_answers_out_of_the_downloads_and_offers_a_worksheet():
    at = app(corpus="course-toy", algorithm="wordpiece", quiz=1)
    labels = _download_labels(at)
    assert "Worksheet (HTML)" in labels
    assert not {"trace.csv", "tokenizer.json", "Handout (HTML)"} & set(labels)  # they hold the hidden merges
    at.toggle(key="downloads_in_quiz").set_value(True).run()
    assert {"trace.csv", "tokenizer.json", "Handout (HTML)", "Worksheet (HTML)"} <= set(_download_labels(at))
    at = app(corpus="course-toy", algorithm="wordpiece")  # without Ask first: all of them at once
    assert {"trace.csv", "tokenizer.json", "Handout (HTML)", "Worksheet (HTML)"} <= set(_download_labels(at))


@pytest.mark.slow
def test_a_handout_range_beyond_the_training_says_what_it_gives():
    at = app(corpus="course-toy", algorithm="wordpiece")
    at.number_input(key=state.HANDOUT_LAST).set_value(10).run()
    assert not at.exception
    assert any("Steps 1 to 9 (this training has 9 steps)." in i.value for i in at.info)
