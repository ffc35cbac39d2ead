"""drivable.tasks: long-running tools on the tasks extension (`io.modelcontextprotocol/tasks`).

Declare a tool `task=LongRunning(duration=..., timeout_s=...)`; `drivable.serve` installs the
extension for it. Tasks live in the effect store (SQLite or PostgreSQL) next to the receipts, so
any worker sharing the store answers tasks/get, tasks/update and tasks/cancel for any task, and a
task whose worker died is run again or failed, as declared. See docs/tasks.md.
"""

from __future__ import annotations

from drivable.tasks.control import TaskAborted, TaskControl, current_task
from drivable.tasks.policy import LongRunning, TaskDeclarationError

EXTENSION = "io.modelcontextprotocol/tasks"

__all__ = [
    "EXTENSION",
    "LongRunning",
    "TaskAborted",
    "TaskControl",
    "TaskDeclarationError",
    "current_task",
    "install",
]


def install(server: object, contract: object, **options: object) -> object:
    """Serve the extension for a contract's long-running tools (see `drivable.tasks.handlers`)."""
    from drivable.tasks.handlers import install as _install

    return _install(server, contract, **options)  # type: ignore[arg-type]
