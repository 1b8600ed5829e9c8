"""A training in its own process: `python -m wordpiece_ui.train_worker` (started by jobs.py).

Reads one pickled (word counts, TrainerConfig or UnigramConfig) from standard input, trains, and writes
pickled messages to standard output: ("progress", done, total) at each percent, then
("done", Training or UnigramTraining), ("invalid", message) when the corpus and settings cannot be trained,
or ("failed", message). The server's interpreter keeps serving the
class meanwhile; ending this process cancels the training. A worker that sends nothing for
jobs.WATCHDOG_SECONDS is taken for stuck and killed: the progress messages (a few a second)
are also its signs of life.

A plain subprocess, not multiprocessing: Streamlit runs the app script as `__main__`, and
multiprocessing's spawn and forkserver start methods would import it again in the child.
"""

from __future__ import annotations

import pickle
import sys

from wordpiece_core.algorithms import train
from wordpiece_core.errors import WordPieceError

from .children import cap_memory, lower_priority
from .jobs import OUT_OF_MEMORY


def main() -> None:
    lower_priority()
    cap_memory()
    out = sys.stdout.buffer

    def send(message: tuple) -> None:
        pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    shown = [-1]

    def progress(done: int, total: int) -> None:
        percent = 100 * done // max(1, total)
        if percent != shown[0]:
            shown[0] = percent
            send(("progress", done, total))

    try:
        counts, config = pickle.load(sys.stdin.buffer)
        send(("done", train(counts, config, progress)))
    except WordPieceError as exc:
        send(("invalid", str(exc)))  # this corpus and these settings cannot be trained
    except MemoryError:
        send(("failed", OUT_OF_MEMORY))


if __name__ == "__main__":
    main()
