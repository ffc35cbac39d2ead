"""The bookings server on drivable: search rooms, read a room's day, book, list my bookings, cancel.

Written from the README, docs/runtime.md, docs/kinds.md and docs/effects.md with the public author
API only. Times read through the time kind ("9:00", "9am", "14h30"); that a booking takes whole
half hours within the opening hours is this domain's own rule, checked by the handlers. Days read
through the date kind with the domain's clock (`data.TODAY`), so "tomorrow" is a day; organisers
through the email kind.

`make_contract(bookings)` builds the contract on a `Bookings` table; `serve()` opens the store
DRIVABLE_BOOKINGS_STORE names, else a scratch one for this process alone: a fresh process starts
from the generated bookings, as its naive twin does.
"""

from __future__ import annotations

import atexit
import datetime
import secrets
import shutil
import tempfile
from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from drivable import settings
from drivable.contract import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Contract,
    Issue,
    Output,
    Repair,
    Summary,
    ToolError,
)
from drivable.contract.durable import CONFIRM_TOKEN, DRY_RUN, ConfirmToken
from drivable.contract.paging import PageInfo, Pager
from drivable.contract.relax import Filter
from drivable.effects import open_store
from drivable.eval.corpus.bookings import data
from drivable.eval.corpus.bookings.data import ROOM_BY_ID, ROOMS, TODAY, Booking, Room
from drivable.eval.corpus.bookings.store import Bookings, Busy
from drivable.kinds import Kind, KindModel

Building = Literal["Harbour House", "Mill Yard", "Station Court", "Foundry"]
Equipment = Literal["screen", "whiteboard", "video"]


def today() -> datetime.date:
    return TODAY


Day = Annotated[datetime.date, Kind("date", clock=today)]
DayFrom = Annotated[datetime.date, Kind("date", clock=today, bound="from")]
DayTo = Annotated[datetime.date, Kind("date", clock=today, bound="to")]
# IdOf("room_", lookup=...) spelled out: mypy takes no call as a type alias
RoomId = Annotated[str, Kind("identifier", prefix="room_", lookup=("search_rooms", "query"))]
BookingId = Annotated[str, Kind("identifier", prefix="bk_")]

NAME = "bookings"
VERSION = "1.0.0"


# -- inputs --------------------------------------------------------------------------------------


class SearchInput(KindModel):
    building: Building | None = Field(None, description="Only rooms in this building.")
    min_seats: int | None = Field(
        None, ge=1, description="Only rooms with at least this many seats."
    )
    equipment: list[Equipment] | None = Field(
        None, description="Only rooms that have every item listed."
    )
    query: str | None = Field(
        None, max_length=100, description="A room's name, as the user says it."
    )
    day: Day | None = Field(
        None,
        description="YYYY-MM-DD. With start and end: only rooms free for that whole time. "
        "Alone: every room with its free times that day.",
    )
    start: datetime.time | None = Field(
        None, description="HH:MM on the 24-hour clock, on the half hour; needs day."
    )
    end: datetime.time | None = Field(
        None, description="HH:MM on the 24-hour clock, on the half hour, after start; needs day."
    )
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first."
    )
    limit: int = Field(10, ge=1, le=40, description="Rooms per page.")


class GetRoomInput(KindModel):
    room_id: RoomId = Field(description="The room_id search_rooms returned.")
    day: Day | None = Field(None, description="YYYY-MM-DD; today when omitted.")


class BookInput(KindModel):
    room_id: RoomId = Field(description="The room_id search_rooms returned.")
    day: Day = Field(description="YYYY-MM-DD, a weekday from today on.")
    start: datetime.time = Field(
        description="HH:MM on the 24-hour clock, on the half hour, 08:00 to 18:30."
    )
    end: datetime.time = Field(
        description="HH:MM on the 24-hour clock, on the half hour, after start, at the latest 19:00."
    )
    title: str = Field(min_length=1, max_length=80, description="What the meeting is.")
    organiser_email: str = Field(description="The email of the person who books.")


