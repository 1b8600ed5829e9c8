"""The speed-ups must not change what is written or counted.

Each fast path is checked against the plain way of doing the same thing:
- trace.jsonl lines formatted from a template == json.dumps of `step_json`;
- trace.jsonl written partly during the training by a second process == written by one (also when
  that process fails, or none can be forked);
- tokenizer.json spliced by `pretty_json` == the same document (and loads in tokenizers);
- word counts from two processes == counting in one, in the same order;
- training with the cyclic garbage collector off leaves it as it was.
"""

import gc
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import TOY
from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError
from wordpiece_core.formats import pretty_json, step_json, tokenizer_json, trace_jsonl, trace_lines
from wordpiece_core.engine import train
from wordpiece_core.sampling import sample_lines
from wordpiece_core.config import TrainerConfig
from wordpiece_core.trace_file import TraceFile

odd_words = st.text(alphabet='ab"\\\n\t\u00e9\u0000\U0001f600', min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(odd_words, st.integers(1, 9), min_size=1, max_size=10),
       st.sampled_from(["wordpiece", "bpe"]), st.sampled_from([0, 3]))
def test_trace_lines_equal_json_of_step_json(corpus, algorithm, top_k):
    cfg = TrainerConfig(algorithm=algorithm, vocab_size=40, prefix="##" if algorithm == "wordpiece" else None,
                        top_k=top_k)
    t = train(corpus, cfg)
    lines = list(trace_lines(t))
    assert len(lines) == len(t.steps)
    for line, step in zip(lines, t.steps):
        assert "\n" not in line
        assert line == json.dumps(step_json(step, cfg.tie_break), ensure_ascii=False)  # byte for byte


@pytest.mark.parametrize("algorithm,prefix", [("wordpiece", "##"), ("bpe", None), ("bpe", "##")])
def test_pretty_json_is_the_same_document(algorithm, prefix):
    words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5, 'qu"o\\te': 2, "\u00e9t\u00e9": 3}
    t = train(words, TrainerConfig(algorithm=algorithm, vocab_size=40, prefix=prefix,
                                   special_tokens=("[UNK]", "[CLS]", "[SEP]")))
    doc = tokenizer_json(t, "none", "whitespace")
    text = pretty_json(doc)
    assert json.loads(text) == doc
    assert text.startswith("{\n  \"version\"")  # indented like Hugging Face's files


def test_pretty_json_falls_back_when_a_token_looks_like_its_mark():
    t = train(TOY, TrainerConfig(algorithm="bpe", vocab_size=20, prefix=None, special_tokens=("\x00vocab\x00",)))
    doc = tokenizer_json(t, "none", "whitespace")
    assert json.loads(pretty_json(doc)) == doc


def test_training_restores_the_garbage_collector():
    assert gc.isenabled()
    train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=15))
    assert gc.isenabled()
    gc.disable()
    try:
        train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=15))
        assert not gc.isenabled()
    finally:
        gc.enable()


def _counts_both_ways(path, settings_, monkeypatch):
    import wordpiece_core.corpus as corpus

    one = corpus.load_word_counts([str(path)], [], settings_, workers=1)
    monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", 100)
    two = corpus.load_word_counts([str(path)], [], settings_, workers=2)
    return one, two


@pytest.mark.parametrize("pre", ["whitespace", "whitespace-split", "bert", "byte-level"])
def test_forked_file_reading_equals_one_process(tmp_path, monkeypatch, pre):
    lines = sample_lines("en", 2000, top_n=2000, seed=5) + ["Ünïcödé — 日本語 🙂 e\u0301"]
    path = tmp_path / "c.txt"
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))  # BOM and CRLF
    one, two = _counts_both_ways(path, TextSettings("none", pre), monkeypatch)
    assert list(one.items()) == list(two.items())
    assert "\ufeff" not in "".join(two)


def test_forked_file_reading_reports_a_bad_byte_in_the_second_half(tmp_path, monkeypatch):
    from wordpiece_core.errors import WordPieceError

    path = tmp_path / "bad.txt"
    path.write_bytes(b"good words here\n" * 200 + b"bad \xff byte\n")
    messages = []
    for workers_min in (10**9, 100):
        import wordpiece_core.corpus as corpus

        monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", workers_min)
        with pytest.raises(WordPieceError) as err:
            corpus.load_word_counts([str(path)], [], TextSettings(), workers=2)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "line 201, column 5" in messages[1]


@pytest.mark.parametrize("top_k", [0, 3])
def test_records_made_without_init_have_every_field(top_k):
    import dataclasses

    from wordpiece_core.records import Candidate, MergeStep

    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=20, top_k=top_k))
    for s in t.steps:
        names = [f.name for f in dataclasses.fields(MergeStep)]
        assert list(vars(s)) == names
        assert s == MergeStep(**vars(s)) and hash(s) == hash(MergeStep(**vars(s)))
        for c in s.candidates:
            assert list(vars(c)) == [f.name for f in dataclasses.fields(Candidate)]
            assert c == Candidate(**vars(c))
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.step = 0


