"""What claiming an idempotency key returns (`Claim`), and the steps of the claim loop."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from drivable.canonical import canonical_json
from drivable.effects.canonical import normalised_arguments
from drivable.effects.outcomes import (
    InProgress,
    Mismatch,
    Replay,
    StoreUnavailable,
    Undone,
)
from drivable.effects.transaction import Transaction


@dataclass(frozen=True, slots=True)
class _Scope:
    principal: str
    tool: str
    key: str

    def params(self) -> tuple[str, str, str]:
        return (self.principal, self.tool, self.key)


class NewClaim:
    """This call owns the key: run the effect in ``transaction`` and ``record`` its result.

    Leaving the block after ``record`` commits the effect and the receipt together. Leaving it
    without ``record`` (a domain refusal that changed nothing) or with an exception rolls back and
    releases the key, so a retry runs afresh."""

    replayed: Literal[False] = False

    def __init__(
        self, transaction: Transaction, scope: _Scope, owner: str, recovered: bool
    ) -> None:
        self.transaction = transaction
        self.recovered = recovered
        """True when this call took over a claim abandoned by a crashed process."""
        self._scope = scope
        self._owner = owner
        self._result_json: str | None = None

    def record(self, result: Mapping[str, Any]) -> None:
        """Keep ``result`` (JSON) as the receipt replayed to retries of this call."""
        if self._result_json is not None:
            raise RuntimeError("record() was already called for this claim")
        self._result_json = canonical_json(normalised_result(result)).decode("utf-8")

    @property
    def recorded(self) -> bool:
        return self._result_json is not None

    @property
    def result(self) -> dict[str, Any]:
        """The recorded result exactly as a replay will return it."""
        if self._result_json is None:
            raise RuntimeError("nothing recorded")
        value: dict[str, Any] = json.loads(self._result_json)
        return value


def normalised_result(result: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(result, Mapping):
        raise TypeError("a recorded result must be a mapping")
    return normalised_arguments({"r": result})["r"]  # type: ignore[no-any-return]


Claim = NewClaim | Replay | Mismatch | InProgress | StoreUnavailable


@dataclass(frozen=True, slots=True)
class _Claimed:
    recovered: bool


@dataclass(frozen=True, slots=True)
class _Wait:
    retry_after_ms: int


class _Again:
    pass


_Step = _Claimed | _Wait | _Again | Replay | Mismatch


@dataclass(frozen=True, slots=True)
class ReceiptView:
    """What the store holds for a key (for operators and tests; not for clients)."""

    state: Literal["running", "done"]
    digest: str
    result: dict[str, Any] | None
    expires_at: float
    undone: Undone | None = None  # what the call made was undone since (`Transaction.undo`)
