"""The server the tasks tests run in worker processes: the suite's task tools plus a few of ours.

`drivable serve tasks_app:make_contract --http --verifier tasks_app:verifier` with
DRIVABLE_TASKS_STORE naming the shared store (a SQLite file or a PostgreSQL DSN).
"""

from __future__ import annotations

import asyncio
import os

from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, Effects, Output, Summary
from drivable.contract.client import Elicit
from drivable.contract.durable import IDEMPOTENCY_KEY, IdempotencyKey
from drivable.effects import open_store
from drivable.kinds import KindModel
from drivable.serve.auth import StaticToken, StaticTokenVerifier
from drivable.tasks import LongRunning
from tests.conformance.tasks_fixture import register

NAME = "drivable-tasks-tests"
WRITE = frozenset({f"{NAME}:write"})  # the contract's write scope: the tools that change data
ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"
READER = "reader-token-0123456789"  # may read, may not change data
verifier = StaticTokenVerifier(
    {
        ALICE: StaticToken("alice", WRITE),
        BOB: StaticToken("bob", WRITE),
        READER: StaticToken("reader"),
    }
)


class CountInput(KindModel):
    seconds: float = Field(ge=0, le=60, description="How long to count, in seconds.")


class Counted(Output):
    counted: int


class EntryInput(KindModel):
    text: str = Field(max_length=200, description="The entry to add.")
    seconds: float = Field(default=0, ge=0, le=60, description="How long adding it takes.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class Added(Output):
    entries: int


def make_contract() -> Contract:
    contract = Contract(
        NAME,
        version="1.0.0",
        summary=Summary(
            text="Long-running tools for the tasks tests.",
            does=["count slowly", "add entries slowly"],
            does_not=["anything else"],
        ),
    )
    register(contract)

    async def count(seconds: float, call: Call) -> int:
        steps = int(seconds * 10)
        for step in range(steps):
            await asyncio.sleep(0.1)
            await call.report_progress(step + 1, steps)
        return steps

    @contract.tool(
        name="count_slowly",
        title="Count slowly",
        description="Counts tenths of a second for `seconds` seconds. A worker that dies while it "
        'runs fails the task (it is not run again). Example: {"seconds": "<seconds>"}.',
        effects=READ_ONLY,
        task=LongRunning(duration="seconds", timeout_s=60, keep_s=600, on_worker_lost="fail"),
    )
    async def count_slowly(args: CountInput, call: Call) -> Counted:
        return Counted(counted=await count(args.seconds, call))

    @contract.tool(
        name="count_briefly",
        title="Count briefly",
        description="Counts like count_slowly but keeps its result one second only. "
        'Example: {"seconds": "<seconds>"}.',
        effects=READ_ONLY,
        task=LongRunning(duration="seconds", timeout_s=10, keep_s=1),
    )
    async def count_briefly(args: CountInput, call: Call) -> Counted:
        return Counted(counted=await count(args.seconds, call))

    @contract.tool(
        name="count_overtime",
        title="Count overtime",
        description="Counts like count_slowly but is stopped after half a second. "
        'Example: {"seconds": "<seconds>"}.',
        effects=READ_ONLY,
        task=LongRunning(duration="seconds", timeout_s=0.5, keep_s=600),
    )
    async def count_overtime(args: CountInput, call: Call) -> Counted:
        return Counted(counted=await count(args.seconds, call))

    @contract.tool(
        name="add_entry",
        title="Add entry",
        description="Adds an entry to the journal after `seconds` seconds, once per "
        'idempotency_key. Example: {"text": "<text>", "idempotency_key": "<idempotency key>"}.',
        effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
        task=LongRunning(duration="seconds", timeout_s=60, keep_s=600, on_worker_lost="restart"),
    )
    async def add_entry(args: EntryInput, call: Call) -> Added:
        await count(args.seconds, call)
        tx = call.transaction
        await tx.execute("CREATE TABLE IF NOT EXISTS task_journal (text TEXT NOT NULL)")
        await tx.execute("INSERT INTO task_journal (text) VALUES (?)", [args.text])
        rows = await tx.execute("SELECT COUNT(*) FROM task_journal")
        return Added(entries=int(rows.rows[0][0]))

    @contract.tool(
        name="add_memo",
        title="Add memo",
        description="Adds an entry like add_entry but keeps the task's result one second only. "
        'Example: {"text": "<text>", "idempotency_key": "<idempotency key>"}.',
        effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
        task=LongRunning(duration="seconds", timeout_s=60, keep_s=1),
    )
    async def add_memo(args: EntryInput, call: Call) -> Added:
        return await add_entry(args, call)

    go_on = Elicit(
        "Carry on counting?",
        {"type": "object", "properties": {"go": {"type": "boolean"}}, "required": ["go"]},
    )

    @contract.tool(
        name="count_after_asking",
        title="Count after asking",
        description="Asks the client whether to carry on (through the task), then counts for "
        '`seconds` seconds if told to. Example: {"seconds": "<seconds>"}.',
        effects=READ_ONLY,
        task=LongRunning(duration="seconds", timeout_s=60, keep_s=600, support="required"),
    )
    async def count_after_asking(args: CountInput, call: Call) -> Counted:
        answer = await call.client.ask("go_on", go_on)  # the handler's usual API, inside a task
        go = answer.accepted and bool(answer.content.get("go"))
        return Counted(counted=await count(args.seconds, call) if go else 0)

    store = os.environ["DRIVABLE_TASKS_STORE"]
    contract.use_effects(open_store(store), b"tasks-tests-secret-0123456789")
    return contract
