"""The registry of surface additions (decision 0033): everything the runtime adds to what an author
wrote is an entry, tools/list carries the entries in `SHOWN` and nothing else, the detail carries
every one, and each entry is its own: showing or hiding one changes only what it adds."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from drivable.contract import READ_ONLY, Contract, Effects, Summary, additions
from drivable.contract.boundary import INT_MAX, INT_MIN
from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.contract.tool import ToolSpec
from drivable.kinds import KindModel
from drivable.tasks import LongRunning

ROOT = Path(__file__).resolve().parents[2]

contract = Contract(
    "additions-check",
    version="1",
    summary=Summary("Every addition the runtime makes.", does=["test"], does_not=["anything"]),
)


class Booked(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: str


class BookInput(KindModel):
    day: datetime.date = Field(description="The day to book.")
    seats: int = Field(description="How many seats.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


@contract.tool(
    description="Book seats on a day. Use it when the user asks for seats; a full day is refused.",
    effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
    examples=[{"day": "<YYYY-MM-DD>", "seats": "<how many>", "idempotency_key": "<a key>"}],
)
async def book_seats(args: BookInput) -> Booked:
    raise AssertionError


class PurgeInput(KindModel):
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


@contract.tool(
    description="Purge the whole cache. Use it only when the user asks to; it cannot be undone.",
    effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    examples=[{"dry_run": True}],
)
async def purge_cache(args: PurgeInput) -> Booked:
    raise AssertionError


class TallyInput(KindModel):
    scope: Literal["all", "mine"] = Field("all", description="What to count.")


@contract.tool(
    description="Count every booking ever made, by day. Use it for totals, never for one booking.",
    effects=READ_ONLY,
    task=LongRunning(duration="minutes", timeout_s=600),
)
async def count_bookings(args: TallyInput) -> Booked:
    raise AssertionError


SPECS = list(contract.tools.values())
DETAIL = contract.tool_detail()

# What each schema addition may change in an inputSchema: the keywords it writes.
KEYWORDS = {
    "dialect": {"$schema"},
    "integer-range": {"minimum", "maximum"},
    "property-examples": {"examples"},
    "call-examples": {"examples"},
    "key-description": {"description"},
    "dry-run-description": {"description"},
    "confirm-token-description": {"description"},
}


def _changes(a: Any, b: Any, path: str = "") -> set[tuple[str, str]]:
    """(path, keyword) of every keyword that differs between two schemas."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return set() if a == b else {(path, "")}
    out: set[tuple[str, str]] = set()
    for key in set(a) | set(b):
        if key not in a or key not in b:
            out.add((path, key))
        elif key == "properties":
            for name in set(a[key]) | set(b[key]):
                out |= _changes(a[key].get(name), b[key].get(name), f"{path}/{name}")
        elif a[key] != b[key]:
            sub = _changes(a[key], b[key], f"{path}/{key}")
            out |= sub if isinstance(a[key], dict) and isinstance(b[key], dict) else {(path, key)}
    return out


def test_shown_names_registered_additions_only() -> None:
    assert additions.SHOWN <= additions.EVERY
    assert set(KEYWORDS) == {a.id for a in additions.ADDITIONS.values() if a.place == "inputSchema"}


def test_every_addition_has_its_section_in_the_decision() -> None:
    text = (ROOT / additions.DECISION).read_text(encoding="utf-8")
    headings = set(re.findall(r"^### `([a-z-]+)`", text, re.M))
    assert headings == set(additions.EVERY)
    for addition in additions.ADDITIONS.values():
        assert addition.decision == f"{additions.DECISION}#{addition.id}"


def test_every_addition_adds_something_on_some_tool() -> None:
    # an entry that no longer adds anything is dead: the registry would list a choice there is not
    for addition in additions.EVERY:
        changed = [
            s.name
            for s in SPECS
            if contract.tool_wire(s, additions.EVERY)
            != contract.tool_wire(s, additions.EVERY - {addition})
        ]
        assert changed, addition


def test_with_no_additions_a_tool_is_listed_as_its_author_wrote_it() -> None:
    for spec in SPECS:
        wire = contract.tool_wire(spec, frozenset())
        assert wire["description"] == spec.description
        schema = wire["inputSchema"]
        assert "$schema" not in schema and "examples" not in schema
        for name, node in schema["properties"].items():
            assert "examples" not in node
            assert node.get("minimum") != INT_MIN and node.get("maximum") != INT_MAX
            for preset in (IDEMPOTENCY_KEY, DRY_RUN, CONFIRM_TOKEN):
                assert node.get("description") != preset.description, name


@settings(max_examples=80, deadline=None)
@given(shown=st.sets(st.sampled_from(sorted(additions.EVERY))), spec=st.sampled_from(SPECS))
def test_showing_an_addition_adds_only_what_it_adds(shown: set[str], spec: ToolSpec) -> None:
    shown_set = frozenset(shown)
    sentences = contract.surface.sentences(spec)
    wire = contract.tool_wire(spec, shown_set)
    assert wire["description"] == " ".join(
        [spec.description, *(text for addition, text in sentences if addition in shown_set)]
    )
    for _, text in sentences:  # the detail says every sentence, shown or not
        assert text in DETAIL[spec.name]["description"]
    for addition in shown_set:
        without = contract.tool_wire(spec, shown_set - {addition})
        assert {k for k in wire if wire[k] != without.get(k)} <= {"description", "inputSchema"}
        changed = {key for _, key in _changes(wire["inputSchema"], without["inputSchema"])}
        assert changed <= KEYWORDS.get(addition, set()), (addition, changed)


def test_the_default_listing_carries_the_shown_additions() -> None:
    wires = {s.name: contract.tool_wire(s) for s in SPECS}
    assert "Example: {" in wires["book_seats"]["description"]
    assert "Two steps" in wires["purge_cache"]["description"]
    assert (
        "Long-running (usually minutes); stopped after 10 min."
        in wires["count_bookings"]["description"]
    )
    key = wires["book_seats"]["inputSchema"]["properties"]["idempotency_key"]
    assert key["description"] == IDEMPOTENCY_KEY.description
    # and leaves the others to the detail
    assert "within 24 hours" not in wires["book_seats"]["description"]
    assert "tasks/get" not in wires["count_bookings"]["description"]
    assert "tasks/get" in DETAIL["count_bookings"]["description"]
    assert "$schema" not in wires["book_seats"]["inputSchema"]
    assert "$schema" in DETAIL["book_seats"]["inputSchema"]
