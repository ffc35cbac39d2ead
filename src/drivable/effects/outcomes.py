"""Typed outcomes of the effects layer.

Nothing here is an error envelope: the runtime turns these facts into its envelope. Every field is
safe to show a client: no SQL, no driver text, no paths, no argument values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal


class UnavailableReason(StrEnum):
    UNREACHABLE = "unreachable"  # cannot connect / connection lost
    BUSY = "busy"  # locked or overloaded; retrying soon is expected to work
    READ_ONLY = "read_only"  # the store refuses writes (read-only file, replica, ...)
    FULL = "full"  # disk or quota full
    FAILED = "failed"  # any other store-side failure


_UNAVAILABLE_MESSAGES: dict[UnavailableReason, str] = {
    UnavailableReason.UNREACHABLE: "The effect store cannot be reached right now.",
    UnavailableReason.BUSY: "The effect store is busy right now.",
    UnavailableReason.READ_ONLY: "The effect store does not accept writes right now.",
    UnavailableReason.FULL: "The effect store has no space left right now.",
    UnavailableReason.FAILED: "The effect store failed to answer.",
}


@dataclass(frozen=True, slots=True)
class StoreUnavailable:
    """The store could not do its part; nothing was executed or recorded by this call."""

    reason: UnavailableReason
    retry_after_ms: int = 1000
    temporary: Literal[True] = True
    code: Literal["unavailable"] = "unavailable"

    @property
    def message(self) -> str:
        return _UNAVAILABLE_MESSAGES[self.reason]


class StoreUnavailableError(Exception):
    """Raised only where no outcome can be returned (the exit of a claim, ``transaction()``,
    ``Transaction.execute``, maintenance calls). Carries the safe outcome; the driver exception
    is chained as ``__cause__`` for operators and must not be shown to clients."""

    def __init__(self, outcome: StoreUnavailable) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


@dataclass(frozen=True, slots=True)
class Undone:
    """The record a keyed call made (`Transaction.made`) was undone since by another call
    (`Transaction.undo`): a cancel, a delete, a void."""

    kind: str  # what the record is, in the author's word: "booking", "invoice"
    entity_id: str
    by: str  # the tool whose call undid it
    at: float  # when (the store's clock)


@dataclass(frozen=True, slots=True)
class Replay:
    """The same key with the same arguments already ran: here is its stored result. The handler
    did not run again. ``undone`` says when what it made was undone since (the stored result no
    longer describes the world)."""

    result: dict[str, Any]
    recorded_at: float
    undone: Undone | None = None
    replayed: Literal[True] = True


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The same key was used earlier with different arguments; ``fields`` are dotted paths."""

    fields: tuple[str, ...]
    code: Literal["idempotency_mismatch"] = "idempotency_mismatch"


@dataclass(frozen=True, slots=True)
class InProgress:
    """Another call holds the key and did not finish within the wait bound."""

    retry_after_ms: int
    code: Literal["in_progress"] = "in_progress"
    temporary: Literal[True] = True


@dataclass(frozen=True, slots=True)
class Executed:
    """The effect ran now, exactly once, and its result is recorded (returned by
    ``run_idempotent``)."""

    result: dict[str, Any]
    recovered: bool = False
    replayed: Literal[False] = False


@dataclass(frozen=True, slots=True)
class VersionConflict:
    """``expected_version`` is stale. Repair: make the read call, then reapply."""

    expected: int | str
    current: int | str | None
    reread_tool: str | None = None
    reread_arguments: Mapping[str, Any] = field(default_factory=dict)
    code: Literal["conflict"] = "conflict"


@dataclass(frozen=True, slots=True)
class Updated:
    """A version-guarded write went through; ``version`` is the new current version."""

    version: int


@dataclass(frozen=True, slots=True)
class NotFound:
    """The row a version-guarded write aims at does not exist."""


@dataclass(frozen=True, slots=True)
class Upserted:
    created: bool


class RefusalReason(StrEnum):
    MISSING = "missing"
    FORGED = "forged"
    EXPIRED = "expired"
    REUSED = "reused"
    OTHER_TOOL = "other_tool"
    OTHER_ARGUMENTS = "other_arguments"
    OTHER_PRINCIPAL = "other_principal"


_REFUSAL_MESSAGES: dict[RefusalReason, str] = {
    RefusalReason.MISSING: "This action needs a confirm_token from a dry run of the same call.",
    RefusalReason.FORGED: "The confirm_token is not one this server issued.",
    RefusalReason.EXPIRED: "The confirm_token has expired.",
    RefusalReason.REUSED: "The confirm_token was already used; each token confirms one call.",
    RefusalReason.OTHER_TOOL: "The confirm_token was issued for another tool.",
    RefusalReason.OTHER_ARGUMENTS: "The confirm_token was issued for different arguments.",
    RefusalReason.OTHER_PRINCIPAL: "The confirm_token was issued to someone else.",
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A destructive call without a valid confirm token. The repair is always the dry run of the
    same call (the runtime builds it)."""

    reason: RefusalReason

    @property
    def code(self) -> Literal["confirmation_required", "confirmation_invalid"]:
        if self.reason is RefusalReason.MISSING:
            return "confirmation_required"
        return "confirmation_invalid"

    @property
    def message(self) -> str:
        return _REFUSAL_MESSAGES[self.reason]
