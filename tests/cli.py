"""The drivable CLI as the tests start it in a process of its own: the package of this tree
(a worktree's too), whatever the environment the process is given (the SDK's stdio client hands
a server only a small safe set of variables, so `PYTHONPATH` does not reach it)."""

from __future__ import annotations

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
CLI = (
    sys.executable,
    "-c",
    f"import sys; sys.path.insert(0, {SRC!r}); from drivable.cli import main; main()",
)
