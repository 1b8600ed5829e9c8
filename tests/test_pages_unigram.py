"""The Train page with algorithm=unigram, in AppTest: the course's toy round with the course's numbers, the
tokenizers rule's EM and pruning on a wordfreq list, ask first, and the links' Unigram parameters."""

import functools
import json

import pytest

from helpers import app, everything, shown
from wordpiece_ui import classroom, room_teacher, rounds_view, state
from wordpiece_ui.rounds_view import RoundsView
from wordpiece_ui.settings import Settings, defaults_for, from_query

pytest.importorskip("streamlit.testing.v1")  # AppTest


def trained_app(**params):
    """The page once its training is ready (a wordfreq list trains in a worker process: a progress view first)."""
    import time

    at = app(**params)
    for _ in range(120):
        if at.header:
            return at
        time.sleep(0.5)
        at.run()
    return at


def texts(at):
    return shown("\n".join([m.value for m in at.markdown] + [h.value for h in at.header] + [w.value for w in at.warning]
                           + [s.value for s in at.success] + [c.value for c in at.caption]))


def test_unigram_settings_round_trip_through_the_url():
    s = Settings(corpus="course-toy", algorithm="unigram", vocab_size=11, specials="unk-piece", unigram_rule="course",
                 whole_words=False)
    back, _, problems = from_query(s.to_query())
    assert (back, problems) == (s, [])
    assert "tie_break" not in s.to_query() and s.to_query()["whole_words"] == "0"
    t = Settings(corpus="english-paragraphs", algorithm="unigram", pre_tokenizer="metaspace", unigram_rule="tokenizers")
    assert "whole_words" not in t.to_query() and from_query(t.to_query())[0].pre_tokenizer == "metaspace"


def test_unigram_links_take_the_corpus_suggestions_and_refuse_what_does_not_fit():
    toy = defaults_for("course-toy", "unigram")
    assert (toy.unigram_rule, toy.vocab_size, toy.specials, toy.whole_words) == ("course", 11, "unk-piece", False)
    assert defaults_for("wordfreq-en", "unigram").unigram_rule == "tokenizers"
    settings, _, problems = from_query({"corpus": "course-toy", "algorithm": "bpe", "pre_tokenizer": "metaspace"})
    assert settings.pre_tokenizer == "whitespace" and "for the Unigram algorithm" in problems[0]
    settings, _, problems = from_query({"corpus": "course-toy", "algorithm": "unigram", "unigram_rule": "<b>x"})
    assert settings.unigram_rule == "course" and "unigram_rule='<b>x' is not one of tokenizers, course" in problems[0]


@pytest.mark.slow
def test_the_toy_round_shows_the_course_numbers():
    at = app(corpus="course-toy", algorithm="unigram", step=1)
    assert shown(at.header[0].value) == "Round 1 of 5:  15 → 14 pieces  (− ug)"
    body = texts(at)
    assert "Loss of the corpus (Σ count × cost): **169.80**" in body  # the course's 169.8
    assert "p un (p = 0.006168)" in body  # the course's best split of pun and its probability
    assert "−log(17/210) (2.514) + −log(16/210) (2.575) = **5.088**" in body
    assert "**Why ug?**" in body and "costs nothing" in body
    assert "The course's code would print this loss as 205.80 (+ 36, one per word occurrence)" in body
    assert "Why the loss can fall from round to round" in body
    assert "17/210" in body  # the course's pug erratum, named at the first round
    assert "Hugging Face course, “Unigram tokenization”" in body
    assert _chart_titles(at) == ["All 8 candidates (1 removed)", "The vocabulary at each round's start",
                                 "The corpus's loss after each round"]


def _number(value) -> float:
    """A number as the tables write it (3.53 × 10⁻⁴, −0.5, 1,234) back to a float."""
    if not isinstance(value, str):
        return float(value)
    text = value.replace(",", "").replace("−", "-")
    if "× 10" not in text:
        return float(text)
    mantissa, power = text.split(" × 10")
    return float(mantissa) * 10.0 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))


