"""The bookings domain of the eval corpus: both servers do the work every workflow asks for, the
drivable one keeps its writes idempotent and its cancel two-step, and the readings of a day, a
time and an organiser's email land on the rows their canonical form finds.

Each workflow's steps are sent to a fresh pair of servers over the MCP wire (the SDK's client,
JSON-RPC over memory streams), the done call completed with what the step's draft says the user
gave (title, organiser), the drivable two-step through its own dry run and confirm token, and a
create whose booking was cancelled since made again by its repair, as an agent does.
"""

from __future__ import annotations

import datetime
import importlib
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.eval.baselines import bookings as naive_module
from drivable.eval.corpus.bookings import data
from drivable.eval.corpus.bookings.models import SearchInput
from drivable.eval.corpus.bookings.server import serve
from drivable.eval.scorer import contains
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Step, Workflow, bundled
from drivable.kinds.writing import spellings
from drivable.serve.mount import build_server
from drivable.target import Target, connect
from tests.servers.relaxation import check_empty_page, read_as

WORKFLOWS = bundled("bookings")
CONTROL = ("idempotency_key", "dry_run", "confirm_token")

# What the runtime does today that the workflows were written to show (issue 38); each flips to a
# pass, and strict xfail fails, once the runtime reads them right.
RUNTIME_GAPS: dict[tuple[str, str], str] = {}


@asynccontextmanager
async def _client(server: Any) -> AsyncIterator[Any]:
    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        yield client


