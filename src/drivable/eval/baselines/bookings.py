"""The bookings server written the way a careful FastMCP author writes it: the same five tools over
the same rooms and bookings.

Plain `str`/`int` parameters and one-line docstrings; values parsed strictly ("09:00", "2026-10-08");
errors raised as `ToolError` whose message says what went wrong and names the next step in words
("Use get_room with the day to see free times."); integer-offset cursors; a create without a key
and a cancel that cancels. Bookings live in this process, loaded from the generated data, as the
drivable server's scratch store is. Run as a module for stdio.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from drivable.eval.corpus.bookings.data import (
    BOOKINGS,
    BUILDINGS,
    CLOSES,
    EQUIPMENT,
    FIRST_NEW_ID,
    OPENS,
    ROOM_BY_ID,
    ROOMS,
    SLOTS,
    TODAY,
    Booking,
    Room,
    fits,
    free_times,
    in_order,
    is_free,
    is_open,
    overlaps,
)

server = MCPServer("bookings-naive", version="1.0.0")
_BOOKINGS: dict[str, Booking] = {b.booking_id: b for b in BOOKINGS}
_NEXT = [FIRST_NEW_ID]


def _day(value: str, name: str = "day") -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"Invalid {name} '{value}'. Use the format YYYY-MM-DD.") from None


def _time(value: str, name: str) -> str:
    if value not in SLOTS:
        raise ToolError(
            f"Invalid {name} '{value}'. Use HH:MM on the half hour between {OPENS} and "
            f"{CLOSES}, e.g. 09:00 or 14:30."
        )
    return value


def _room(room_id: str) -> Room:
    room = ROOM_BY_ID.get(room_id)
    if room is None:
        raise ToolError(f"Room '{room_id}' not found. Use search_rooms to find room ids.")
    return room


def _busy(day: str, room_id: str) -> list[tuple[str, str]]:
    return [
        (b.start, b.end)
        for b in _BOOKINGS.values()
        if b.day == day and b.room_id == room_id and b.status == "confirmed"
    ]


def _room_dict(room: Room) -> dict[str, Any]:
    return {
        "room_id": room.room_id,
        "name": room.name,
        "building": room.building,
        "floor": room.floor,
        "seats": room.seats,
        "equipment": list(room.equipment),
    }


def _booking_dict(b: Booking) -> dict[str, Any]:
    room = ROOM_BY_ID[b.room_id]
    return {
        "booking_id": b.booking_id,
        "room_id": b.room_id,
        "room_name": room.name,
        "building": room.building,
        "day": b.day,
        "start": b.start,
        "end": b.end,
        "title": b.title,
        "organiser_email": b.organiser_email,
        "status": b.status,
    }


def _ranges(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"start": s, "end": e} for s, e in pairs]


@server.tool()
def search_rooms(
    building: str | None = None,
    min_seats: int | None = None,
    equipment: list[str] | None = None,
    query: str | None = None,
    day: str | None = None,
    start: str | None = None,
    end: str | None = None,
    cursor: str | None = None,
    limit: int = 10,
) -> dict[str, Any]:
    """Search meeting rooms; with day, start and end only rooms free then."""
    if building is not None and building not in BUILDINGS:
        raise ToolError(f"Unknown building '{building}'. Buildings: {', '.join(BUILDINGS)}.")
    for item in equipment or []:
        if item not in EQUIPMENT:
            raise ToolError(f"Unknown equipment '{item}'. Equipment: {', '.join(EQUIPMENT)}.")
    when = _day(day) if day else None
    if (start or end) and when is None:
        raise ToolError("start and end need a day. Pass day as YYYY-MM-DD.")
    if when is not None and not is_open(when):
        raise ToolError(f"{when} is a weekend day. Rooms can only be booked Monday to Friday.")
    if start and end:
        _time(start, "start")
        _time(end, "end")
        if end <= start:
            raise ToolError("end must be after start.")
    elif start or end:
        raise ToolError("Pass both start and end, or neither.")
    rows = []
    for room in in_order(ROOMS):
        if not fits(
            room, building=building, min_seats=min_seats, equipment=equipment or (), query=query
        ):
            continue
        row = _room_dict(room)
        if when is not None:
            busy = _busy(when.isoformat(), room.room_id)
            if start and end and not is_free(busy, start, end):
                continue
            row["free_times"] = _ranges(free_times(busy))
        rows.append(row)
    offset = int(cursor) if cursor else 0
    return {
        "results": rows[offset : offset + limit],
        "next_cursor": str(offset + limit) if offset + limit < len(rows) else None,
    }


@server.tool()
def get_room(room_id: str, day: str | None = None) -> dict[str, Any]:
    """Get a room and its free times on a day."""
    room = _room(room_id)
    when = _day(day) if day else TODAY
    if not is_open(when):
        return {"room": _room_dict(room), "day": when.isoformat(), "free_times": [], "busy": []}
    busy = _busy(when.isoformat(), room.room_id)
    return {
        "room": _room_dict(room),
        "day": when.isoformat(),
        "free_times": _ranges(free_times(busy)),
        "busy": _ranges(sorted(busy)),
    }


@server.tool()
def create_booking(
    room_id: str, day: str, start: str, end: str, title: str, organiser_email: str
) -> dict[str, Any]:
    """Book a room."""
    room = _room(room_id)
    when = _day(day)
    _time(start, "start")
    _time(end, "end")
    if when < TODAY:
        raise ToolError(f"{when} is in the past; today is {TODAY}. Pick a day from today on.")
    if not is_open(when):
        raise ToolError(f"{when} is a weekend day. Rooms can only be booked Monday to Friday.")
    if end <= start:
        raise ToolError("end must be after start.")
    if "@" not in organiser_email:
        raise ToolError(f"Invalid organiser_email '{organiser_email}'.")
    for s, e in _busy(when.isoformat(), room.room_id):
        if overlaps(start, end, s, e):
            raise ToolError(
                f"Room {room.room_id} has no free slot at {start} on {when}. "
                "Use get_room with the day to see free times."
            )
    booking = Booking(
        f"bk_{_NEXT[0]}",
        room.room_id,
        when.isoformat(),
        start,
        end,
        title,
        organiser_email.lower(),
        "confirmed",
    )
    _NEXT[0] += 1
    _BOOKINGS[booking.booking_id] = booking
    return {"booking": _booking_dict(booking)}


@server.tool()
def list_my_bookings(
    organiser_email: str,
    date_from: str | None = None,
    date_to: str | None = None,
    include_cancelled: bool = False,
    cursor: str | None = None,
    limit: int = 10,
) -> dict[str, Any]:
    """List my bookings."""
    first = _day(date_from, "date_from") if date_from else TODAY
    last = _day(date_to, "date_to") if date_to else None
    email = organiser_email.lower()
    rows = sorted(
        (
            b
            for b in _BOOKINGS.values()
            if b.organiser_email == email
            and b.day >= first.isoformat()
            and (last is None or b.day <= last.isoformat())
            and (include_cancelled or b.status == "confirmed")
        ),
        key=lambda b: (b.day, b.start, int(b.booking_id.split("_")[1])),
    )
    offset = int(cursor) if cursor else 0
    return {
        "results": [_booking_dict(b) for b in rows[offset : offset + limit]],
        "next_cursor": str(offset + limit) if offset + limit < len(rows) else None,
    }


@server.tool()
def cancel_booking(booking_id: str) -> dict[str, Any]:
    """Cancel a booking."""
    booking = _BOOKINGS.get(booking_id)
    if booking is None:
        raise ToolError(
            f"Booking '{booking_id}' not found. Use list_my_bookings to see your bookings."
        )
    if booking.status == "cancelled":
        raise ToolError(f"Booking {booking_id} is already cancelled.")
    if booking.day < TODAY.isoformat():
        raise ToolError(f"Booking {booking_id} is in the past and cannot be cancelled.")
    cancelled = dataclasses.replace(booking, status="cancelled")
    _BOOKINGS[booking_id] = cancelled
    return {"booking": _booking_dict(cancelled), "status": "cancelled"}


if __name__ == "__main__":
    server.run()