def test_two_files_counted_in_two_processes_each_equal_one_process(tmp_path, monkeypatch):
    import wordpiece_core.corpus as corpus

    paths = []
    for seed in (1, 2):
        path = tmp_path / f"c{seed}.txt"
        path.write_text("\n".join(sample_lines("en", 1500, top_n=3000, seed=seed)) + "\n", encoding="utf-8")
        paths.append(str(path))
    one = corpus.load_word_counts(paths, [], TextSettings(), workers=1)
    monkeypatch.setattr(corpus, "_PARALLEL_MIN_BYTES", 100)
    two = corpus.load_word_counts(paths, [], TextSettings(), workers=2)
    assert list(one.items()) == list(two.items())


streamed_text = st.text(alphabet="ab Σσ\n\r\t\ufeffé\u0301\u00a0\u3000\x1c\x00日🙂.,'", max_size=60)


@settings(max_examples=300, deadline=None)
@given(streamed_text, st.sampled_from(["none", "lowercase", "bert", "bert-cased"]),
       st.sampled_from(["whitespace", "whitespace-split", "bert", "byte-level"]),
       st.integers(1, 12), st.sampled_from([1, 2]))
def test_a_file_read_block_by_block_counts_as_the_whole_text(tmp_path_factory, text, normalizer, pre, block, workers):
    """Counting a file in blocks (and in two processes) gives the counts of its whole text, in the
    same order; tiny blocks put block ends everywhere (a BOM, a final Σ, CRLF split, odd spaces)."""
    import wordpiece_core.corpus as corpus

    path = tmp_path_factory.mktemp("blocks") / "c.txt"
    path.write_bytes(text.encode("utf-8"))
    settings_ = TextSettings(normalizer, pre)

    def outcome(count):
        try:
            return list(count().items())
        except WordPieceError as exc:  # a binary-looking file: the same message both ways
            return str(exc)

    whole = outcome(lambda: corpus.count_text(corpus.read_text_file(str(path)), settings_))
    saved = corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES
    corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES = block, 1
    try:
        streamed = outcome(lambda: corpus.load_word_counts([str(path)], [], settings_, workers=workers))
    finally:
        corpus._BLOCK_BYTES, corpus._PARALLEL_MIN_BYTES = saved
    assert streamed == whole


def test_a_corpus_from_a_pipe_is_read_whole(tmp_path):
    """A pipe cannot be read in blocks from an offset (nor forked in halves): it is read whole, as before."""
    import os
    import threading

    import wordpiece_core.corpus as corpus

    fifo = tmp_path / "corpus.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("hug pug hug pun bun hugs\n" * 50_000, encoding="utf-8"))
    writer.start()
    try:
        counts = corpus.load_word_counts([str(fifo)], [], TextSettings(), workers=2)
    finally:
        writer.join()
    assert list(counts.items()) == [("hug", 100_000), ("pug", 50_000), ("pun", 50_000), ("bun", 50_000),
                                    ("hugs", 50_000)]


@pytest.mark.parametrize("top_k", [0, 1, 10])
def test_scores_that_round_to_the_same_float_are_ranked_exactly(top_k):
    """WordPiece's engine compares scores as floats and checks near-equal ones exactly: here
    1/2^54 and 1/(2^54 + 1) are one float, so a float-only tie would hand the merge to a + ##b
    (smaller ids, the hf rule) though c + ##d scores higher, and call it a 2-way tie."""
    words = {"cd": 2**54, "ab": 2**54 + 1}
    assert 1 / 2**54 == 1 / (2**54 + 1)
    training = train(words, TrainerConfig(algorithm="wordpiece", vocab_size=6, tie_break="hf", top_k=top_k))
    first = training.steps[0]
    assert (first.left, first.right, first.ties) == ("c", "##d", 1)
    if top_k > 1:
        assert [(c.left, c.right) for c in first.candidates] == [("c", "##d"), ("a", "##b")]


def _early(monkeypatch, every=3):
    """TraceFile settings that send the writer part after part during a small training."""
    monkeypatch.setattr(TraceFile, "EARLY_STEPS", every)
    monkeypatch.setattr(TraceFile, "POLL_EVERY", 1)
    monkeypatch.setattr(TraceFile, "SPLIT_FROM", 2)


def _waiting(trace):
    """A progress callback that lets the writer finish each part before the next step (so that, however
    slow the machine, the training sends part after part)."""
    def wait(done, todo):
        trace._is_idle(wait=True)
    return wait


def _assert_written(trace, t, folder):
    """The trace `trace` writes into `folder` is the one-process trace, and nothing else is left there."""
    path = folder / "trace.jsonl"
    trace.finish(t).write_to(str(path))
    assert path.read_bytes() == trace_jsonl(t).encode("utf-8")
    assert [p.name for p in folder.iterdir()] == ["trace.jsonl"]


WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5, "\u00e9t\u00e9": 3, "quo\"te": 2, "zz\\y": 1,
         "teaching": 4, "tokenizers": 3, "wordpiece": 6, "merging": 2, "subword": 5, "vocabulary": 2}


