"""A server with only the tasks scenarios' tools, for running those scenarios on their own.

`drivable serve tests.conformance.tasks_server:contract --http`; the tasks live in the SQLite file
named by DRIVABLE_TASKS_DB (a fresh temporary file by default).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from drivable.contract import Contract, Summary
from drivable.effects import open_store
from tests.conformance.tasks_fixture import register

contract = Contract(
    "drivable-tasks-fixture",
    version="1.0.0",
    summary=Summary(
        text="The tools the conformance suite's tasks scenarios call.",
        does=["answer the tasks scenarios of the conformance suite"],
        does_not=["anything a person needs"],
    ),
)
register(contract)
_db = os.environ.get("DRIVABLE_TASKS_DB") or str(
    Path(tempfile.mkdtemp(prefix="drivable-tasks-")) / "tasks.sqlite"
)
contract.use_effects(
    open_store(_db), os.environ.get("DRIVABLE_SECRET", "conformance-fixture-secret").encode()
)
