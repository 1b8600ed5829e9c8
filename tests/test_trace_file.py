"""wordpiece_core/trace_file.py: trace.jsonl as the command line writes it, most of it while the training
still runs, in a second process.

That trace equals the one a single process writes (json.dumps of `step_json` for every step): also when the
writer fails, is stopped, or none can be forked; and a trace that cannot be written leaves nothing behind.
"""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train
from wordpiece_core.formats import trace_jsonl
from wordpiece_core.trace_file import TraceFile


def _early(monkeypatch, every=3):
    """TraceFile settings that send the writer part after part during a small training."""
    monkeypatch.setattr(TraceFile, "EARLY_STEPS", every)
    monkeypatch.setattr(TraceFile, "POLL_EVERY", 1)
    monkeypatch.setattr(TraceFile, "SPLIT_FROM", 2)


def _waiting(trace):
    """A progress callback that lets the writer finish each part before the next step (so that, however
    slow the machine, the training sends part after part)."""
    def wait(done, todo):
        trace.is_idle(wait=True)
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
    """close() kills a writer busy with a part (here one that would take a minute) and reaps it: it does not
    wait for the part. (How long close() takes: benchmarks/bench_stops.py.)"""
    import signal
    import time

    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    monkeypatch.setattr(trace_file, "step_lines", lambda *args, **kwargs: time.sleep(60) or iter(()))
    trace = TraceFile(folder=str(tmp_path)).start()
    train(WORDS, _config(), None, trace.during)
    pid = trace.pid
    assert pid > 0 and trace.busy
    reaped = []
    waitpid = os.waitpid

    def watched(*args):
        reaped.append(waitpid(*args))
        return reaped[-1]

    monkeypatch.setattr(os, "waitpid", watched)
    trace.close()
    assert trace.pid < 0 and len(reaped) == 1 and reaped[0][0] == pid
    status = reaped[0][1]
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL  # killed, not ended by its part
    monkeypatch.undo()
    with pytest.raises(ChildProcessError):  # and reaped: no zombie left
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
    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    trace = TraceFile(folder=str(tmp_path)).start()
    t = train(WORDS, _config(), _waiting(trace), trace.during)

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(trace_file, "trace_lines", full_disk)  # (this process's lines: the writer has sent its own)
    with pytest.raises(OSError):
        trace.finish(t).write_to(str(tmp_path / "trace.jsonl"))
    assert list(tmp_path.iterdir()) == [] and trace.pid < 0



def test_a_writer_that_fails_at_the_end_is_replaced_by_this_process(tmp_path, monkeypatch):
    """The writer writes every part it was sent, then dies (as when the disk fills up at its end, or the kernel
    kills it): this process writes the whole trace."""
    import signal
    import time

    import wordpiece_core.trace_file as trace_file

    _early(monkeypatch)
    trace = TraceFile(folder=str(tmp_path)).start()
    t = train(WORDS, _config(), _waiting(trace), trace.during)
    assert trace.pid > 0 and trace.sent > 0
    early = tmp_path / trace_file.EARLY_NAME

    def written():  # the lines the writer has written so far (it flushes after each part)
        return early.read_bytes().count(b"\n") if early.exists() else 0

    deadline = time.monotonic() + 30
    while written() < trace.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert written() == trace.sent  # every part it was sent …
    os.kill(trace.pid, signal.SIGKILL)  # … then it dies
    _assert_written(trace, t, tmp_path)


@pytest.mark.slow
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