def _chart_titles(at) -> list[str]:
    """The titles of the page's charts (a chart says what it shows), and that each axis of a loss has its unit."""
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    for spec in specs:
        axes = [layer["encoding"]["x"]["title"] for layer in spec.get("layer", []) if "x" in layer.get("encoding", {})]
        assert all("(nats)" in a for a in axes if "loss" in a), axes
    titles = [spec["title"] for spec in specs if "title" in spec]
    return [" ".join(t["text"]) if isinstance(t, dict) and isinstance(t["text"], list) else
            t["text"] if isinstance(t, dict) else t for t in titles]


@pytest.mark.parametrize("rule, reason", [
    ("tokenizers", "stopped early: 11 tokens for the 30 asked for: EM left 10 pieces"),
    ("course", "stopped early: 16 tokens for the 30 asked for: the seed holds no more"),
])
def test_a_vocabulary_smaller_than_asked_says_it_stopped_early_and_why(rule, reason):
    at = app(corpus="course-toy", algorithm="unigram", vocab_size="30", unigram_rule=rule)
    assert reason in texts(at)


@pytest.mark.slow
def test_the_tokenizers_rule_shows_em_and_the_pruning():
    at = trained_app(corpus="wordfreq-en", algorithm="unigram", step=1)
    assert shown(at.header[0].value).startswith("Round 1 of 7:  13,334 → 4,217 pieces")  # EM's drops, then the pruning's
    body = texts(at)
    assert "2,364 pieces went for free" in body and "EM objective after this round's EM" in body
    assert "EM dropped 6,753 pieces" in body
    assert _chart_titles(at)[0] == "The 15 cheapest candidates: this round's pruning removed none"
    em = next(d.value for d in at.dataframe if "EM iteration" in d.value.columns)
    assert list(em["EM iteration"]) == [1, 2]
    assert (em["pieces after"] <= em["pieces before"]).all()
    expected = next(d.value for d in at.dataframe if "expected count" in d.value.columns)
    assert list(expected["expected count"]) == sorted(expected["expected count"], reverse=True)
    at = trained_app(corpus="wordfreq-en", algorithm="unigram", step=2)
    body = texts(at)
    assert "Why " in body and "second-best split" in body and "the chart shows the candidates around the cut" in body
    assert _chart_titles(at)[0].startswith("The 15 candidates around the cut (")
    cand = next(d.value for d in at.dataframe if "replaced by" in d.value.columns)
    increase = [_number(v) for v in cand["loss increase"]]  # tiny estimates: scaled to a power of ten in the header
    assert all(isinstance(v, float) for v in cand["loss increase"])  # (numbers still: the column sorts)
    assert cand["removed"].any() and increase == sorted(increase)
    assert all(_number(v) >= 0 for v in cand["exact (course)"])  # the course's exact increase beside the estimate
    # this round, the course's exact rule would cut other pieces than tokenizers' estimate (the other case, and
    # the agreeing ones: test_the_course_rules_note_says_which_pieces_it_would_remove_instead)
    assert ("What the course's rule would do.** Among the 15 candidates shown around the cut, its exact loss increases "
            "would remove conque, examin, grabb instead of crie, educate, precis") in body
    assert "would remove the same" not in body


def test_the_course_rules_note_says_which_pieces_it_would_remove_instead():
    """Under a tokenizers round, the note on the course's exact rule (wordpiece_ui/rounds_view.py) in each case:
    it removes the same pieces as tokenizers' estimate, or others; with none removed among those shown, it
    ranks the same piece first, or another."""
    import pandas as pd

    from wordpiece_ui.rounds_view import exact_note

    def note(exact, removed):
        frame = pd.DataFrame({"piece": ["ab", "cd", "ef", "gh"], "loss increase": [1.0, 2.0, 3.0, 4.0],
                              "exact (course)": exact, "removed": removed})
        return [shown(n) for n in exact_note(frame)]

    cut = [True, True, False, False]  # tokenizers' estimate removes ab and cd
    assert note([1.0, 2.0, 3.0, 4.0], cut) == [
        "Among the 4 candidates shown around the cut, the course's exact rule would remove the same 2."]
    [differs] = note([3.0, 1.0, 2.0, 4.0], cut)
    assert differs.startswith("**What the course's rule would do.** Among the 4 candidates shown around the cut, its "
                              "exact loss increases would remove ef instead of ab: ")
    kept = [False] * 4
    assert note([1.0, 2.0, 3.0, 4.0], kept) == [
        "Among the candidates shown, the course's exact rule agrees: ab costs least to remove (1 nat a word exactly)."]
    assert note([2.0, 1.0, 3.0, 4.0], kept) == [
        "**What the course's rule would do.** Among the candidates shown, the exact loss increase is smallest for cd "
        "(1 nat a word), where tokenizers' estimate ranks ab first."]


