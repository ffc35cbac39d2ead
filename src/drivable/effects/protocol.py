"""`EffectStore`: what the runtime needs of any effect store (SQLite and PostgreSQL implement it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, runtime_checkable

from drivable.effects.backend import DEFAULT_LEASE_S, DEFAULT_WAIT_S, DEFAULT_WINDOW_S, Dialect
from drivable.effects.claims import Claim, ReceiptView
from drivable.effects.outcomes import (
    Executed,
    InProgress,
    Mismatch,
    Replay,
    StoreUnavailable,
)
from drivable.effects.transaction import Transaction


@runtime_checkable
class EffectStore(Protocol):
    @property
    def dialect(self) -> Dialect: ...

    def idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> AbstractAsyncContextManager[Claim]: ...

    async def run_idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        effect: Callable[[Transaction], Awaitable[Mapping[str, Any]]],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> Executed | Replay | Mismatch | InProgress | StoreUnavailable: ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def use_nonce(
        self, nonce: str, expires_at: float, *, transaction: Transaction | None = None
    ) -> bool | StoreUnavailable: ...

    async def receipt(self, *, tool: str, principal: str, key: str) -> ReceiptView | None: ...

    async def purge_expired(self) -> int: ...

    async def close(self) -> None: ...
