"""Room bookings on drivable: search free rooms, book one, cancel in two steps, list my bookings.

    drivable serve examples/bookings_drivable.py:contract [--http --workers 2 --store sqlite:///s.db]

The bookings live in BOOKINGS_DB (default bookings.sqlite). bookings_fastmcp.py is the same server
on FastMCP, with the same rooms and SQL; docs/runtime.md counts the lines of both.
"""

import datetime as dt
import os
import sqlite3
from typing import Annotated

from pydantic import Field

from drivable import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Code,
    ConfirmToken,
    Contract,
    DryRun,
    Id,
    IdempotencyKey,
    Output,
    Page,
    Paged,
    Recovery,
    Repair,
    Summary,
    ToolError,
)

contract = Contract(
    "bookings",
    version="1.0.0",
    summary=Summary(
        "Book meeting rooms: find a room free on a day, book it, list and cancel your bookings.",
        does=["search rooms free at a time", "book a room", "cancel a booking", "list my bookings"],
        does_not=["change a booking (cancel it and book again)", "invite anyone"],
    ),
    domain_codes=[Code("room_taken", Recovery.REREAD_STATE, "The room is booked at that time.")],
)
ROOMS = {"rm_1": ("Harbour", 4), "rm_2": ("Mill", 8), "rm_3": ("Station", 12)}
COLUMNS = "id, room_id, day, start, end, title"


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(os.environ.get("BOOKINGS_DB", "bookings.sqlite"))
    conn.row_factory = sqlite3.Row
    conn.execute(f"CREATE TABLE IF NOT EXISTS b ({COLUMNS}, who)")
    return conn


def taken(room_id: str, day: dt.date, start: dt.time, end: dt.time) -> bool:
    query = "SELECT 1 FROM b WHERE room_id = ? AND day = ? AND start < ? AND end > ?"
    return bool(db().execute(query, (room_id, str(day), str(end), str(start))).fetchall())


class Room(Output):
    room_id: str
    name: str
    seats: int


class Booking(Output):
    id: str
    room_id: str
    day: dt.date
    start: dt.time
    end: dt.time
    title: str


class Cancelled(Output):
    booking: Booking
    cancelled: bool


@contract.tool(effects=READ_ONLY)
def search_rooms(
    day: dt.date,
    start: dt.time = dt.time(8),
    end: dt.time = dt.time(18),
    seats: Annotated[int, Field(ge=1, le=50, description="People to seat.")] = 1,
) -> Paged[Room]:
    """Find the rooms free on a day from start to end (08:00 to 18:00 unless given), smallest
    first. Use it before create_booking, for the room_id; no free room is an empty page.
    Example: {"day": "<YYYY-MM-DD>", "start": "<HH:MM>", "end": "<HH:MM>"}."""
    free = [r for r, (_, n) in ROOMS.items() if n >= seats and not taken(r, day, start, end)]
    return Paged(results=[Room(room_id=r, name=ROOMS[r][0], seats=ROOMS[r][1]) for r in free])


@contract.tool(effects=CREATE, errors=["not_found", "room_taken"])
def create_booking(
    room_id: Annotated[str, Id("rm_"), Field(description="The room_id search_rooms returned.")],
    day: dt.date,
    start: dt.time,
    end: dt.time,
    title: Annotated[str, Field(min_length=1, max_length=200, description="What it is for.")],
    idempotency_key: IdempotencyKey,
    call: Call,
) -> Booking:
    """Book a room on a day from start to end and return the booking with its id. Use it once
    the user chose the room and the time; a room booked then is an error naming the search.
    Example: {"room_id": "<room_id>", "day": "<YYYY-MM-DD>", "start": "<HH:MM>", "end":
    "<HH:MM>", "title": "<title>", "idempotency_key": "<a key you make up>"}."""
    if room_id not in ROOMS:
        raise ToolError("not_found", f"No room is {room_id}.", hint="Find one with search_rooms.")
    if taken(room_id, day, start, end):
        raise ToolError(
            "room_taken",
            f"{room_id} is booked on {day} between {start:%H:%M} and {end:%H:%M}.",
            hint="Choose a free room: call search_rooms (the call in `repair`).",
            repair=Repair(
                "search_rooms",
                {"day": str(day), "start": f"{start:%H:%M}", "end": f"{end:%H:%M}"},
                "find_a_free_room",
            ),
        )
    booking = Booking(
        id=f"bk_{os.urandom(4).hex()}", room_id=room_id, day=day, start=start, end=end, title=title
    )
    with db() as conn:
        row = (*booking.model_dump(mode="json").values(), call.principal.id)
        conn.execute("INSERT INTO b VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    call.transaction.made("booking", booking.id)  # a retry after a cancel then says so
    return booking


@contract.tool(effects=DELETE, errors=["not_found"])
async def cancel_booking(
    booking_id: Annotated[str, Id("bk_"), Field(description="The id list_my_bookings returned.")],
    dry_run: DryRun = False,
    confirm_token: ConfirmToken = None,
    *,
    call: Call,
) -> Cancelled:
    """Cancel one booking by id: the dry run shows it, the confirmed call cancels it. Use it only
    when the user asks to cancel; an unknown id is not_found. Example: {"booking_id":
    "<booking_id>"}."""
    with db() as conn:
        row = conn.execute(f"SELECT {COLUMNS} FROM b WHERE id = ?", (booking_id,)).fetchone()
        if row is None:
            raise ToolError(
                "not_found", f"No booking is {booking_id}.", hint="Find it with list_my_bookings."
            )
        if not dry_run:
            conn.execute("DELETE FROM b WHERE id = ?", (booking_id,))
            await call.transaction.undo("booking", booking_id)
    return Cancelled(booking=Booking(**row), cancelled=not dry_run)


@contract.tool(effects=READ_ONLY)
def list_my_bookings(page: Page, call: Call) -> Paged[Booking]:
    """List the bookings you made, soonest first, a page at a time. Use it to find a booking's
    id; with no bookings the page is empty. Example: {"limit": "<page size>"}."""
    query = f"SELECT {COLUMNS} FROM b WHERE who = ? ORDER BY day, start, id LIMIT ? OFFSET ?"
    rows = db().execute(query, (call.principal.id, page.fetch, page.offset)).fetchall()
    return Paged(results=[Booking(**row) for row in rows])
