"""A process tree's memory as the benchmarks report it: the summed PSS of the process and its descendants.

PSS (proportional set size, /proc/PID/smaps_rollup) counts a page shared by n processes as 1/n in
each, so the sum over a tree is what the tree itself holds: a server and the worker processes it
started, which share the interpreter's and the libraries' pages, are not counted twice (VmRSS
would count a shared page once in each). A sum, not the largest process: processes that run at
the same time need their memory at the same time. Linux only.

bench_train.py (a command's peak) and bench_class.py (the app's server during a class) both
measure with `tree_pss_bytes`.
"""

from __future__ import annotations

import os


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (those alive now)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except OSError:  # it has ended
            pass
    return found


def pss_bytes(pid: int) -> int:
    """One process's PSS in bytes (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # it has ended
        pass
    return 0


def tree_pss_bytes(pid: int) -> int:
    """The summed PSS in bytes of the process `pid` and its descendants."""
    return sum(map(pss_bytes, process_tree(pid)))
