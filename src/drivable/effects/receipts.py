"""The steps of a claim, synchronous SQL over one connection (the store runs them in a worker
thread): insert a claim, look at a key, take an abandoned claim over, open the effect transaction,
finish it into a receipt, release it, purge what expired. `SqlEffectStore` (store.py) drives them;
the state machine they make is described there."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, Final

from drivable.effects.backend import _SCOPE, Backend
from drivable.effects.canonical import differing_fields
from drivable.effects.claims import ReceiptView, _Again, _Claimed, _Scope, _Step, _Wait
from drivable.effects.outcomes import Mismatch, Replay, UnavailableReason, Undone

log = logging.getLogger("drivable.effects")


class ClaimSteps:
    """The claim's statements over a :class:`Backend`, with the store's clock."""

    def __init__(self, backend: Backend, clock: Callable[[], float]) -> None:
        self.backend = backend
        self._clock = clock

    def execute(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.backend.execute(conn, sql, params)

    def insert_claim(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        owner: str,
        now: float,
        window_s: float,
        lease_s: float,
    ) -> bool:
        cur = self.execute(
            conn,
            "INSERT INTO drivable_receipts (principal, tool, key, digest, arguments, state, "
            "owner, created_at, lease_until, expires_at) "
            "VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?) "
            "ON CONFLICT (principal, tool, key) DO NOTHING",
            (*scope.params(), digest, args_json, owner, now, now + lease_s, now + window_s),
        )
        return bool(cur.rowcount == 1)

    def claim_step(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        window_s: float,
        lease_s: float,
        owner: str,
    ) -> _Step:
        """One look at the key; when this call wins it, the effect transaction is open on
        ``conn`` on return (one worker-thread hop for the whole claim)."""
        step = self.claim_once(conn, scope, digest, args_json, window_s, lease_s, owner)
        if isinstance(step, _Claimed) and not self.open_effect(conn, scope, owner):
            return _Again()  # taken over between our insert and our lock: look again
        return step

    def claim_once(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        window_s: float,
        lease_s: float,
        owner: str,
    ) -> _Step:
        now = self._clock()
        # On PostgreSQL: one autocommit statement, committed without waiting for the flush (see
        # Backend.begin_claim). It never waits for a live effect transaction.
        if self.backend.insert_first and self.insert_claim(
            conn, scope, digest, args_json, owner, now, window_s, lease_s
        ):
            return _Claimed(recovered=False)
        row = self.execute(conn, _LOOK, scope.params()).fetchone()
        if row is not None:
            r_digest, r_args, state, result, lease_until, expires_at, recorded_at = row[:7]
            expired = expires_at <= now and (state == "done" or lease_until <= now)
            if not expired:
                if r_digest != digest:
                    fields = differing_fields(json.loads(r_args), json.loads(args_json))
                    return Mismatch(fields=tuple(fields) or ("arguments",))
                if state == "done":
                    return Replay(
                        result=json.loads(result),
                        recorded_at=float(recorded_at),
                        undone=_undone(row[7:]),
                    )
                if lease_until > now:
                    return _Wait(max(100, min(1000, int((lease_until - now) * 1000))))
                return self.take_over(conn, scope, owner, now, lease_s)
        elif not self.backend.insert_first:
            with self.backend.relaxed(conn):
                inserted = self.insert_claim(
                    conn, scope, digest, args_json, owner, now, window_s, lease_s
                )
            return _Claimed(recovered=False) if inserted else _Again()
        if row is None:
            return _Again()  # it went between our insert and our look
        # An expired receipt: replace it.
        self.backend.begin_claim(conn)
        try:
            gone = self.execute(
                conn,
                f"DELETE FROM drivable_receipts WHERE {_SCOPE} AND expires_at <= ? "
                "AND (state = 'done' OR lease_until <= ?)",
                (*scope.params(), now, now),
            ).rowcount
            if gone:  # what the expired receipt made is not the new call's
                self.execute(conn, f"DELETE FROM drivable_made WHERE {_SCOPE}", scope.params())
            inserted = self.insert_claim(
                conn, scope, digest, args_json, owner, now, window_s, lease_s
            )
            self.backend.commit(conn)
        except BaseException:
            self.rollback_quietly(conn)
            raise
        finally:
            self.backend.after_claim(conn)
        return _Claimed(recovered=False) if inserted else _Again()

    def take_over(self, conn: Any, scope: _Scope, owner: str, now: float, lease_s: float) -> _Step:
        try:
            with self.backend.short_lock_wait(conn):
                self.backend.begin_claim(conn)
        except Exception as exc:
            self.backend.after_claim(conn)
            if self.backend.classify(exc) is UnavailableReason.BUSY:
                return _Wait(1000)  # a live effect transaction holds the store
            raise
        try:
            row = self.execute(
                conn,
                f"SELECT state, lease_until FROM drivable_receipts WHERE {_SCOPE}"
                + self.backend.try_lock_row,
                scope.params(),
            ).fetchone()
            if row is None or row[0] != "running" or row[1] > now:
                # None: a live owner holds the row lock (or the row just went; the next look
                # tells). Either way, wait rather than spin.
                self.backend.rollback(conn)
                return _Wait(1000) if row is None or row[0] == "running" else _Again()
            self.execute(
                conn,
                f"UPDATE drivable_receipts SET owner = ?, lease_until = ? WHERE {_SCOPE}",
                (owner, now + lease_s, *scope.params()),
            )
            self.backend.commit(conn)
        except BaseException:
            self.rollback_quietly(conn)
            raise
        finally:
            self.backend.after_claim(conn)
        log.info("took over an abandoned claim (tool=%s)", scope.tool)
        return _Claimed(recovered=True)

    def open_effect(self, conn: Any, scope: _Scope, owner: str) -> bool:
        self.backend.begin_write(conn)
        try:
            row = self.execute(
                conn,
                f"SELECT owner, state FROM drivable_receipts WHERE {_SCOPE}"
                + self.backend.lock_row,
                scope.params(),
            ).fetchone()
        except BaseException:
            self.rollback_quietly(conn)
            raise
        if row is None or row[0] != owner or row[1] != "running":
            self.backend.rollback(conn)
            return False
        return True

    def finish(
        self,
        conn: Any,
        scope: _Scope,
        owner: str,
        result_json: str,
        window_s: float,
        made: tuple[str, str] | None = None,
    ) -> None:
        now = self._clock()
        done = self.execute(
            conn,
            "UPDATE drivable_receipts SET state = 'done', result = ?, recorded_at = ?, "
            f"expires_at = ? WHERE {_SCOPE} AND owner = ? AND state = 'running'",
            (result_json, now, now + window_s, *scope.params(), owner),
        ).rowcount
        if done != 1:  # impossible while we hold the row lock; refuse to commit a blind effect
            self.backend.rollback(conn)
            raise RuntimeError("lost the idempotency claim inside its own transaction")
        if made is not None:  # kept exactly as long as its receipt (purged together)
            self.execute(
                conn,
                "INSERT INTO drivable_made (principal, tool, key, kind, entity_id, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (*scope.params(), *made, now + window_s),
            )
        self.backend.commit(conn)

    def release_claim(self, conn: Any, scope: _Scope, owner: str) -> None:
        self.rollback_quietly(conn)
        self.execute(
            conn,
            f"DELETE FROM drivable_receipts WHERE {_SCOPE} AND owner = ? AND state = 'running'",
            (*scope.params(), owner),
        )

    def rollback_quietly(self, conn: Any) -> None:
        with suppress(Exception):
            self.backend.rollback(conn)

    def purge(self, conn: Any) -> int:
        now = self._clock()
        n = self.execute(
            conn,
            "DELETE FROM drivable_receipts WHERE expires_at <= ? "
            "AND (state = 'done' OR lease_until <= ?)",
            (now, now),
        ).rowcount
        n += self.execute(
            conn, "DELETE FROM drivable_token_uses WHERE expires_at <= ?", (now,)
        ).rowcount
        self.execute(conn, "DELETE FROM drivable_made WHERE expires_at <= ?", (now,))
        return int(n)

    def receipt(self, conn: Any, scope: _Scope) -> ReceiptView | None:
        row = self.execute(conn, _LOOK, scope.params()).fetchone()
        if row is None:
            return None
        return ReceiptView(
            state=row[2],
            digest=row[0],
            result=json.loads(row[3]) if row[3] is not None else None,
            expires_at=float(row[5]),
            undone=_undone(row[7:]),
        )


# The one lookup of a key: its receipt and, when what it made was undone since, by whom (an index
# probe of the same statement, so a replay costs no second round trip).
_LOOK: Final = (
    "SELECT r.digest, r.arguments, r.state, r.result, r.lease_until, r.expires_at, "
    "r.recorded_at, m.kind, m.entity_id, m.undone_by, m.undone_at "
    "FROM drivable_receipts r LEFT JOIN drivable_made m ON m.principal = r.principal "
    "AND m.tool = r.tool AND m.key = r.key AND m.undone_at IS NOT NULL "
    "WHERE r.principal = ? AND r.tool = ? AND r.key = ?"
)


def _undone(columns: Sequence[Any]) -> Undone | None:
    kind, entity_id, by, at = columns
    if at is None:
        return None
    return Undone(kind=str(kind), entity_id=str(entity_id), by=str(by), at=float(at))
