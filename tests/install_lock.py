"""One install at a time per target, across parallel test workers (`pytest -n`).

The installers of the tests' real counterparts (third-party servers, the Python SDK 1.x) check a
stamp, install when it is missing, then write the stamp. Two workers doing that at once would
install into the same venv together; under this lock the second one waits and then finds the stamp.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def install_lock(target: Path) -> Iterator[None]:
    """Hold the exclusive lock of `target` (a venv or prefix directory) while it is checked and
    installed. Not re-entrant: take it once per target, around the stamp check and the install."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.with_name(target.name + ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
