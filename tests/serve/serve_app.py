"""The server the transport tests drive: the example server's tools plus a long call and a scoped tool.

Run as a script: `python tests/serve/serve_app.py` serves stdio; the HTTP tests start it with
`drivable serve serve_app:contract --http` (this directory on PYTHONPATH) and the verifier below.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import Annotated

import anyio
from pydantic import BaseModel, ConfigDict, Field

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from drivable.contract import (  # noqa: E402
    ERROR_CODES,
    READ_ONLY,
    WARNING_CODES,
    Call,
    Contract,
    Effects,
    Summary,
)
from drivable.kinds import Kind, KindModel  # noqa: E402
from drivable.serve.auth import StaticToken, StaticTokenVerifier  # noqa: E402
from tests.contract import example_server  # noqa: E402

example = example_server.contract
contract = Contract(
    "notes-serve",
    version="1.0.0",
    summary=Summary(
        text="Search and read short notes; count slowly to exercise progress and cancellation.",
        does=["search notes", "read one note", "count slowly with progress", "archive a note"],
        does_not=["edit notes"],
    ),
    settings_url="https://example.test/settings/notes",
    domain_codes=[c for c in example.codes.values() if c.id not in ERROR_CODES],
    warning_codes=[w for w in example.warning_codes.values() if w.id not in WARNING_CODES],
)
# The example's tools as they are (their specs, already checked), beside this server's own.
contract.tools.update(example.tools)


class CountInput(KindModel):
    steps: int = Field(3, ge=1, le=1000, description="How many steps to count.")
    delay_ms: int = Field(10, ge=0, le=60_000, description="Pause after each step, in ms.")


class CountOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    counted: int


# Steps the last calls of count_slowly reached, and whether one saw its cancellation (this process).
PROGRESS_LOG: list[str] = []


@contract.tool(
    name="count_slowly",
    title="Count slowly",
    description=(
        "Counts to `steps`, pausing `delay_ms` after each step and reporting progress on each. "
        'Used to test progress notifications and cancellation. Example: {"steps": "<steps>"}.'
    ),
    effects=READ_ONLY,
)
async def count_slowly(args: CountInput, call: Call) -> CountOutput:
    try:
        for step in range(1, args.steps + 1):
            await call.report_progress(step, args.steps, f"step {step}")
            PROGRESS_LOG.append(f"step {step}")
            await anyio.sleep(args.delay_ms / 1000)
    except anyio.get_cancelled_exc_class():
        PROGRESS_LOG.append("cancelled")
        raise
    return CountOutput(counted=args.steps)


class EventsInput(KindModel):
    clear: bool = Field(False, description="Empty the log after reading it.")


class EventsOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    events: list[str]


@contract.tool(
    name="list_count_events",
    title="List count events",
    description=(
        "The steps count_slowly reached in this server process, and 'cancelled' where a call saw "
        'its cancellation. Used by the cancellation tests. Example: {"clear": "<clear>"}.'
    ),
    # Clearing an empty log changes nothing: idempotent.
    effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
)
async def list_count_events(args: EventsInput, call: Call) -> EventsOutput:
    events = list(PROGRESS_LOG)
    if args.clear:
        PROGRESS_LOG.clear()
    return EventsOutput(events=events)


class ArchiveInput(KindModel):
    note_id: Annotated[str, Kind("identifier", prefix="note_")] = Field(
        description="The id search_notes returned, e.g. 'note_3'."
    )


class ArchiveOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    archived: str


@contract.tool(
    name="archive_note",
    title="Archive a note",
    description=(
        "Archive one note by the id search_notes returned; needs the scope notes:write. "
        'Idempotent: archiving an archived note succeeds. Example: {"note_id": "<note id>"}.'
    ),
    effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
    scopes=["notes:write"],
)
async def archive_note(args: ArchiveInput, call: Call) -> ArchiveOutput:
    return ArchiveOutput(archived=args.note_id)


READER_TOKEN = "reader-token-0123456789"
WRITER_TOKEN = "writer-token-0123456789"
EXPIRED_TOKEN = "expired-token-0123456789"

verifier = StaticTokenVerifier(
    {
        # caselaw:read: the eval drives caselaw behind this verifier (tests/eval)
        READER_TOKEN: StaticToken("reader", frozenset({"notes:read", "caselaw:read"})),
        WRITER_TOKEN: StaticToken(
            "writer",
            frozenset({"notes:read", "notes:write", "notes-example:write", "notes-serve:write"}),
        ),
        EXPIRED_TOKEN: StaticToken(
            "former",
            frozenset({"notes:read", "notes:write"}),
            expires_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC),
        ),
    }
)


def make_contract() -> Contract:
    """The factory form `drivable serve serve_app:make_contract` accepts."""
    return contract


if __name__ == "__main__":
    from drivable.serve import run_stdio

    run_stdio(contract)
