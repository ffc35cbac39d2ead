"""What each bookings tool reads and returns: the input models (closed, `KindModel`) and the rows
and pages it answers with; days read through the date kind by the domain's clock (`data.TODAY`)."""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import Field

from drivable.contract import (
    Output,
)
from drivable.contract.durable import CONFIRM_TOKEN, DRY_RUN, ConfirmToken
from drivable.contract.paging import PageInfo
from drivable.eval.corpus.bookings.data import TODAY
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