@pytest.mark.slow
def test_ask_first_hides_the_round_until_revealed():
    at = app(corpus="course-toy", algorithm="unigram", step=2, quiz=1)
    assert shown(at.header[0].value) == "Round 2 of 5:  which piece costs least to remove?"
    assert "169.80" not in texts(at)
    guess = at.radio(key=f"{state.GUESS} round 2")
    assert guess.options == ["hug", "pu", "un"]  # one piece of each cost: 22.5, 8.3 and 0 (un, with four others)
    guess.set_value("un").run()
    next(b for b in at.button if b.label == "Reveal the round").click().run()
    assert shown(at.header[0].value).startswith("Round 2 of 5:  14 → 13 pieces")
    assert "You chose un: right, nothing costs less to remove." in texts(at)
    revealed = next(d.value for d in at.dataframe if "loss increase" in d.value.columns and "p" in d.value.columns)
    assert revealed["piece"].tolist() == ["un", "pu", "hug"]  # each choice's cost, cheapest first
    assert revealed["loss increase"].round(2).tolist() == [0.0, 8.32, 22.51]


@pytest.mark.slow
def test_the_downloads_and_the_handout_hold_the_rounds():
    from wordpiece_core.unigram.training import UnigramConfig, train_unigram
    from wordpiece_ui import rounds_view, unigram_handout
    from helpers import TOY

    training = train_unigram(TOY, UnigramConfig("course", 11, ("<unk>",), whole_words=False))
    settings = Settings(corpus="course-toy", algorithm="unigram", unigram_rule="course", vocab_size=11,
                        specials="unk-piece", whole_words=False)
    model = json.loads(rounds_view.download_file(training, settings, "tokenizer.json"))["model"]
    assert model["type"] == "Unigram" and model["unk_id"] == 0 and len(model["vocab"]) == 11
    rounds = [json.loads(x) for x in rounds_view.download_file(training, settings, "trace.jsonl").splitlines()]
    assert [r["removed"] for r in rounds] == [["ug"], ["un"], ["hu"], ["ugs"], ["gs"]]
    page = unigram_handout.as_html(training, sorted(TOY.items()), "Course toy <words>", 1, 2, "http://x/?a=1&b=2")
    assert "Round 1: 15 pieces, loss 169.80" in page and "Course toy &lt;words&gt;" in page and "<script" not in page
    sheet = unigram_handout.as_markdown(training, sorted(TOY.items()), "toy", 1, 2, "http://x", answers=False)
    assert "Removed first:" in sheet and "0.000" not in sheet


@pytest.mark.slow
def test_compare_sets_unigram_beside_bpe_and_wordpiece():
    import time

    at = app("pages/compare.py", corpus="wordfreq-en", algorithms="bpe,wordpiece,unigram")
    for _ in range(120):  # the three trainings run in worker processes
        if at.metric and at.metric[0].value != "0" and len(at.dataframe) >= 3:
            break
        time.sleep(0.5)
        at.run()
    assert shown(at.title[0].value) == "Compare tokenizers: BPE vs WordPiece vs Unigram"
    assert [m.label for m in at.metric] == ["BPE vocabulary", "WordPiece vocabulary", "Unigram vocabulary"]
    overlap = at.dataframe[0].value
    assert list(overlap["pair"]) == ["BPE – WordPiece", "BPE – Unigram", "WordPiece – Unigram"]
    assert ((0 < overlap["Jaccard"]) & (overlap["Jaccard"] <= 1)).all()
    figures = at.dataframe[1].value
    assert set(figures["tokenizer"]) == {"BPE", "WordPiece", "Unigram"}
    assert at.query_params["algorithms"] == "bpe,wordpiece,unigram"  # the address bar, the shareable link


