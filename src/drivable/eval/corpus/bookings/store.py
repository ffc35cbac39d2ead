"""The drivable server's bookings, kept in its effect store so a booking and its receipt commit together.

Receipts outlive a process, so the rows they refer to must live as long (docs/settings.md): the
bookings table sits in the store's own database, loaded once from the generated data, and every
write goes through the call's effect transaction. Rooms never change; they stay in `data`.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from drivable.effects import SqlEffectStore, Transaction
from drivable.eval.corpus.bookings.data import BOOKINGS, Booking

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS bookings (booking_id TEXT PRIMARY KEY, number INTEGER NOT NULL, "
    "room_id TEXT NOT NULL, day TEXT NOT NULL, start_at TEXT NOT NULL, end_at TEXT NOT NULL, "
    "title TEXT NOT NULL, organiser_email TEXT NOT NULL, status TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS bookings_by_day ON bookings (day, room_id)",
    "CREATE INDEX IF NOT EXISTS bookings_by_mailbox ON bookings (lower(organiser_email), day)",
)
COLUMNS = "booking_id, room_id, day, start_at, end_at, title, organiser_email, status"
Busy = dict[str, list[tuple[str, str]]]  # room_id -> its confirmed (start, end) on one day


def _booking(row: tuple[Any, ...]) -> Booking:
    booking_id, room_id, day, start, end, title, organiser, status = row
    return Booking(
        str(booking_id),
        str(room_id),
        str(day),
        str(start),
        str(end),
        str(title),
        str(organiser),
        str(status),
    )


class Bookings:
    """The bookings table on an effect store, created and loaded from `data` on first use."""

    def __init__(self, store: SqlEffectStore) -> None:
        self.store = store
        self._ready = False  # loaded and committed
        self._lock = anyio.Lock()

    async def _load(self, tx: Transaction) -> None:
        for statement in SCHEMA:
            await tx.execute(statement)
        if (await tx.execute("SELECT COUNT(*) FROM bookings")).first() == (0,):
            for b in BOOKINGS:
                await tx.execute(
                    "INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        b.booking_id,
                        int(b.booking_id.removeprefix("bk_")),
                        b.room_id,
                        b.day,
                        b.start,
                        b.end,
                        b.title,
                        b.organiser_email,
                        b.status,
                    ),
                )

    @asynccontextmanager
    async def using(self, transaction: Transaction | None) -> AsyncIterator[Transaction]:
        """The call's effect transaction when it has one, else one of our own; the table is
        created and loaded on first use, in that same transaction (a second one would wait on
        the effect's write lock)."""
        if transaction is not None:
            if not self._ready:
                await self._load(transaction)  # committed with the effect, or loaded again
            yield transaction
            return
        async with self.store.transaction() as tx:
            if not self._ready:
                async with self._lock:
                    await self._load(tx)
            yield tx
        self._ready = True

    async def busy(self, tx: Transaction, day: datetime.date, room_id: str | None = None) -> Busy:
        sql = (
            "SELECT room_id, start_at, end_at FROM bookings WHERE day = ? AND status = 'confirmed'"
        )
        params: tuple[Any, ...] = (day.isoformat(),)
        if room_id is not None:
            sql += " AND room_id = ?"
            params += (room_id,)
        out: Busy = defaultdict(list)
        for room, start, end in (await tx.execute(sql, params)).rows:
            out[str(room)].append((str(start), str(end)))
        return out

    async def get(self, tx: Transaction, booking_id: str) -> Booking | None:
        row = (
            await tx.execute(f"SELECT {COLUMNS} FROM bookings WHERE booking_id = ?", (booking_id,))
        ).first()
        return _booking(row) if row is not None else None

    async def of_organiser(
        self,
        tx: Transaction,
        email: str,
        first: datetime.date,
        last: datetime.date | None,
        with_cancelled: bool,
        offset: int,
        limit: int,
    ) -> tuple[list[Booking], bool]:
        """One page of an organiser's bookings from `first` (to `last`), earliest first; and
        whether more follow."""
        # A mailbox is one whatever the case of its address (the organisation's mail server reads
        # it so); the email kind keeps the local part as written, so the match ignores case.
        sql = f"SELECT {COLUMNS} FROM bookings WHERE lower(organiser_email) = lower(?) AND day >= ?"
        params: tuple[Any, ...] = (email, first.isoformat())
        if last is not None:
            sql += " AND day <= ?"
            params += (last.isoformat(),)
        if not with_cancelled:
            sql += " AND status = 'confirmed'"
        sql += " ORDER BY day, start_at, number LIMIT ? OFFSET ?"
        rows = (await tx.execute(sql, (*params, limit + 1, offset))).rows
        return [_booking(r) for r in rows[:limit]], len(rows) > limit

    async def add(
        self,
        tx: Transaction,
        *,
        room_id: str,
        day: datetime.date,
        start: str,
        end: str,
        title: str,
        organiser_email: str,
    ) -> Booking:
        got = (await tx.execute("SELECT MAX(number) FROM bookings")).first()
        number = int(got[0]) + 1 if got is not None and got[0] is not None else 1001
        booking = Booking(
            f"bk_{number}",
            room_id,
            day.isoformat(),
            start,
            end,
            title,
            organiser_email,
            "confirmed",
        )
        await tx.execute(
            "INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                booking.booking_id,
                number,
                room_id,
                booking.day,
                start,
                end,
                title,
                organiser_email,
                booking.status,
            ),
        )
        return booking

    async def cancel(self, tx: Transaction, booking_id: str) -> None:
        await tx.execute(
            "UPDATE bookings SET status = 'cancelled' WHERE booking_id = ?", (booking_id,)
        )
