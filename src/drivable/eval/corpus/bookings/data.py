"""The bookings world: forty meeting rooms in four buildings and six weeks of bookings around today.

Generated from one seeded `random.Random`, so both servers (the drivable one and its naive twin)
serve the same rooms and the same bookings, and workflows can name them. The domain has its own
clock, `TODAY` (a Monday): "tomorrow", "in the past" and "my upcoming bookings" mean the same on
every run. Times are half-hour slots within the opening hours, 08:00 to 19:00, Monday to Friday,
written "HH:MM" (zero-padded, so they compare as strings).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from drivable.kinds.text_folding import words

SEED = 2026_1005
TODAY = datetime.date(2026, 10, 5)  # a Monday
FIRST_DAY = datetime.date(2026, 9, 21)
LAST_DAY = datetime.date(2026, 10, 30)

OPENS, CLOSES = "08:00", "19:00"
SLOTS: tuple[str, ...] = tuple(f"{8 + i // 2:02d}:{30 * (i % 2):02d}" for i in range(23))
STARTS: tuple[str, ...] = SLOTS[:-1]  # a booking starts at 08:00 .. 18:30
ENDS: tuple[str, ...] = SLOTS[1:]  # and ends at 08:30 .. 19:00

BUILDINGS = ("Harbour House", "Mill Yard", "Station Court", "Foundry")
EQUIPMENT = ("screen", "whiteboard", "video")

_NAMES = {
    "Harbour House": (
        "Anchor", "Beacon", "Compass", "Lighthouse", "Mariner",
        "Pier", "Quay", "Reef", "Tide", "Wharf",
    ),
    "Mill Yard": (
        "Alder", "Birch", "Cedar", "Elm", "Hazel",
        "Juniper", "Larch", "Maple", "Rowan", "Willow",
    ),
    "Station Court": (
        "Agate", "Basalt", "Cobalt", "Flint", "Granite",
        "Jasper", "Marble", "Onyx", "Quartz", "Slate",
    ),
    "Foundry": (
        "Anvil", "Bellows", "Bronze", "Copper", "Crucible",
        "Forge", "Hammer", "Iron", "Kiln", "Tin",
    ),
}  # fmt: skip
_SEATS = (2, 4, 4, 6, 6, 8, 8, 10, 12, 12, 16, 20, 24, 30)

_FIRST = (
    "alex", "priya", "tomas", "maria", "li", "sam", "hana", "jonas", "eva", "omar",
    "lucy", "pavel", "ines", "david", "nora", "felix", "zoe", "ravi", "anna", "ben",
    "chloe", "dan", "elif", "finn", "grace", "hugo", "ida", "jan", "kofi", "lena",
)  # fmt: skip
_LAST = (
    "novak", "shah", "dvorak", "garcia", "wei", "okafor", "suzuki", "weber", "kral", "haddad",
    "brown", "horak", "moreau", "cohen", "jensen", "bauer", "martin", "iyer", "berg", "costa",
    "dubois", "evans", "fischer", "gomez", "hall", "ivanova", "jones", "kim", "lopez", "meyer",
)  # fmt: skip
# sixty people book rooms, each a few times a week
ORGANISERS: tuple[str, ...] = tuple(
    f"{first}.{_LAST[(i + shift) % len(_LAST)]}@example.com"
    for shift in (0, 11)
    for i, first in enumerate(_FIRST)
)
_TITLES = (
    "Design review", "Sprint planning", "1:1", "Interview", "Budget sync", "Standup",
    "Retrospective", "Customer call", "Hiring panel", "Roadmap", "Training", "Workshop",
    "All hands prep", "Vendor call", "Onboarding", "Architecture review",
)  # fmt: skip


@dataclass(frozen=True)
class Room:
    room_id: str
    name: str
    building: str
    floor: int
    seats: int
    equipment: tuple[str, ...]


@dataclass(frozen=True)
class Booking:
    booking_id: str
    room_id: str
    day: str  # ISO, YYYY-MM-DD
    start: str
    end: str
    title: str
    organiser_email: str
    status: str  # "confirmed" or "cancelled"


def _rooms(rng: random.Random) -> tuple[Room, ...]:
    rooms: list[Room] = []
    for building in BUILDINGS:
        for name in _NAMES[building]:
            seats = rng.choice(_SEATS)
            video = seats >= 6 and rng.random() < 0.5
            screen = video or rng.random() < 0.6
            whiteboard = rng.random() < 0.6
            kit = tuple(
                e for e, has in zip(EQUIPMENT, (screen, whiteboard, video), strict=True) if has
            )
            rooms.append(
                Room(f"room_{len(rooms) + 1}", name, building, rng.randrange(0, 5), seats, kit)
            )
    return tuple(rooms)


def weekdays(first: datetime.date, last: datetime.date) -> list[datetime.date]:
    span = (last - first).days + 1
    days = (first + datetime.timedelta(days=i) for i in range(span))
    return [d for d in days if is_open(d)]


def _bookings(rng: random.Random, rooms: Sequence[Room]) -> tuple[Booking, ...]:
    made: list[tuple[str, str, str, str, str, str]] = []
    for day in weekdays(FIRST_DAY, LAST_DAY):
        for room in rooms:
            taken: list[tuple[str, str]] = []
            for _ in range(rng.choices((0, 1, 2, 3, 4), weights=(2, 3, 3, 2, 1))[0]):
                length = rng.choice((1, 2, 2, 2, 3, 4))
                first = rng.randrange(0, len(SLOTS) - length)
                start, end = SLOTS[first], SLOTS[first + length]
                if any(overlaps(start, end, s, e) for s, e in taken):
                    continue
                taken.append((start, end))
                organiser = rng.choice(ORGANISERS)
                made.append(
                    (room.room_id, day.isoformat(), start, end, rng.choice(_TITLES), organiser)
                )
    rng.shuffle(made)  # ids count up in the order the bookings were made, not by day
    return tuple(
        Booking(
            f"bk_{1001 + i}",
            room_id,
            day,
            start,
            end,
            title,
            organiser,
            "cancelled" if rng.random() < 0.05 else "confirmed",
        )
        for i, (room_id, day, start, end, title, organiser) in enumerate(made)
    )


# -- what both servers compute the same way ------------------------------------------------------


def is_open(day: datetime.date) -> bool:
    """Rooms can be booked Monday to Friday."""
    return day.weekday() < 5


def overlaps(start: str, end: str, other_start: str, other_end: str) -> bool:
    return start < other_end and other_start < end


def free_times(busy: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The free ranges of an open day between its busy ranges, earliest first."""
    free: list[tuple[str, str]] = []
    at = OPENS
    for start, end in sorted(busy):
        if start > at:
            free.append((at, start))
        at = max(at, end)
    if at < CLOSES:
        free.append((at, CLOSES))
    return free


