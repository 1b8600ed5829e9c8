"""trace.jsonl as the command line writes it: most of it while the training still runs, in a second process.

The trace is most of what a training writes (about 2 KB a step), and formatting it is a fair share of
a command-line run. A step's line never changes once the step is done, so the lines need not wait for
the end of the training:

- `start()`, before the corpus is read (while this process is still small), forks a writer: a
  process that reads parts of the trace from a pipe and appends their lines to a file in the output's
  staging folder (`trace.early`). It has its own copy of nothing but the parts it is sent.
- While the engine trains (on one core), `during` is called after every merge. When the writer is
  idle (it says so on a second pipe after each part) and at least `EARLY_STEPS` steps are not yet
  sent, it sends them: their numbers only (`StepRecorder.part`), a few hundred KB. The writer
  formats them on the other core; the training goes on at once.
- When the training is over, the writer (if idle) is sent the first half of the steps left, and
  `write_to` writes the second half, then joins the two.

If the writer fails, this process writes the whole trace itself (and so reports a real error, such as
a full disk, with its message). Where the system cannot fork (or has no memory to spare for it), one
process writes everything at the end. `close` stops the writer (on an error, Ctrl-C or SIGTERM); its
file is in the staging folder, removed with it. The lines are the same whichever process writes them:
tests compare the file with `trace_jsonl`.
"""

from __future__ import annotations

import os
import pickle
import select
import shutil
import signal
from collections.abc import Callable

from .formats import step_lines, trace_lines
from .steps import Steps
from .trace import Training

EARLY_NAME = "trace.early"


def _writer(parts: int, idle: int, path: str) -> None:
    """The writer process: append the lines of each part read from `parts`; a byte on `idle` after each."""
    tokens: list[str] = []
    with os.fdopen(parts, "rb") as source, open(path, "w", encoding="utf-8", newline="\n") as out:
        while True:
            try:
                first_step, new_tokens, tie_break, steps = pickle.load(source)
            except EOFError:
                return
            tokens += new_tokens
            steps.tokens = tuple(tokens)
            out.writelines(line + "\n" for line in step_lines(steps, tie_break, first_step=first_step))
            out.flush()
            os.write(idle, b".")


