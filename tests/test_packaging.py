"""pyproject.toml: `pip install .` gives a `wordpiece-lab` that trains every algorithm.

A fresh virtual environment gets the project installed as a user would (no -e, its declared dependencies
from the package index), and its `wordpiece-lab` trains WordPiece, BPE and Unigram from a folder outside the
checkout, so nothing is imported from it. The install holds the core's packages and nothing else: not the
app's glue (wordpiece_ui), pages, tests or benchmarks, and not the app's packages (streamlit).

pip builds in the source tree it is given (build/, *.egg-info), and a stale build/lib would go into the
wheel: the checkout is copied first (all of it but .git, .venv and what is built or cached), so the test
installs what is checked out and writes nothing into it.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT

CORPUS = ("the quick brown fox jumps over the lazy dog\n"
          "the dog sleeps and the fox runs\n"
          "a lazy afternoon for a quick brown dog\n"
          "foxes and dogs are friends in the story\n")
MODELS = {"wordpiece": "WordPiece", "bpe": "BPE", "unigram": "Unigram"}
VOCAB_SIZE = "60"  # Unigram's holds every character (the 26 letters and ▁) and <unk>: at least 28 here
# What pip prints when it cannot reach the package index (then the test is skipped, not failed).
NETWORK_ERRORS = ("NewConnectionError", "Failed to establish a new connection", "Temporary failure in name resolution",
                  "Name or service not known", "Network is unreachable", "ConnectTimeoutError", "ReadTimeoutError",
                  "ProxyError", "Max retries exceeded", "Could not fetch URL")
NOT_THE_PROJECT = {".git", ".venv", ".hypothesis", ".pytest_cache", "build", "dist", "out", "artifacts"}


def _ignored(folder: str, names: list[str]) -> set[str]:
    at_root = os.path.samefile(folder, ROOT)
    return {name for name in names
            if name == "__pycache__" or name.endswith((".pyc", ".egg-info")) or name.startswith(".wordpiece-")
            or (at_root and name in NOT_THE_PROJECT)}


def _env() -> dict[str, str]:
    """This process's environment without what would let the checkout or another environment in; pip (and the
    pip that installs the build's requirements) gives up soon on a package index it cannot reach."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "PYTHONNOUSERSITE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_RETRIES": "1"}


def _run(args: list, cwd, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_pip_install_trains_every_algorithm_outside_the_checkout(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=_ignored)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", venv], cwd=elsewhere)
    assert made.returncode == 0, made.stderr
    python, command = venv / "bin" / "python", venv / "bin" / "wordpiece-lab"

    install = _run([python, "-m", "pip", "install", source], cwd=elsewhere, timeout=900)
    unreachable = [line.strip() for line in (install.stdout + install.stderr).splitlines()
                   if any(e in line for e in NETWORK_ERRORS)]
    if install.returncode != 0 and unreachable:
        pytest.skip(f"pip install cannot reach the package index: {unreachable[-1]}")
    assert install.returncode == 0, install.stdout + install.stderr

    corpus = elsewhere / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    for algorithm, model in MODELS.items():
        out = tmp_path / f"out-{algorithm}"
        proc = _run([command, "train", "--algorithm", algorithm, "--vocab-size", VOCAB_SIZE, "--out", out, "--quiet",
                     corpus], cwd=elsewhere)
        assert proc.returncode == 0, f"{algorithm}: {proc.stderr}"
        tokenizer = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
        assert tokenizer["model"]["type"] == model

    # Where the core came from, what else can be imported, and every file the install holds.
    probe = _run([python, "-c", """if True:
        import importlib.metadata, importlib.util, json, wordpiece_core
        print(json.dumps({
            "core": wordpiece_core.__file__,
            "found": {name: importlib.util.find_spec(name) is not None
                      for name in ("wordpiece_ui", "pages", "tests", "benchmarks", "streamlit")},
            "files": [str(f) for f in importlib.metadata.files("wordpiece-lab")],
        }))"""], cwd=elsewhere)
    assert probe.returncode == 0, probe.stderr
    installed = json.loads(probe.stdout)
    assert installed["core"].startswith(str(venv)), installed["core"]
    assert installed["found"] == {"wordpiece_ui": False, "pages": False, "tests": False, "benchmarks": False,
                                  "streamlit": False}
    for name in ("wordpiece_ui", "streamlit"):
        proc = _run([python, "-c", f"import {name}"], cwd=elsewhere)
        assert proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr, name
    modules = {f for f in installed["files"] if f.endswith(".py")}
    assert all(f.startswith("wordpiece_core/") for f in modules), sorted(modules)
    checked_out = {str(p.relative_to(source)) for p in (source / "wordpiece_core").rglob("*.py")}
    assert modules == checked_out  # every module of every subpackage: found, none listed by hand
