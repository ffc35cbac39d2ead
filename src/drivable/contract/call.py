"""What a handler meets: who calls (`Principal`), the call's context (`Call`), and the answer (`Outcome`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivable.contract.runtime import Contract

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Principal:
    """Who calls: an id and the scopes their credential grants (stdio: the local user, all scopes)."""

    id: str = "local"
    scopes: frozenset[str] | None = None  # None: every scope (a local, trusted transport)


@dataclass
class Call:
    """What a handler gets besides its arguments."""

    tool: str
    principal: Principal
    request_id: str
    contract: Contract
    notes: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    progress: ProgressFn | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)
    # The effect store's transaction a mutating handler writes through, so its effect commits
    # together with the receipt (and the spent confirm token); None for read-only tools.
    transaction: Any = None

    def note(self, text: str) -> None:
        self.notes.append(text)

    def warn(self, code: str, message: str, path: str | None = None) -> None:
        if code not in self.contract.warning_codes:
            raise ValueError(f"unregistered warning code {code!r}")
        entry = {"code": code, "message": message}
        if path:
            entry["path"] = path
        self.warnings.append(entry)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self.progress is not None:
            await self.progress(progress, total, message)


# Built once: `json.dumps` with options builds a new encoder on every call (a third of its cost).
WIRE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Outcome:
    """The result of one call: the structured result or the envelope, and whether it is an error."""

    structured: dict[str, Any]
    is_error: bool
    meta: dict[str, Any] | None = None

    def text(self) -> str:
        return WIRE_ENCODER.encode(self.structured)