async def _call(client: Any, tool: str, arguments: dict[str, Any]) -> Observation:
    result = await client.call_tool(tool, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return Observation(
        ToolCall(tool, arguments), bool(result.is_error), result.structured_content, text
    )


def _fresh_naive() -> Any:
    """The twin with the generated bookings and nothing else (its state is module-level)."""
    return importlib.reload(naive_module).server


def _resolve(value: Any, workflow: Workflow) -> Any:
    """A draft value as the user gave it: a fact's value; references to results left out."""
    if isinstance(value, str):
        fact = re.fullmatch(r"\{(\w+)\}", value)
        if fact and fact.group(1) in workflow.facts:
            return workflow.facts[fact.group(1)].value
        if value == "{unique}":
            return f"test-{workflow.name}"
        return None if value.startswith("$") else value
    if isinstance(value, list):
        return [_resolve(v, workflow) for v in value]
    return value


def _step_call(
    step: Step, workflow: Workflow, last: dict[str, Any], required: dict[str, set[str]]
) -> tuple[str, dict[str, Any]]:
    """The step's done call (its draft when it names only the tool), completed with the draft's
    values of the properties the tool requires (a booking's title and organiser): a done call
    names what is judged, and leaves out on purpose a filter the step must give up."""
    done = step.done
    drafted = {}
    if step.draft is not None:
        drafted = {k: _resolve(v, workflow) for k, v in step.draft.arguments.items()}
        drafted = {k: v for k, v in drafted.items() if v is not None}
    tool = done.tool_name or (step.draft.tool if step.draft else "")
    if done.call is None:
        arguments = drafted
    else:
        arguments = dict(done.call.arguments)
        for name in required.get(tool, set()) - set(arguments):
            if name in drafted:
                arguments[name] = drafted[name]
    for name, value in list(arguments.items()):
        if value == "*":  # the cursor the previous page of this tool handed out
            arguments[name] = (last.get(tool) or {}).get("next_cursor")
    return tool, arguments


async def _do_step(
    client: Any, side: str, tool: str, arguments: dict[str, Any], two_step: bool
) -> Observation:
    if side == "naive":
        return await _call(client, tool, {k: v for k, v in arguments.items() if k not in CONTROL})
    if two_step:
        preview = await _call(client, tool, {**arguments, "dry_run": True})
        assert not preview.is_error, preview.text[:400]
        follow = (preview.payload() or {}).get("next_call")
        assert isinstance(follow, dict) and follow["tool"] == tool, preview.text[:400]
        return await _call(client, tool, follow["arguments"])
    seen = await _call(client, tool, arguments)
    envelope = seen.envelope() if seen.is_error else None
    if envelope is not None and envelope.get("code") == "change_undone":
        # what this key made was undone since: the repair makes it again under a key of its own
        repair = envelope["repair"]
        assert repair["tool"] == tool, envelope
        return await _call(client, tool, repair["arguments"])
    return seen


async def _run(workflow: Workflow, side: str) -> list[str]:
    """Every step's done call and every state check on a fresh server; what failed, in words."""
    server = _fresh_naive() if side == "naive" else build_server(serve())
    failures: list[str] = []
    last: dict[str, Any] = {}
    async with _client(server) as client:
        required = {
            t.name: set((t.input_schema or {}).get("required", []))
            for t in (await client.list_tools()).tools
        }
        for step in workflow.steps:
            tool, arguments = _step_call(step, workflow, last, required)
            seen = await _do_step(client, side, tool, arguments, bool(step.via))
            if seen.is_error:
                failures.append(f"{step.name}: {seen.text[:300]}")
                continue
            last[tool] = seen.payload()
            needle = step.done.result_contains
            if needle is not None and not contains(seen, needle):
                failures.append(f"{step.name}: no {needle!r} in {seen.text[:300]}")
        for check in workflow.state:
            seen = await _call(client, check.call.tool, dict(check.call.arguments))
            if check.error is not None and seen.is_error is not check.error:
                failures.append(f"state {check.call.tool}: error={seen.is_error}")
            if check.result_contains is not None and not contains(seen, check.result_contains):
                failures.append(f"state {check.call.tool}: no {check.result_contains!r}")
    return failures


def _cases() -> list[Any]:
    cases = []
    for workflow in WORKFLOWS:
        for side in ("naive", "drivable"):
            gap = RUNTIME_GAPS.get((workflow.name, side))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            cases.append(pytest.param(workflow, side, marks=marks, id=f"{workflow.name}-{side}"))
    return cases


@pytest.mark.parametrize(("workflow", "side"), _cases())
async def test_each_workflow_can_be_done_on_both_servers(workflow: Workflow, side: str) -> None:
    assert await _run(workflow, side) == []


def test_the_set_has_both_splits_and_the_fixtures_a_domain_needs() -> None:
    splits = {w.split for w in WORKFLOWS}
    assert splits == {"tune", "holdout"}
    for split in ("tune", "holdout"):
        mine = [w for w in WORKFLOWS if w.split == split]
        assert len(mine) >= 6
        needed = {"cold-start", "wrong-tool", "invalid-argument", "pagination"}
        needed |= {"destructive-two-step", "retry-after-timeout"}
        assert needed <= {w.fixture for w in mine}, split


async def test_both_servers_list_the_same_tools_in_the_same_order() -> None:
    names = []
    for server in (_fresh_naive(), build_server(serve())):
        async with _client(server) as client:
            names.append([t.name for t in (await client.list_tools()).tools])
    tools = ["search_rooms", "get_room", "create_booking", "list_my_bookings", "cancel_booking"]
    assert names == [tools, tools]


async def test_both_servers_run_as_modules_over_stdio() -> None:
    import sys

    for command in (
        [sys.executable, "-m", "drivable.eval.baselines.bookings"],
        [sys.executable, "-m", "drivable.eval.surfaces", "bookings"],
    ):
        async with connect(Target(command=tuple(command)), mode="legacy") as client:
            seen = await _call(client, "get_room", {"room_id": "room_16", "day": "2026-10-08"})
        assert not seen.is_error, (command, seen.text[:300])
        assert contains(seen, '"16:30"'), seen.text[:300]  # Juniper is busy from 16:30


# -- the drivable server's writes ----------------------------------------------------------------

BOOKING = {
    "room_id": "room_31",
    "day": "2026-10-12",
    "start": "11:00",
    "end": "12:00",
    "title": "Keyed standup",
    "organiser_email": "sam.okafor@example.com",
}


async def _ok(contract: Contract, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    out = await contract.call(tool, arguments)
    assert not out.is_error, json.dumps(out.structured)[:400]
    return out.structured


async def test_a_keyed_booking_books_once_and_another_booking_under_its_key_is_refused() -> None:
    contract = serve()
    first = await _ok(contract, "create_booking", {**BOOKING, "idempotency_key": "standup-k1"})
    again = await _ok(contract, "create_booking", {**BOOKING, "idempotency_key": "standup-k1"})
    assert again["booking"] == first["booking"]
    listed = await _ok(
        contract,
        "list_my_bookings",
        {"organiser_email": "sam.okafor@example.com", "date_from": "2026-10-12"},
    )
    standups = [b for b in listed["results"] if b["title"] == "Keyed standup"]
    assert [b["booking_id"] for b in standups] == [first["booking"]["booking_id"]]
    other = {**BOOKING, "start": "12:00", "end": "13:00", "idempotency_key": "standup-k1"}
    refused = await contract.call("create_booking", other)
    assert refused.is_error and refused.structured["code"] == "idempotency_mismatch"


async def test_a_taken_time_is_refused_with_the_call_that_shows_the_free_times() -> None:
    contract = serve()
    busy = {**BOOKING, "room_id": "room_28", "day": "2026-10-14", "start": "14:00", "end": "15:00"}
    refused = await contract.call("create_booking", {**busy, "idempotency_key": "vendor-k1"})
    assert refused.is_error and refused.structured["code"] == "state_conflict"
    repair = refused.structured["repair"]
    assert repair["tool"] == "get_room"
    assert repair["arguments"] == {"room_id": "room_28", "day": "2026-10-14"}
    day = await _ok(contract, "get_room", repair["arguments"])
    assert {"start": "15:00", "end": "19:00"} in day["free_times"]


async def test_a_cancel_runs_only_with_the_token_of_its_own_dry_run() -> None:
    contract = serve()
    straight = await contract.call("cancel_booking", {"booking_id": "bk_2345", "dry_run": False})
    assert straight.is_error and straight.structured["code"] == "confirmation_required"
    assert straight.structured["details"]["preview"]["cancelled"] is False
    assert straight.structured["repair"]["arguments"]["dry_run"] is False
    preview = await _ok(contract, "cancel_booking", {"booking_id": "bk_2345", "dry_run": True})
    assert preview["cancelled"] is False and preview["booking"]["status"] == "confirmed"
    still = await _ok(
        contract,
        "list_my_bookings",
        {"organiser_email": "tomas.dvorak@example.com", "date_to": "2026-10-08"},
    )
    assert "bk_2345" in {b["booking_id"] for b in still["results"]}
    token = preview["next_call"]["arguments"]["confirm_token"]
    wrong = await contract.call(
        "cancel_booking", {"booking_id": "bk_1457", "dry_run": False, "confirm_token": token}
    )
    assert wrong.is_error and wrong.structured["code"] == "confirmation_invalid"
    done = await _ok(contract, "cancel_booking", preview["next_call"]["arguments"])
    assert done["cancelled"] is True and done["booking"]["status"] == "cancelled"
    twice = await contract.call("cancel_booking", {"booking_id": "bk_2345", "dry_run": True})
    assert twice.is_error and twice.structured["code"] == "state_conflict"


async def test_a_fresh_process_starts_from_the_generated_bookings() -> None:
    made = []
    for key in ("fresh-k1", "fresh-k2"):  # two servers, as two processes would be
        out = await _ok(serve(), "create_booking", {**BOOKING, "idempotency_key": key})
        made.append(out["booking"]["booking_id"])
    assert made == [f"bk_{data.FIRST_NEW_ID}"] * 2


# -- readings ------------------------------------------------------------------------------------

OPEN_DAYS = data.weekdays(data.FIRST_DAY, data.LAST_DAY)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")  # fmt: skip


def _day_spellings(day: datetime.date) -> list[str]:
    """How people write a day; the server's clock makes the relative ones days too."""
    month = MONTHS[day.month - 1]
    out = [
        day.isoformat(),
        f"{day.day}. {day.month}. {day.year}",
        f"{day.day}.{day.month}.{day.year}",
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{month[:3]} {day.day}, {day.year}",
        f"{day.year}/{day.month:02d}/{day.day:02d}",
    ]
    ahead = (day - data.TODAY).days
    out += {0: ["today"], 1: ["tomorrow"]}.get(ahead, [])
    if ahead > 1:
        out.append(f"in {ahead} days")
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    day=st.sampled_from(OPEN_DAYS),
    pick=st.integers(min_value=0, max_value=20),
    building=st.sampled_from([None, *data.BUILDINGS]),
    seats=st.sampled_from([None, 4, 8, 12, 20]),
    span=st.sampled_from([None, ("09:00", "10:00"), ("14:00", "16:00"), ("17:30", "19:00")]),
)
async def test_any_spelling_of_a_day_finds_the_rooms_its_date_finds(
    day: datetime.date,
    pick: int,
    building: str | None,
    seats: int | None,
    span: tuple[str, str] | None,
) -> None:
    contract = _CONTRACT
    spellings = _day_spellings(day)
    spelled = spellings[pick % len(spellings)]
    base: dict[str, Any] = {"limit": 40}
    if building:
        base["building"] = building
    if seats:
        base["min_seats"] = seats
    if span:
        base["start"], base["end"] = span
    want = await _ok(contract, "search_rooms", {**base, "day": day.isoformat()})
    got = await _ok(contract, "search_rooms", {**base, "day": spelled})
    assert got["results"] == want["results"], spelled
    assert got.get("next_call") == want.get("next_call"), spelled


_CONTRACT = serve()  # read-only calls: one server serves every example

HOURS = range(8, 19)


def _time_spellings(hour: int, minute: int) -> list[str]:
    twelve = hour - 12 if hour > 12 else hour
    half = f":{minute:02d}" if minute else ""
    meridiem = "pm" if hour >= 12 else "am"
    return [
        f"{hour}:{minute:02d}",
        f"{hour}.{minute:02d}",
        f"{twelve}{half}{meridiem}",
        f"{twelve}{half} {meridiem.upper()}",
        f"{hour}h{minute:02d}" if minute else f"{hour}h",
    ]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hour=st.sampled_from(list(HOURS)),
    minute=st.sampled_from([0, 30]),
    pick=st.integers(min_value=0, max_value=4),
)
async def test_any_spelling_of_a_time_finds_the_rooms_its_slot_finds(
    hour: int, minute: int, pick: int
) -> None:
    """A time people write reads as its slot; never refused with another time as the fix."""
    slot = f"{hour:02d}:{minute:02d}"
    spelled = _time_spellings(hour, minute)[pick]
    end = data.SLOTS[data.SLOTS.index(slot) + 1]
    base = {"day": "2026-10-08", "end": end, "limit": 40}
    want = await _ok(_CONTRACT, "search_rooms", {**base, "start": slot})
    got = await _CONTRACT.call("search_rooms", {**base, "start": spelled})
    suggested = re.findall(r"Did you mean '([^']*)'", json.dumps(got.structured))
    assert all(s == slot for s in suggested), (spelled, suggested)
    assert not got.is_error, (spelled, json.dumps(got.structured)[:300])
    assert got.structured["results"] == want["results"]