class ListInput(KindModel):
    organiser_email: str = Field(description="Whose bookings: the organiser's email.")
    date_from: DayFrom | None = Field(None, description="First day, YYYY-MM-DD; today if omitted.")
    date_to: DayTo | None = Field(None, description="Last day, YYYY-MM-DD, inclusive.")
    include_cancelled: bool = Field(False, description="Also list cancelled bookings.")
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first."
    )
    limit: int = Field(10, ge=1, le=50, description="Bookings per page.")


class CancelInput(KindModel):
    booking_id: BookingId = Field(description="The booking_id list_my_bookings returned.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


# -- outputs -------------------------------------------------------------------------------------


class TimeRange(Output):
    start: str
    end: str


class RoomRow(Output):
    room_id: str
    name: str
    building: str
    floor: int
    seats: int
    equipment: list[str]
    free_times: list[TimeRange] | None = None  # with a day


class Rooms(PageInfo):
    results: list[RoomRow]


class RoomDay(Output):
    room: RoomRow
    day: str
    open: bool
    free_times: list[TimeRange]
    busy: list[TimeRange]


class BookingRow(Output):
    booking_id: str
    room_id: str
    room_name: str
    building: str
    day: str
    start: str
    end: str
    title: str
    organiser_email: str
    status: Literal["confirmed", "cancelled"]


class Booked(Output):
    booking: BookingRow


class MyBookings(PageInfo):
    results: list[BookingRow]


class Cancelled(Output):
    booking: BookingRow
    cancelled: bool
    summary: str


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


# -- the contract --------------------------------------------------------------------------------


def make_contract(bookings: Bookings, secret: bytes) -> Contract:
    """The bookings contract on a bookings table in an effect store."""
    contract = Contract(
        NAME,
        version=VERSION,
        title="Meeting rooms",
        summary=Summary(
            "Meeting rooms in four buildings (Harbour House, Mill Yard, Station Court, Foundry): "
            "find a free room, see a room's free times on a day, book it, list and cancel "
            "bookings. Times are half hours from 08:00 to 19:00, Monday to Friday. Call "
            "search_rooms first.",
            does=[
                "search rooms by building, seats, equipment, name and free time",
                "show a room's free and busy times on a day",
                "book a room for a day, start and end, once per idempotency_key",
                "list an organiser's bookings",
                "cancel a booking, after a dry run",
            ],
            does_not=[
                "book outside the opening hours or on weekends",
                "invite attendees or send calendar invitations",
                "change a booking (cancel it and book again)",
            ],
        ),
    )
    contract.use_effects(bookings.store, secret)
    pager = Pager(secret=secret)

    @contract.tool(
        name="search_rooms",
        title="Search rooms",
        effects=READ_ONLY,
        errors=["invalid_cursor", "cursor_expired"],
        description=(
            "Find meeting rooms by building, seats, equipment or name, smallest first, a page "
            "at a time. Give a day with start and end to get only the rooms free for that whole "
            "time; a day alone lists each room's free times. Use it first, for the room_id the "
            "other tools take. An empty page under filters names the search to make next. "
            'Example: {"min_seats": "<number of people>", "equipment": ["<equipment>"], "day": "<YYYY-MM-DD>", '
            '"start": "<HH:MM>", "end": "<HH:MM>"}.'
        ),
    )
    async def search_rooms(args: SearchInput, call: Call) -> Rooms:
        span = the_range(args)
        if span is not None and args.day is None:
            raise ToolError(
                "invalid_arguments",
                "start and end say when, but no day was given.",
                hint="Call search_rooms again with the day too (YYYY-MM-DD), or without start "
                "and end.",
                issues=[Issue("day", "missing_property", "day is needed with start and end.")],
            )
        if span is not None and span[1] <= span[0]:
            raise range_issue(*span, "search_rooms")
        if args.day is not None and not data.is_open(args.day):
            raise closed_day(args.day, "search_rooms")
        busy: Busy | None = None
        if args.day is not None:
            async with bookings.using(None) as tx:
                busy = await bookings.busy(tx, args.day)
        sent = {f.name: getattr(args, f.name) for f in FILTERS if getattr(args, f.name)}
        rooms = matching(args, busy, sent)
        start = pager.offset(call, args)
        shown = rooms[start : start + args.limit]
        page = pager.page(call, args, start, len(shown), len(rooms) > start + args.limit)
        if not rooms and start == 0:
            await call.relax(
                args,
                FILTERS,
                count=lambda kept: len(matching(args, busy, kept)),
                facet=lambda name, kept: facet(matching(args, busy, kept), name).items(),
                noun="room",
            )
        return Rooms(
            results=[
                room_row(r, None if busy is None else data.free_times(busy.get(r.room_id, ())))
                for r in shown
            ],
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(
        name="get_room",
        title="Get a room",
        effects=READ_ONLY,
        errors=["not_found"],
        description=(
            "Read one room by the room_id search_rooms returned, with its free and busy times on "
            "a day (today when no day is given). Use it to see when a room is free before "
            'booking it. Example: {"room_id": "<room_id of a search_rooms result>", "day": '
            '"<YYYY-MM-DD>"}.'
        ),
    )
    async def get_room(args: GetRoomInput, call: Call) -> RoomDay:
        room = ROOM_BY_ID.get(args.room_id)
        if room is None:
            raise unknown_room(args.room_id)
        day = args.day or TODAY
        if args.day is None:
            call.note(f"day: none given; showing today, {TODAY.isoformat()}.")
        if not data.is_open(day):
            call.note(f"{day.isoformat()} is a {weekday_name(day)}; rooms open Monday to Friday.")
            return RoomDay(
                room=room_row(room), day=day.isoformat(), open=False, free_times=[], busy=[]
            )
        async with bookings.using(None) as tx:
            busy = (await bookings.busy(tx, day, room.room_id)).get(room.room_id, [])
        return RoomDay(
            room=room_row(room),
            day=day.isoformat(),
            open=True,
            free_times=[TimeRange(start=s, end=e) for s, e in data.free_times(busy)],
            busy=[TimeRange(start=s, end=e) for s, e in sorted(busy)],
        )

    @contract.tool(
        name="create_booking",
        title="Book a room",
        effects=CREATE,
        errors=["not_found", "state_conflict"],
        description=(
            "Book a room for a day from start to end (half hours, 08:00 to 19:00, a weekday "
            "from today on) and return the booking with its booking_id. Use it once the user "
            "has chosen the room and the time. A time that overlaps another booking is an error "
            "naming the call that shows the room's free times; a day in the past or on a weekend "
            'is an error too. Example: {"room_id": "<room_id '
            'of a search_rooms result>", "day": "<YYYY-MM-DD>", "start": "<HH:MM>", "end": '
            '"<HH:MM>", "title": "<what the meeting is>", "organiser_email": "<email>", '
            '"idempotency_key": "<a key you make up>"}.'
        ),
    )
    async def create_booking(args: BookInput, call: Call) -> Booked:
        room = ROOM_BY_ID.get(args.room_id)
        if room is None:
            raise unknown_room(args.room_id)
        if args.day < TODAY:
            raise ToolError(
                "invalid_arguments",
                f"{args.day.isoformat()} is in the past (today is {TODAY.isoformat()}).",
                hint="Ask the user which day they meant, then call create_booking with a day from "
                f"{TODAY.isoformat()} on.",
                issues=[
                    Issue(
                        "day",
                        "date_out_of_range",
                        f"Rooms are booked from today, {TODAY.isoformat()}, on.",
                        args.day.isoformat(),
                        None,
                    )
                ],
            )
        if not data.is_open(args.day):
            raise closed_day(args.day, "create_booking")
        day = args.day.isoformat()
        see = Repair("get_room", {"room_id": room.room_id, "day": day}, "see_free_times")
        start = slot(args.start, "start", "create_booking", see)
        end = slot(args.end, "end", "create_booking", see)
        if end <= start:
            raise range_issue(start, end, "create_booking")
        async with bookings.using(call.transaction) as tx:
            busy = (await bookings.busy(tx, args.day, room.room_id)).get(room.room_id, [])
            clash = [(s, e) for s, e in busy if data.overlaps(start, end, s, e)]
            if clash:
                taken = ", ".join(f"{s}-{e}" for s, e in sorted(clash))
                raise ToolError(
                    "state_conflict",
                    f"{room.name} ({room.room_id}) is not free {start}-{end} on {day}: "
                    f"it is booked {taken}.",
                    hint=f"Use get_room with room_id {room.room_id} and day {day} to see its free "
                    "times, then book a free time; or search_rooms with the day, start and end "
                    "for another room.",
                    repair=see,
                )
            booking = await bookings.add(
                tx,
                room_id=room.room_id,
                day=args.day,
                start=start,
                end=end,
                title=args.title,
                organiser_email=args.organiser_email,
            )
            tx.made("booking", booking.booking_id)  # a cancel of it is said on a replay
        return Booked(booking=booking_row(booking))

    @contract.tool(
        name="list_my_bookings",
        title="List my bookings",
        effects=READ_ONLY,
        errors=["invalid_cursor", "cursor_expired"],
        description=(
            "List the bookings an organiser made, from today on (or from date_from), earliest "
            "first, a page at a time. Use it to find a booking_id to cancel; no booking in the "
            "range is an empty page, not an error. Example: "
            '{"organiser_email": "<the user\'s email>"}.'
        ),
    )
    async def list_my_bookings(args: ListInput, call: Call) -> MyBookings:
        first = args.date_from or TODAY
        start = pager.offset(call, args)
        async with bookings.using(None) as tx:
            rows, more = await bookings.of_organiser(
                tx,
                args.organiser_email,
                first,
                args.date_to,
                args.include_cancelled,
                start,
                args.limit,
            )
        page = pager.page(call, args, start, len(rows), more)
        return MyBookings(
            results=[booking_row(b) for b in rows],
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(
        name="cancel_booking",
        title="Cancel a booking",
        effects=DELETE,
        errors=["not_found", "state_conflict"],
        description=(
            "Cancel one booking by the booking_id list_my_bookings or create_booking returned: the "
            "dry run shows the booking, the confirmed call frees the room. Use it only when the "
            'user asks to cancel. Example: {"booking_id": "<booking_id of a list_my_bookings '
            'result>"}.'
        ),
    )
    async def cancel_booking(args: CancelInput, call: Call) -> Cancelled:
        async with bookings.using(call.transaction) as tx:
            booking = await bookings.get(tx, args.booking_id)
            if booking is None:
                raise ToolError(
                    "not_found",
                    f"No booking has the id {args.booking_id}.",
                    hint="Call list_my_bookings with the organiser's email to find the booking_id.",
                )
            row = booking_row(booking)
            what = (
                f"'{booking.title}' in {row.room_name} ({booking.room_id}), {booking.day} "
                f"{booking.start}-{booking.end}"
            )
            if booking.status == "cancelled":
                raise ToolError(
                    "state_conflict",
                    f"Booking {booking.booking_id} ({what}) is already cancelled.",
                    hint="Nothing to do; tell the user. list_my_bookings shows the bookings "
                    "still active.",
                )
            if booking.day < TODAY.isoformat():
                raise ToolError(
                    "state_conflict",
                    f"Booking {booking.booking_id} ({what}) is in the past and cannot be "
                    "cancelled.",
                    hint="Tell the user; list_my_bookings lists the bookings from today on.",
                )
            if not args.dry_run:
                await bookings.cancel(tx, booking.booking_id)
                await tx.undo("booking", booking.booking_id)  # create_booking's replay says so
                row = row.model_copy(update={"status": "cancelled"})
        verb = "Would cancel" if args.dry_run else "Cancelled"
        return Cancelled(booking=row, cancelled=not args.dry_run, summary=f"{verb} {what}.")

    return contract


def _scratch_store() -> str:
    """A store for this process alone, removed when it ends."""
    folder = tempfile.mkdtemp(prefix="drivable-bookings-")
    atexit.register(shutil.rmtree, folder, True)
    return f"sqlite:///{folder}/bookings.sqlite"


def serve() -> Contract:
    """The contract on the store DRIVABLE_BOOKINGS_STORE names, else on a fresh scratch store."""
    url = settings.BOOKINGS_STORE.get() or _scratch_store()
    # every process sharing a store must sign with one secret: DRIVABLE_SECRET
    secret = settings.SECRET.get() or secrets.token_bytes(32)
    return make_contract(Bookings(open_store(url)), secret)