def is_free(busy: Iterable[tuple[str, str]], start: str, end: str) -> bool:
    return not any(overlaps(start, end, s, e) for s, e in busy)


def names_room(room: Room, query: str) -> bool:
    """The query names the room: one of its words is the room's name ("the Juniper room")."""
    return words(room.name) in words(query).split()


def fits(
    room: Room,
    *,
    building: str | None = None,
    min_seats: int | None = None,
    equipment: Sequence[str] = (),
    query: str | None = None,
) -> bool:
    """The room passes every filter given (a filter not given passes every room)."""
    return (
        (building is None or room.building == building)
        and (min_seats is None or room.seats >= min_seats)
        and all(e in room.equipment for e in equipment)
        and (query is None or names_room(room, query))
    )


def in_order(rooms: Iterable[Room]) -> list[Room]:
    """Smallest room first (the one that fits without wasting seats), then by id."""
    return sorted(rooms, key=lambda r: (r.seats, int(r.room_id.removeprefix("room_"))))


_RNG = random.Random(SEED)
ROOMS: tuple[Room, ...] = _rooms(_RNG)
ROOM_BY_ID: dict[str, Room] = {r.room_id: r for r in ROOMS}
BOOKINGS: tuple[Booking, ...] = _bookings(_RNG, ROOMS)
FIRST_NEW_ID = 1001 + len(BOOKINGS)  # the id the next booking gets (bk_<n>)
