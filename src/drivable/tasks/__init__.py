"""drivable.tasks: long-running tools on the tasks extension (`io.modelcontextprotocol/tasks`).

Declare a tool `task=LongRunning(duration=..., timeout_s=...)` (the declaration lives in
`drivable.contract.long_running`); `drivable.serve.tasks` serves the extension for it. Tasks live in
the effect store (SQLite or PostgreSQL) next to the receipts, so any worker sharing the store
answers tasks/get, tasks/update and tasks/cancel for any task, and a task whose worker died is run
again or failed, as declared. See docs/tasks.md.
"""

from __future__ import annotations

from drivable.contract.long_running import LongRunning, TaskDeclarationError
from drivable.tasks.control import TaskAborted, TaskControl, current_task

EXTENSION = "io.modelcontextprotocol/tasks"

__all__ = [
    "EXTENSION",
    "LongRunning",
    "TaskAborted",
    "TaskControl",
    "TaskDeclarationError",
    "current_task",
]
