"""A small room-booking server, written as a new user would, for the tests of the next-step rules.

Its rooms count up ("room_1" .. "room_30"), a slot is a half-hour enum, the search has two bounds
on seats (min_seats, max_seats), a bounded free-text query, a country and a cursor: the shapes the
rules of docs/runtime.md and docs/kinds.md were written against.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, Effects, Output, Summary, ToolError
from drivable.contract.envelope import Repair
from drivable.contract.paging import PageInfo, Pager
from drivable.kinds import KindModel
from drivable.kinds.enum import one_of
from drivable.kinds.identifier import IdOf

contract = Contract(
    "booking",
    version="1.0.0",
    summary=Summary(
        "Find and book meeting rooms.",
        does=["find rooms by size, day and slot", "read one room", "book a room"],
        does_not=["cancel bookings"],
    ),
)

ROOMS: dict[str, dict[str, Any]] = {
    f"room_{i}": {"id": f"room_{i}", "name": f"Room {i}", "seats": 2 * i, "country": "CZ"}
    for i in range(1, 31)
}
SLOTS = tuple(f"{h:02d}:{m:02d}" for h in range(8, 20) for m in (0, 30))
PAGER = Pager(secret=b"booking-secret-for-tests")
QUERY_BOUND = 100


class FindInput(KindModel):
    query: str | None = Field(None, max_length=QUERY_BOUND, description="Words in the room's name.")
    day: datetime.date | None = Field(None, description="The day to book.")
    min_seats: int | None = Field(None, ge=1, le=500, description="At least this many seats.")
    max_seats: int | None = Field(None, ge=1, le=500, description="At most this many seats.")
    country: str | None = Field(None, description="Only rooms in this country.")
    slot: Annotated[str | None, one_of(*SLOTS)] = Field(
        None, description="A half-hour slot the room is free in."
    )
    date_from: datetime.date | None = Field(None, description="Free from this day.")
    date_to: datetime.date | None = Field(None, description="Free until this day.")
    cursor: str | None = Field(None, description="next_cursor of the previous page.")
    limit: int = Field(5, ge=1, le=10, description="Rooms per page.")


class Room(Output):
    id: str
    name: str
    seats: int


class Found(PageInfo):
    rooms: list[Room]


@contract.tool(effects=READ_ONLY, errors=["invalid_cursor", "cursor_expired"])
async def find_rooms(args: FindInput, call: Call) -> Found:
    """Find meeting rooms by size, day, slot and words. Example: {"min_seats": "<min seats>"}."""
    start = PAGER.offset(call, args)
    rows = [
        r
        for r in ROOMS.values()
        if (args.min_seats is None or r["seats"] >= args.min_seats)
        and (args.max_seats is None or r["seats"] <= args.max_seats)
    ]
    shown = rows[start : start + args.limit]
    page = PAGER.page(call, args, start, len(shown), start + len(shown) < len(rows))
    return Found(
        rooms=[Room(id=r["id"], name=r["name"], seats=r["seats"]) for r in shown],
        has_more=page.has_more,
        next_cursor=page.next_cursor,
    )


class GetInput(KindModel):
    room_id: IdOf("room_", lookup=("find_rooms", None)) = Field(  # type: ignore[valid-type]
        description="The id find_rooms returned."
    )


class One(Output):
    room: Room


@contract.tool(effects=READ_ONLY, errors=["not_found"])
async def get_room(args: GetInput) -> One:
    """Read one room by the id find_rooms returned. Example: {"room_id": "<room id>"}."""
    room = ROOMS.get(args.room_id)
    if room is None:
        raise ToolError(
            "not_found",
            f"No room has the id {args.room_id}.",
            hint="Find the room with find_rooms and use the id it returns.",
            repair=Repair("find_rooms", {}, "look_the_id_up_first"),
        )
    return One(room=Room(id=room["id"], name=room["name"], seats=room["seats"]))


class HoldInput(KindModel):
    room_id: IdOf("room_") = Field(description="The id find_rooms returned.")  # type: ignore[valid-type]
    seats: int = Field(ge=1, le=500, description="How many people.")
    note: str | None = Field(None, max_length=2000, description="A note for the front desk.")


class Held(Output):
    room_id: str
    seats: int


@contract.tool(
    effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
)
async def schedule_room(args: HoldInput) -> Held:
    """Schedule a room for a number of people (scheduling it again changes nothing).
    Example: {"room_id": "<room id>", "seats": "<seats>"}."""
    return Held(room_id=args.room_id, seats=args.seats)
