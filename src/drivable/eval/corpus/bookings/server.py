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
import secrets
import shutil
import tempfile

from drivable import settings
from drivable.contract import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Contract,
    Issue,
    Repair,
    Summary,
    ToolError,
)
from drivable.contract.paging import Pager
from drivable.effects import open_store
from drivable.eval.corpus.bookings import data
from drivable.eval.corpus.bookings.data import ROOM_BY_ID, TODAY
from drivable.eval.corpus.bookings.domain import (
    FILTERS,
    booking_row,
    closed_day,
    facet,
    matching,
    range_issue,
    room_row,
    slot,
    the_range,
    unknown_room,
    weekday_name,
)
from drivable.eval.corpus.bookings.models import (
    Booked,
    BookInput,
    CancelInput,
    Cancelled,
    GetRoomInput,
    ListInput,
    MyBookings,
    RoomDay,
    Rooms,
    SearchInput,
    TimeRange,
)
from drivable.eval.corpus.bookings.store import Bookings, Busy

NAME = "bookings"
VERSION = "1.0.0"


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
