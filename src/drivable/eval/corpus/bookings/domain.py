"""What the bookings tools share: rows as shown, the domain's refusals with their repairs (closed
days, time ranges, half-hour slots, unknown rooms) and the rooms a search finds under its filters."""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping
from typing import Any

from drivable.contract import (
    Issue,
    Repair,
    ToolError,
)
from drivable.contract.relax import Filter
from drivable.eval.corpus.bookings import data
from drivable.eval.corpus.bookings.data import ROOM_BY_ID, ROOMS, Booking, Room
from drivable.eval.corpus.bookings.models import BookingRow, RoomRow, SearchInput, TimeRange
from drivable.eval.corpus.bookings.store import Busy

# -- what the tools share ------------------------------------------------------------------------


def room_row(room: Room, free: list[tuple[str, str]] | None = None) -> RoomRow:
    return RoomRow(
        room_id=room.room_id,
        name=room.name,
        building=room.building,
        floor=room.floor,
        seats=room.seats,
        equipment=list(room.equipment),
        free_times=None if free is None else [TimeRange(start=s, end=e) for s, e in free],
    )


def booking_row(b: Booking) -> BookingRow:
    room = ROOM_BY_ID[b.room_id]
    return BookingRow(
        booking_id=b.booking_id,
        room_id=b.room_id,
        room_name=room.name,
        building=room.building,
        day=b.day,
        start=b.start,
        end=b.end,
        title=b.title,
        organiser_email=b.organiser_email,
        status="cancelled" if b.status == "cancelled" else "confirmed",
    )


def weekday_name(day: datetime.date) -> str:
    return ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[
        day.weekday()
    ]


def closed_day(day: datetime.date, tool: str) -> ToolError:
    return ToolError(
        "invalid_arguments",
        f"{day.isoformat()} is a {weekday_name(day)}; rooms open Monday to Friday.",
        hint=f"Ask the user which weekday they meant, then call {tool} with it as day "
        "(YYYY-MM-DD).",
        issues=[
            Issue("day", "invalid_date", "Rooms open Monday to Friday.", day.isoformat(), None)
        ],
    )


def range_issue(start: str, end: str, tool: str) -> ToolError:
    return ToolError(
        "invalid_arguments",
        f"{start}-{end} is no time range: end must be after start, both within the opening "
        f"hours {data.OPENS}-{data.CLOSES}.",
        hint=f"Call {tool} again with an end later than start (both HH:MM on the half hour); "
        "ask the user if it is unclear which of the two is wrong.",
        issues=[Issue("end", "out_of_range", f"end must be after start {start}.", end, None)],
    )


def slot(value: datetime.time, field: str, tool: str, see: Repair | None = None) -> str:
    """A time read by the time kind as the half hour it names ("09:30"); a refusal when it is not
    one a booking can start (or, for `end`, finish) on: rooms are booked in whole half hours
    within the opening hours, in the building's own time. The refusal names the call to make and
    no other time: which one the user meant is theirs to say."""
    spelled = "24:00" if value == datetime.time.max else value.isoformat(timespec="minutes")
    allowed = data.ENDS if field == "end" else data.STARTS
    why, code = "", "invalid_value"
    if value.tzinfo is not None:
        why = "has a zone; rooms are booked in the building's own time, written without one"
    elif value.second or value.microsecond or value.minute not in (0, 30):
        why = "is not on the half hour; bookings start and end at :00 or :30"
    elif spelled not in allowed:
        why = f"is outside the opening hours, {data.OPENS} to {data.CLOSES}"
        code = "out_of_range"
    if not why:
        return spelled
    shows = (
        f"; {see.tool} (the call in `repair`) shows the room's free times that day" if see else ""
    )
    raise ToolError(
        "invalid_arguments",
        f"{field} {spelled} {why}.",
        hint=f"Rooms are booked in half hours between {data.OPENS} and {data.CLOSES}: ask the "
        f"user which {field} they meant, then call {tool} again with it as {field} (HH:MM)"
        f"{shows}.",
        issues=[
            Issue(
                field,
                code,
                f"{field} {why}.",
                received=spelled,
                expected="HH:MM on the half hour",
                has_received=True,
            )
        ],
        repair=see,
    )


def unknown_room(room_id: str) -> ToolError:
    return ToolError(
        "not_found",
        f"No room has the id {room_id}.",
        hint="Find the room with search_rooms (by building, seats or its name in query) and use "
        "the room_id it returns.",
        repair=Repair("search_rooms", {}, "search_first"),
    )


def the_range(args: SearchInput) -> tuple[str, str] | None:
    """The time a search asks about: start to end; start alone is its half hour, end alone the
    half hour before it."""
    start = args.start and slot(args.start, "start", "search_rooms")
    end = args.end and slot(args.end, "end", "search_rooms")
    if start and end:
        return start, end
    if start:
        return start, data.SLOTS[data.SLOTS.index(start) + 1]
    if end:
        return data.SLOTS[data.SLOTS.index(end) - 1], end
    return None


# search_rooms' filters, for the minimal relaxation of an empty page (`Call.relax`). The seats are
# a requirement, never left out: a room with fewer seats than the meeting has people is no room
# for it, whatever else matches. The name (query), the day and the time are what the user asked
# about, not filters.
FILTERS = (
    Filter("building"),
    Filter("min_seats", "lower", requirement=True),
    Filter("equipment"),
)


def matching(args: SearchInput, busy: Busy | None, kept: Mapping[str, Any]) -> list[Room]:
    """The rooms a search finds with the filters in `kept` (and its query, day and time)."""
    span = the_range(args)
    return data.in_order(
        room
        for room in ROOMS
        if data.fits(
            room,
            building=kept.get("building"),
            min_seats=kept.get("min_seats"),
            equipment=kept.get("equipment") or (),
            query=args.query,
        )
        and (span is None or busy is None or data.is_free(busy.get(room.room_id, ()), *span))
    )


def facet(rooms: list[Room], name: str) -> Counter[Any]:
    """Each value of one filter among `rooms`, with how many rooms have it."""
    if name == "equipment":
        return Counter(item for room in rooms for item in room.equipment)
    return Counter(getattr(room, {"min_seats": "seats"}.get(name, name)) for room in rooms)