class TraceFile:
    """trace.jsonl, written partly during the training (`start`, `during`) and finished by `write_to`.

    folder: where the writer's file goes (the output's staging folder); None writes everything at
    the end. The finished training is given with `finish`."""

    EARLY_STEPS = 500  # steps: the least sent to the writer at once during the training
    POLL_EVERY = 16  # steps between two checks whether the writer is idle
    SPLIT_FROM = 200  # steps left at the end: below this, this process writes them alone

    def __init__(self, folder: str | None, tie_break: str = "first") -> None:
        self.training: Training | None = None
        self.folder = folder
        self.tie_break = tie_break
        self.pid = -1  # the writer's
        self.parts_fd = self.idle_fd = -1  # this process's ends of the two pipes
        self.sent = 0  # steps sent to the writer: it writes [0, sent)
        self.tokens_sent = 0
        self.busy = False  # the writer has a part it has not finished
        self.tail_from = 0  # the steps from here on are this process's to write, at the end

    # ----- the writer --------------------------------------------------------------------
    def start(self) -> TraceFile:
        """Fork the writer (before the corpus is read: the copy is then small)."""
        if self.folder is None or not hasattr(os, "fork"):
            return self
        parts_r, parts_w = os.pipe()
        idle_r, idle_w = os.pipe()
        # SIGINT and SIGTERM stay blocked in the writer (this process stops it, see close), and
        # in this process until the writer exists.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            pid = os.fork()
        except OSError:  # no memory or processes to spare: everything is written at the end
            pid = -1
        if pid == 0:
            status = 1
            try:
                os.close(parts_w)
                os.close(idle_r)
                _writer(parts_r, idle_w, os.path.join(self.folder, EARLY_NAME))
                status = 0
            finally:
                os._exit(status)
        os.close(parts_r)
        os.close(idle_w)
        if pid < 0:
            os.close(parts_w)
            os.close(idle_r)
        else:  # (recorded before a pending Ctrl-C or SIGTERM is let in, so that close() stops it)
            self.pid, self.parts_fd, self.idle_fd = pid, parts_w, idle_r
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return self

    def is_idle(self, wait: bool) -> bool:
        """Whether the writer runs and has written every part sent (wait: until it has)."""
        if self.pid < 0:
            return False
        if self.busy and select.select([self.idle_fd], [], [], None if wait else 0)[0]:
            if not os.read(self.idle_fd, 1):  # the writer has ended (it failed)
                self._give_up()
                return False
            self.busy = False
        return not self.busy

    def _send(self, part: Callable[[int, int], Steps], start: int, stop: int) -> None:
        steps = part(start, stop)
        new_tokens, steps.tokens = steps.tokens[self.tokens_sent:], ()
        message = (start, new_tokens, self.tie_break, steps)
        data = memoryview(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))
        try:
            while data:
                data = data[os.write(self.parts_fd, data):]
        except OSError:  # the writer has ended (it failed)
            self._give_up()
            return
        self.tokens_sent += len(new_tokens)
        self.sent, self.busy = stop, True

    def _give_up(self) -> None:
        """The writer failed: this process will write everything."""
        self.close()
        self.sent = 0

    def close(self) -> None:
        """Stop the writer, if it runs (also after a failed or interrupted training)."""
        for fd in (self.parts_fd, self.idle_fd):
            if fd >= 0:
                os.close(fd)
        self.parts_fd = self.idle_fd = -1
        if self.pid > 0:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = -1

    # ----- during the training ---------------------------------------------------------
    def during(self, done: int, finished: bool, part: Callable[[int, int], Steps]) -> None:
        """After each merge (`done` steps so far) and once more when the training is over (`finished`).

        part(start, stop) makes those steps (without their touched words, which the trace only counts).
        When the training is over, the writer, if idle, is sent the first half of the steps left, and
        this process writes the rest (`write_to`)."""
        if self.pid < 0:
            return
        if finished:
            self.tail_from = self.sent
            # (a writer still busy with its last part is not waited for: this process writes the rest)
            if done - self.sent >= self.SPLIT_FROM and self.is_idle(wait=False):
                self.tail_from = (self.sent + done) // 2
                self._send(part, self.sent, self.tail_from)
            return
        if done - self.sent < self.EARLY_STEPS or done % self.POLL_EVERY:
            return
        if self.is_idle(wait=False):
            self._send(part, self.sent, done)

    # ----- at the end ------------------------------------------------------------------
    def finish(self, training: Training) -> TraceFile:
        self.training = training
        return self

    def _write(self, path: str, start: int, stop: int | None, mode: str = "w") -> None:
        assert self.training is not None
        with open(path, mode, encoding="utf-8", newline="\n") as fh:
            fh.writelines(line + "\n" for line in trace_lines(self.training, start, stop))

    def write_to(self, path: str) -> None:
        assert self.training is not None
        n = len(self.training.steps)
        early = os.path.join(self.folder or "", EARLY_NAME)
        tail = path + ".tail"
        try:
            if self.pid < 0:
                self._write(path, 0, n)
                return
            self._write(tail, self.tail_from, n)
            os.close(self.parts_fd)  # the writer ends once it has written all it was sent
            self.parts_fd = -1
            _, status = os.waitpid(self.pid, 0)
            self.pid = -1
            if status != 0 or self.sent != self.tail_from:
                self._write(path, 0, n)  # the writer failed: everything here
                return
            os.replace(early, path)
            with open(path, "ab") as out, open(tail, "rb") as lines:
                shutil.copyfileobj(lines, out, 1 << 20)
        finally:
            self.close()
            for name in (tail, early):
                if os.path.exists(name):
                    os.remove(name)
