"""Counting a pasted or uploaded corpus in a child process, so the server's interpreter stays free (no Streamlit).

Counting a 10 MB upload holds an interpreter for seconds: done in the server, it stalled every other
student's clicks (up to 3.4 s). So `count` runs `python -m wordpiece_ui.counting`, which reads the
file from the data store by its digest (datastore.py; it is handed the bytes only when the store
keeps them in the server's memory), counts it at a lower CPU priority than the server, and sends
back the word counts, pickled. At most one count per core runs at once; the others wait. The caller
keeps the result in the server's store by digest (corpus_loading.py), so each corpus and text
setting is counted once.

A plain child process, not multiprocessing: Streamlit runs app.py as `__main__`, which the spawn and
forkserver start methods would import again in the child (train_worker.py), and a forked child
would hold the server's sockets open.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from dataclasses import dataclass

from wordpiece_core.corpus import TextSettings
from wordpiece_core.errors import WordPieceError

from .corpora import ROOT, WordCounts, load_own
from .datastore import StoredFile, read_saved
from .children import child_command, child_env, lower_priority

TIMEOUT_SECONDS = 300.0  # a count that takes longer is stopped (20 MB counts in seconds)

_slots = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))


@dataclass(frozen=True)
class Request:
    """What a child needs to count one kept file with one text setting."""

    file: StoredFile
    text: TextSettings
    store_path: str  # the data store the child reads a saved file from
    max_age: float  # the store's expiry, in seconds: an expired file is gone
    data: bytes | None = None  # the content, when the store keeps it only in the server's memory


def gone(file: StoredFile) -> str:
    """The line that says a kept file has gone (expired or evicted) and what to do."""
    again = "paste it" if file.kind == "paste" else "upload it"
    return f"{file.name} is no longer kept on this server; {again} again"


def count_here(request: Request) -> WordCounts:
    """Count in this process (the child's work; also the fallback when no process can be started)."""
    data = request.data if request.data is not None else read_saved(request.store_path, request.file.digest,
                                                                     request.max_age)
    if data is None:
        raise WordPieceError(gone(request.file))
    return load_own(request.file.kind, request.file.name, data, request.text)


def count(request: Request) -> WordCounts:
    """A kept file's word counts, counted in a child process. Problems come back as WordPieceError
    (the corpus cannot be used, said in words) or MemoryError."""
    name = request.file.name
    with _slots:
        try:
            done = subprocess.run(child_command("wordpiece_ui.counting"), cwd=ROOT, env=child_env(), stdout=subprocess.PIPE,
                                  input=pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL),
                                  timeout=TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            raise WordPieceError(f"counting {name} took over {TIMEOUT_SECONDS:.0f} s; use a smaller sample of it") from None
        except OSError:  # no process can be started now (memory, process limits): count here rather than not at all
            return count_here(request)
    try:
        outcome, value = pickle.loads(done.stdout)
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
        raise WordPieceError(f"counting {name} stopped before the end (the server may be short of memory); "
                             "try again, or a smaller file") from None
    if outcome == "memory":
        raise MemoryError
    if outcome == "invalid":
        raise WordPieceError(value)
    return value


def main() -> None:
    """The child: one pickled Request on standard input, one pickled (outcome, value) on standard output."""
    lower_priority()
    request = pickle.load(sys.stdin.buffer)
    reply: tuple[str, object]
    try:
        reply = ("done", count_here(request))
    except WordPieceError as exc:
        reply = ("invalid", str(exc))
    except MemoryError:
        reply = ("memory", None)
    pickle.dump(reply, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    main()