def test_a_bad_algorithms_link_is_said_and_the_pair_shown():
    at = app("pages/compare.py", corpus="course-toy", algorithms="bpe,<b>x</b>")
    assert shown(at.title[0].value) == "BPE vs WordPiece"
    assert "should name two or three of bpe, wordpiece, unigram" in shown(at.warning[0].value)
    assert "<b>" not in at.warning[0].value  # the link's text is escaped, not rendered


@pytest.mark.slow
def test_a_class_room_votes_on_a_unigram_round():
    teacher = app(corpus="course-toy", algorithm="unigram", step=1)
    next(b for b in teacher.button if b.label == "Start a class room").click().run()
    code = teacher.session_state[state.ROOM]
    assert shown(teacher.header[0].value) == "Round 1 of 5:  which piece costs least to remove?"  # ask first is on
    # Round 1 of the toy: seven pieces cost nothing to remove and hug 23.5; the vote asks between one of each
    assert [c.value for c in teacher.dataframe][0]["piece"].tolist() == ["hug", "ug"]
    students = [app(room=code) for _ in range(3)]
    # named so that the record's order (by nickname) is neither the order of the votes nor that of the pieces
    for s, piece, nickname in zip(students, ["ug", "hug", "ug"], ["Cem", "Ann", "Bob"]):
        s.text_input(key=state.ROOM_NICKNAME_BOX).set_value(nickname).run()
        assert s.session_state[state.ROOM_NICKNAME] == nickname
        assert shown(s.header[0].value) == "Round 1 of 5:  which piece costs least to remove?"
        reasons = s.dataframe[0].value  # what a phone reasons from: counts, probabilities, words, splits without
        assert list(reasons.columns) == ["piece", "count", "p", "in the words", "split without it"]
        assert reasons.set_index("piece").loc["hug", "split without it"] == "h ug"
        vote = next(r for r in s.radio if r.label.startswith("Your vote"))
        assert vote.label == "Your vote: which piece costs least to remove?" and vote.options == ["hug", "ug"]
        vote.set_value(piece).run()
    teacher.run()
    assert "3 of 3 answered" in everything(teacher)
    next(b for b in teacher.button if b.label == "Show answers").click().run()
    next(b for b in teacher.button if b.label == "Reveal the round").click().run()
    assert shown(teacher.header[0].value).startswith("Round 1 of 5:  15 → 14 pieces")
    body = everything(teacher)
    assert "round 1: 2 of 3 right (67%)" in body
    record = classroom.store().record(code)  # (step, round, nickname, kind, choice): by step, round and nickname
    assert [row[2:] for row in record] == [("Ann", "piece", "hug"), ("Bob", "piece", "ug"), ("Cem", "piece", "ug")]
    assert len({row[:2] for row in record}) == 1  # one step, one round
    # the lesson record, with the round's costs as the page's question has them (hug 23.5, ug 0)
    room = classroom.Room(classroom.store().snapshot(code), teacher.session_state[state.ROOM_TEACHER], None)
    question = classroom.Question(("hug", "ug"), "ug",
                                  functools.partial(rounds_view.judge_removal, [("ug", 0.0), ("hug", 23.5)]))
    frame, rows = room_teacher.record_frame(room, lambda step: question, RoundsView.answer_name)
    assert frame.to_dict("records") == [{"step": 1, "removed first": "ug", "round": 1, "answered": 3, "right": 2,
                                         "right %": 67, "normalised gain": None}]
    assert room_teacher.record_csv(rows, RoundsView.answer_name).splitlines() == [
        "step,round,nickname,choice,right,removed first", "1,1,Ann,hug,False,ug", "1,1,Bob,ug,True,ug",
        "1,1,Cem,ug,True,ug"]
    students[1].run()
    assert shown(students[1].header[0].value).startswith("Round 1 of 5:  15 → 14 pieces")
    assert "You chose hug: Not this one: removing hug raises the loss by 23.5, against 0 for ug." in everything(students[1])
