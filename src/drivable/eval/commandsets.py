"""Sides served by their command line: a third-party server run as it is (the naive side), and the
same command under `drivable wrap` (the drivable side).

Such a server keeps its data in files (a folder the filesystem server may touch, the memory
server's JSONL file, a git repository), so every trial gets a directory of its own: the set's
fixture folder copied in, the set's setup commands run there, the server started with that
directory as its working directory, and the directory removed when the trial ends. Both sides
start from the same files, and nothing one trial changes reaches the next.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from drivable.eval.workflow import CommandSide, WorkflowSet, WrapSide
from drivable.settings import passed_through
from drivable.target import Target

TRIAL = "{trial}"
SETUP_TIMEOUT_S = 60.0


def fill(word: str, trial: Path | str, folder: Path) -> str:
    """A word of the set's command with its placeholders replaced."""
    return (
        word.replace(TRIAL, str(trial))
        .replace("{set}", str(folder))
        .replace("{python}", sys.executable)
    )


def command_words(side: CommandSide) -> list[str]:
    """The words that start the server (before the trial's placeholders are filled). An
    `installed` server is installed by the project's own installer on first use."""
    if side.installed is None:
        return [*side.command, *side.args]
    path, *names = side.installed.split()
    module, _, attr = path.partition(":")
    if os.getcwd() not in sys.path:  # the installer may live in the repository's tests/
        sys.path.insert(0, os.getcwd())
    install: Callable[..., list[str]] = getattr(importlib.import_module(module), attr)
    return [*install(*names), *side.args]


def prepare(side: CommandSide, trial: Path, folder: Path) -> None:
    """The trial's files: the set's fixture folder copied in, then its setup commands run there."""
    if side.fixture is not None:
        shutil.copytree(folder / side.fixture, trial, dirs_exist_ok=True)
    for command in side.setup:
        subprocess.run(
            [fill(w, trial, folder) for w in command],
            cwd=trial,
            check=True,
            capture_output=True,
            timeout=SETUP_TIMEOUT_S,
        )


def wrap_words(spec: WorkflowSet, wrapped: WrapSide, upstream: CommandSide) -> list[str]:
    """`drivable wrap` in front of the upstream's command, its receipts in the trial's directory
    and the upstream's variables handed on with `--env` (it gets nothing else of ours)."""
    words = [sys.executable, "-m", "drivable", "wrap", "--store", f"sqlite:///{TRIAL}/wrap.sqlite"]
    if wrapped.config is not None:
        words += ["--config", str(spec.folder() / wrapped.config)]
    for key, value in upstream.env.items():
        words += ["--env", f"{key}={value}"]
    return [*words, "--", *command_words(upstream)]


class PerTrial:
    """One command side of a set: the target as described in a report (placeholders shown), and
    the target made for one trial in its own directory (`EvalTarget.per_trial`)."""

    def __init__(self, spec: WorkflowSet, side: str) -> None:
        chosen = spec.drivable if side == "drivable" else spec.naive
        if isinstance(chosen, WrapSide):
            assert isinstance(spec.naive, CommandSide)  # WorkflowSet says so
            self.side: CommandSide = spec.naive
            self.words = wrap_words(spec, chosen, spec.naive)
            self.env: dict[str, str] = {}
            # the wrapper is this drivable: it imports from where the eval does (a source tree on
            # PYTHONPATH, not only the installed package); the upstream gets its --env alone.
            # Not in `described`: a report names no path of this machine.
            self.ours = passed_through(("PYTHONPATH",))
        elif isinstance(chosen, CommandSide):
            self.side = chosen
            self.words = command_words(chosen)
            self.env = dict(chosen.env)
            self.ours = {}
        else:
            raise TypeError(f"{spec.name}: the {side} side is an import path, not a command")
        self.folder = spec.folder()

    def described(self) -> Target:
        return Target(command=tuple(self.words), env=self.env)

    def __call__(self, trial: Path) -> Target:
        prepare(self.side, trial, self.folder)
        return Target(
            command=tuple(fill(w, trial, self.folder) for w in self.words),
            env={k: fill(v, trial, self.folder) for k, v in self.env.items()} | self.ours,
            cwd=str(trial),
        )