def _config(algorithm="wordpiece", tie_break="first"):
    return TrainerConfig(algorithm=algorithm, vocab_size=60, prefix="##" if algorithm == "wordpiece" else None,
                         top_k=3, tie_break=tie_break)


@pytest.mark.parametrize("algorithm,tie_break", [("wordpiece", "first"), ("bpe", "hf")])
def test_the_trace_written_while_training_is_the_trace(tmp_path, monkeypatch, algorithm, tie_break):
    _early(monkeypatch)
    sent = []
    send = TraceFile._send
    monkeypatch.setattr(TraceFile, "_send", lambda self, part, start, stop: (sent.append((start, stop)),
                                                                             send(self, part, start, stop)))
    trace = TraceFile(folder=str(tmp_path), tie_break=tie_break).start()
    t = train(WORDS, _config(algorithm, tie_break), _waiting(trace), trace.during)
    assert len(t.steps) >= 20 and len(sent) >= 6  # parts sent during the training, and half the rest
    assert sent[0][0] == 0 and all(a[1] == b[0] for a, b in zip(sent, sent[1:])) and trace.tail_from < len(t.steps)
    _assert_written(trace, t, tmp_path)  # nothing else left
    assert trace.pid < 0


def test_if_the_writer_fails_this_process_writes_the_trace(tmp_path, monkeypatch):
    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    lines = trace_file.step_lines

    def failing(steps, tie_break, start=0, stop=None, first_step=0):
        if first_step > 0:
            raise OSError(28, "No space left on device")
        return lines(steps, tie_break, start, stop, first_step)

    monkeypatch.setattr(trace_file, "step_lines", failing)  # (in the writer only: this process uses trace_lines)
    trace = TraceFile(folder=str(tmp_path)).start()
    t = train(WORDS, _config(), _waiting(trace), trace.during)
    assert trace.pid < 0 and trace.sent == 0  # it failed on its second part: given up
    _assert_written(trace, t, tmp_path)


def test_closing_stops_the_writer(tmp_path, monkeypatch):
    import time

    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    monkeypatch.setattr(trace_file, "step_lines", lambda *args, **kwargs: time.sleep(60) or iter(()))
    trace = TraceFile(folder=str(tmp_path)).start()
    train(WORDS, _config(), None, trace.during)
    pid = trace.pid
    assert pid > 0 and trace.busy
    started = time.perf_counter()
    trace.close()
    assert time.perf_counter() - started < 10 and trace.pid < 0
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(pid, os.WNOHANG)


def test_the_trace_is_written_at_the_end_where_no_writer_can_be_forked(tmp_path, monkeypatch):
    _early(monkeypatch)

    def no_fork():
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(os, "fork", no_fork)
    trace = TraceFile(folder=str(tmp_path)).start()
    assert trace.pid < 0
    t = train(WORDS, _config(), None, trace.during)
    _assert_written(trace, t, tmp_path)


def test_a_trace_that_cannot_be_written_leaves_nothing_behind(tmp_path, monkeypatch):
    _early(monkeypatch)
    trace = TraceFile(folder=str(tmp_path)).start()
    t = train(WORDS, _config(), _waiting(trace), trace.during)

    def full_disk(self, path, start, stop, mode="w"):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TraceFile, "_write", full_disk)
    with pytest.raises(OSError):
        trace.finish(t).write_to(str(tmp_path / "trace.jsonl"))
    assert list(tmp_path.iterdir()) == [] and trace.pid < 0



def test_a_writer_that_fails_at_the_end_is_replaced_by_this_process(tmp_path, monkeypatch):
    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    real = trace_file._writer

    def fails_on_closing(*args):  # writes every part, then fails (as when the disk fills up at the end)
        real(*args)
        os._exit(3)

    monkeypatch.setattr(trace_file, "_writer", fails_on_closing)
    trace = TraceFile(folder=str(tmp_path)).start()
    t = train(WORDS, _config(), _waiting(trace), trace.during)
    assert trace.pid > 0 and trace.sent > 0
    _assert_written(trace, t, tmp_path)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(alphabet="abc\u00e9", min_size=1, max_size=7), st.integers(1, 9), min_size=1, max_size=12),
       st.sampled_from([("wordpiece", "##"), ("bpe", None), ("bpe", "##")]), st.sampled_from([0, 1, 3]),
       st.sampled_from(["first", "hf"]), st.integers(2, 50), st.booleans())
def test_any_training_written_while_it_runs_is_its_trace(tmp_path_factory, corpus, kind, top_k, tie_break, vocab,
                                                          wait):
    """Random corpora: repeated tokens ("aaaa": a candidate merges fewer times than its count), merges
    that make a token the vocabulary has already, trainings that stop early or make no merge; parts
    sent every two steps, the writer waited for or not."""
    algorithm, prefix = kind
    folder = tmp_path_factory.mktemp("trace")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _early(monkeypatch, every=2)
        trace = TraceFile(folder=str(folder), tie_break=tie_break).start()
        t = train(corpus, TrainerConfig(algorithm=algorithm, vocab_size=vocab, prefix=prefix, top_k=top_k,
                                        tie_break=tie_break), _waiting(trace) if wait else None, trace.during)
        _assert_written(trace, t, folder)
