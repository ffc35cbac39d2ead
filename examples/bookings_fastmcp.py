"""Room bookings on FastMCP: the tools of bookings_drivable.py, as a FastMCP author writes them.

    fastmcp run examples/bookings_fastmcp.py

The same rooms, SQL and descriptions. A keyed create replays its first booking, a cancel needs the
token its dry run returned, and the list pages with a cursor: by hand, the plain way (the cursor
an offset, keys and tokens in the database). What drivable adds beyond that (signed and scoped
cursors, receipts that replay the result and say when it was undone, tokens bound to the
arguments and the caller, values read leniently, an error envelope naming the next call) is not
attempted here.
"""

import datetime as dt
import os
import secrets
import sqlite3
from typing import Annotated

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_access_token
from pydantic import BaseModel, Field

mcp = FastMCP(
    "bookings",
    instructions="Book meeting rooms: find a room free on a day, book it, list and cancel your "
    "bookings. It does not change a booking (cancel it and book again) or invite anyone.",
)
ROOMS = {"rm_1": ("Harbour", 4), "rm_2": ("Mill", 8), "rm_3": ("Station", 12)}
COLUMNS = "id, room_id, day, start, end, title"


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(os.environ.get("BOOKINGS_DB", "bookings.sqlite"))
    conn.row_factory = sqlite3.Row
    conn.execute(f"CREATE TABLE IF NOT EXISTS b ({COLUMNS}, who)")
    conn.execute("CREATE TABLE IF NOT EXISTS keys (key PRIMARY KEY, booking_id, args)")
    conn.execute("CREATE TABLE IF NOT EXISTS tokens (token PRIMARY KEY, booking_id)")
    return conn


def taken(room_id: str, day: dt.date, start: dt.time, end: dt.time) -> bool:
    query = "SELECT 1 FROM b WHERE room_id = ? AND day = ? AND start < ? AND end > ?"
    return bool(db().execute(query, (room_id, str(day), str(end), str(start))).fetchall())


def me() -> str:
    token = get_access_token()
    return token.client_id if token is not None else "local"


class Room(BaseModel):
    room_id: str
    name: str
    seats: int


class Booking(BaseModel):
    id: str
    room_id: str
    day: dt.date
    start: dt.time
    end: dt.time
    title: str


class Cancelled(BaseModel):
    booking: Booking
    cancelled: bool
    confirm_token: str | None = None


class Bookings(BaseModel):
    results: list[Booking]
    next_cursor: str | None = None