def _address_spellings(address: str) -> list[str]:
    """How people paste an address: the writer's spellings, a display name, capitals."""
    name = " ".join(part.capitalize() for part in address.split("@")[0].split("."))
    return [*spellings("email", address), f"{name} <{address}>", address.upper()]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(who=st.sampled_from(data.ORGANISERS), pick=st.integers(min_value=0, max_value=10))
async def test_any_spelling_of_an_organiser_lists_the_bookings_their_address_lists(
    who: str, pick: int
) -> None:
    """The email kind reads the address (space, `mailto:`, a display name, the domain's case);
    a mailbox is one whatever the case of its address, so capitals list the same bookings."""
    spelled = _address_spellings(who)
    sent = spelled[pick % len(spelled)]
    want = await _ok(_CONTRACT, "list_my_bookings", {"organiser_email": who, "limit": 50})
    got = await _ok(_CONTRACT, "list_my_bookings", {"organiser_email": sent, "limit": 50})
    assert got["results"] == want["results"], sent


# -- an empty search: the minimal relaxation, the seats a requirement -----------------------------


async def _send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A call as the empty-page checker makes it: the result, is_error, and `total` (every room
    fits one page of 40)."""
    out = await _CONTRACT.call(tool, {**arguments, "limit": 40})
    data = dict(out.structured, is_error=out.is_error)
    if not out.is_error:
        data["total"] = len(data["results"])
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    building=st.sampled_from([None, *data.BUILDINGS]),
    seats=st.sampled_from([None, 6, 12, 16, 20, 24, 30, 40]),
    equipment=st.sampled_from([None, ["video"], ["whiteboard", "video"], ["screen"]]),
    query=st.sampled_from([None, "Juniper", "the Onyx room", "Kiln"]),
    day=st.sampled_from(OPEN_DAYS),
    span=st.sampled_from([None, ("09:00", "10:00"), ("10:00", "12:00"), ("13:00", "17:00")]),
)
async def test_an_empty_search_leads_on_by_its_minimal_relaxation_keeping_the_seats(
    building: str | None,
    seats: int | None,
    equipment: list[str] | None,
    query: str | None,
    day: datetime.date,
    span: tuple[str, str] | None,
) -> None:
    """The runtime's rule (`Call.relax`, checked from the outside by calling again): the next
    call leaves out the filter (building or equipment) whose removal finds the fewest rooms, more
    than none, every other argument kept, and names the values that would match; the seats are a
    requirement and stay in every next call (a room too small is no room for the meeting); the
    name, the day and the time are what was asked, never left out."""
    sent: dict[str, Any] = {"day": day.isoformat(), "limit": 40}
    for name, value in (
        ("building", building),
        ("min_seats", seats),
        ("equipment", equipment),
        ("query", query),
    ):
        if value is not None:
            sent[name] = value
    if span:
        sent["start"], sent["end"] = span
    page = await _send("search_rooms", sent)
    read = read_as(SearchInput, sent)
    assert read is not None
    await check_empty_page(
        _send, "search_rooms", read, [("building", "equal"), ("equipment", "equal")], page
    )
    follow = page.get("next_call")
    if follow is not None and seats is not None:
        assert follow["arguments"]["min_seats"] == seats


async def test_no_room_in_the_building_leads_to_rooms_that_seat_the_meeting() -> None:
    """no-room-in-building: leaving out min_seats would find Copper (8 seats) and Bellows (12)
    for 16 people; the next call leaves out the building and finds Alder, 16 seats, first."""
    sent = {
        "building": "Foundry",
        "min_seats": 16,
        "equipment": ["video"],
        "day": "2026-10-08",
        "start": "09:00",
        "end": "10:00",
    }
    page = await _ok(_CONTRACT, "search_rooms", sent)
    assert page["results"] == []
    following = page["next_call"]["arguments"]
    assert following == {k: v for k, v in sent.items() if k != "building"}
    found = await _ok(_CONTRACT, "search_rooms", following)
    assert found["results"][0]["room_id"] == "room_11"
    assert all(r["seats"] >= 16 for r in found["results"])
    assert "It keeps min_seats 16" in page["message"]


# -- every refusal names the next call -----------------------------------------------------------

TOOLS = ("search_rooms", "get_room", "create_booking", "list_my_bookings", "cancel_booking")
REFUSED = [
    ("create_booking", {**BOOKING, "day": "2026-10-01"}),  # in the past
    ("create_booking", {**BOOKING, "start": "9:15", "end": "10:00"}),  # not on the half hour
    ("create_booking", {**BOOKING, "start": "7am", "end": "9am"}),  # before the rooms open
    ("create_booking", {**BOOKING, "start": "9:00 UTC", "end": "10:00"}),  # a zone
    ("search_rooms", {"day": "2026-10-08", "start": "18:30", "end": "19:30"}),  # after closing
    ("create_booking", {**BOOKING, "day": "2026-10-10"}),  # a Saturday
    ("create_booking", {**BOOKING, "start": "19:00", "end": "10:00"}),  # no range
    ("create_booking", {**BOOKING, "room_id": "room_41"}),  # no such room
    ("create_booking", {**BOOKING, "room_id": "room_28", "day": "2026-10-14", "start": "14:00"}),
    ("search_rooms", {"start": "09:00", "end": "10:00"}),  # no day
    ("search_rooms", {"day": "2026-10-11"}),  # a Sunday
    ("search_rooms", {"day": "2026-10-08", "start": "12:00", "end": "11:00"}),
    ("get_room", {"room_id": "room_77"}),
    ("cancel_booking", {"booking_id": "bk_9999"}),  # no such booking
    ("cancel_booking", {"booking_id": "bk_1003"}),  # in the past
    ("cancel_booking", {"booking_id": "bk_1027"}),  # already cancelled
]


@pytest.mark.parametrize(
    ("tool", "arguments"), REFUSED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(REFUSED)]
)
async def test_every_refusal_of_the_handlers_names_the_next_call(
    tool: str, arguments: dict[str, Any]
) -> None:
    sent = {**arguments, "idempotency_key": "refused-k1"} if tool == "create_booking" else arguments
    out = await _CONTRACT.call(tool, sent)
    assert out.is_error, json.dumps(out.structured)[:300]
    envelope = out.structured
    repair = envelope.get("repair") or {}
    assert repair.get("tool") in TOOLS or any(t in envelope["hint"] for t in TOOLS), envelope