@mcp.tool(annotations={"readOnlyHint": True})
def search_rooms(
    day: dt.date,
    start: dt.time = dt.time(8),
    end: dt.time = dt.time(18),
    seats: Annotated[int, Field(ge=1, le=50, description="People to seat.")] = 1,
) -> list[Room]:
    """Find the rooms free on a day from start to end (08:00 to 18:00 unless given), smallest
    first. Use it before create_booking, for the room_id; no free room is an empty list.
    Example: {"day": "2026-03-02", "start": "09:00", "end": "10:00"}."""
    free = [r for r, (_, n) in ROOMS.items() if n >= seats and not taken(r, day, start, end)]
    return [Room(room_id=r, name=ROOMS[r][0], seats=ROOMS[r][1]) for r in free]


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True})
def create_booking(
    room_id: Annotated[str, Field(description="The room_id search_rooms returned.")],
    day: dt.date,
    start: dt.time,
    end: dt.time,
    title: Annotated[str, Field(min_length=1, max_length=200, description="What it is for.")],
    idempotency_key: Annotated[
        str, Field(min_length=8, max_length=128, description="A key you make up per booking.")
    ],
) -> Booking:
    """Book a room on a day from start to end and return the booking with its id. Use it once
    the user chose the room and the time; a room booked then is an error naming the search.
    Resending the same idempotency_key returns the first booking instead of booking twice.
    Example: {"room_id": "rm_1", "day": "2026-03-02", "start": "09:00", "end": "10:00",
    "title": "Standup", "idempotency_key": "a1b2c3d4e5"}."""
    args = f"{room_id} {day} {start} {end} {title}"
    with db() as conn:
        seen = conn.execute("SELECT * FROM keys WHERE key = ?", (idempotency_key,)).fetchone()
        if seen is not None and seen["args"] != args:
            raise ToolError("idempotency_key was used for another booking; make up a new one.")
        if seen is not None:
            query = f"SELECT {COLUMNS} FROM b WHERE id = ?"
            row = conn.execute(query, (seen["booking_id"],)).fetchone()
            if row is None:
                raise ToolError(
                    "That booking was cancelled; book again with a new idempotency_key."
                )
            return Booking(**row)
        if room_id not in ROOMS:
            raise ToolError(f"not_found: no room is {room_id}; find one with search_rooms.")
        if taken(room_id, day, start, end):
            raise ToolError(
                f"room_taken: {room_id} is booked on {day} between {start:%H:%M} and "
                f"{end:%H:%M}; call search_rooms with that day, start and end for a free room."
            )
        booking = Booking(
            id=f"bk_{os.urandom(4).hex()}",
            room_id=room_id,
            day=day,
            start=start,
            end=end,
            title=title,
        )
        row = (*booking.model_dump(mode="json").values(), me())
        conn.execute("INSERT INTO b VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        conn.execute("INSERT INTO keys VALUES (?, ?, ?)", (idempotency_key, booking.id, args))
    return booking


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True})
def cancel_booking(
    booking_id: Annotated[str, Field(description="The id list_my_bookings returned.")],
    dry_run: Annotated[
        bool, Field(description="true previews and returns a confirm_token.")
    ] = True,
    confirm_token: Annotated[
        str | None, Field(description="The confirm_token of the dry run; needed to cancel.")
    ] = None,
) -> Cancelled:
    """Cancel one booking by id in two steps: the dry run shows it and returns a confirm_token,
    the call with dry_run=false and that token cancels it. Use it only when the user asks to
    cancel; an unknown id is not_found. Example: {"booking_id": "bk_5f3a9c01"}."""
    with db() as conn:
        row = conn.execute(f"SELECT {COLUMNS} FROM b WHERE id = ?", (booking_id,)).fetchone()
        if row is None:
            raise ToolError(
                f"not_found: no booking is {booking_id}; find it with list_my_bookings."
            )
        if dry_run:
            token = secrets.token_urlsafe(16)
            conn.execute("INSERT INTO tokens VALUES (?, ?)", (token, booking_id))
            return Cancelled(booking=Booking(**row), cancelled=False, confirm_token=token)
        spent = conn.execute(
            "DELETE FROM tokens WHERE token = ? AND booking_id = ?", (confirm_token, booking_id)
        )
        if spent.rowcount != 1:
            raise ToolError("confirmation_invalid: call cancel_booking with dry_run=true first.")
        conn.execute("DELETE FROM b WHERE id = ?", (booking_id,))
    return Cancelled(booking=Booking(**row), cancelled=True)


@mcp.tool(annotations={"readOnlyHint": True})
def list_my_bookings(
    cursor: Annotated[
        str | None, Field(description="The next_cursor of the previous page; omit it at first.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="How many results a page holds.")] = 20,
) -> Bookings:
    """List the bookings you made, soonest first, a page at a time. Use it to find a booking's
    id; with no bookings the page is empty. Example: {"limit": 20}."""
    if cursor is not None and not cursor.isdigit():
        raise ToolError("invalid_cursor: call list_my_bookings again without cursor.")
    offset = int(cursor or 0)
    query = f"SELECT {COLUMNS} FROM b WHERE who = ? ORDER BY day, start, id LIMIT ? OFFSET ?"
    rows = db().execute(query, (me(), limit + 1, offset)).fetchall()
    more = str(offset + limit) if len(rows) > limit else None
    return Bookings(results=[Booking(**row) for row in rows[:limit]], next_cursor=more)


if __name__ == "__main__":
    mcp.run()
