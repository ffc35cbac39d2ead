"""`Contract`, the one object an author meets: a declaration with its surface and its runtime.

An author declares on it (`@contract.tool`, `.resource`, `.prompt`: `drivable.contract.declaration`),
serves it (`drivable.serve`), and calls it in tests (`contract.call`). Each job lives in its own
part, and the contract only joins them: what is declared (`Declaration`, which it is), what a
client is shown (`self.surface`, `drivable.contract.surface`) and what runs a call and keeps state
between calls (`self.runtime`, `drivable.contract.runtime`).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from drivable.contract.additions import SHOWN
from drivable.contract.call import Call, Outcome, Principal, ProgressFn
from drivable.contract.changes import Changes
from drivable.contract.client import NO_CLIENT, ClientSide
from drivable.contract.codes import Code, WarningCode
from drivable.contract.declaration import CATALOG_LIMIT, MAX_INLINE_BYTES, Declaration
from drivable.contract.durable import CONFIRM_TTL_S, RECEIPT_WINDOW_S, Durability
from drivable.contract.envelope import Envelope
from drivable.contract.lifespan import Lifespan, Opening
from drivable.contract.runtime import Runtime
from drivable.contract.summary import Summary
from drivable.contract.surface import NAMESPACE, Surface
from drivable.contract.tool import ToolSpec
from drivable.effects import EffectStore

__all__ = [
    "MAX_INLINE_BYTES",
    "NAMESPACE",
    "Call",
    "Contract",
    "Outcome",
    "Principal",
    "ProgressFn",
    "Summary",
]


class Contract(Declaration):
    """A server's agent-facing contract: tools, codes, warnings, summary, identity."""

    def __init__(
        self,
        name: str,
        *,
        version: str,
        summary: Summary,
        title: str | None = None,
        settings_url: str | None = None,
        domain_codes: Sequence[Code] = (),
        warning_codes: Sequence[WarningCode] = (),
        max_inline_bytes: int = MAX_INLINE_BYTES,
        strict: bool | None = None,
        verbs: Sequence[str] = (),
        lifespan: Lifespan | None = None,
        catalog_limit: int | None = CATALOG_LIMIT,
    ) -> None:
        super().__init__(
            name,
            version=version,
            summary=summary,
            title=title,
            settings_url=settings_url,
            domain_codes=domain_codes,
            warning_codes=warning_codes,
            max_inline_bytes=max_inline_bytes,
            verbs=verbs,
            lifespan=lifespan,
            catalog_limit=catalog_limit,
        )
        self.runtime = Runtime(self, strict=strict)
        self.surface = Surface(self, self.runtime)

    def declared(self) -> None:
        self.runtime.fingerprint = None  # the surface it summed changed

    def __copy__(self) -> Contract:
        """A copy with registries of its own to reassign (`copy.tools = {...}`), over the same
        specs and store, and no fingerprint until it is served."""
        twin = object.__new__(Contract)
        twin.__dict__.update(self.__dict__)
        twin.runtime = copy.copy(self.runtime)
        twin.runtime.declaration = twin
        twin.runtime.fingerprint = None
        twin.runtime.opening = Opening()  # a copy opens its own lifespan
        twin.surface = Surface(twin, twin.runtime)
        return twin

    # -- the runtime ---------------------------------------------------------------------------

    @asynccontextmanager
    async def started(self, **arguments: Any) -> AsyncIterator[Contract]:
        """The contract with its lifespan open (`drivable.contract.lifespan`): the first entry
        opens it, with `arguments` passed to the lifespan (a test's own data), the last one out
        closes it. A failure to open raises `LifespanError`, one line that names the lifespan."""
        async with self.runtime.opening.hold(self, self.lifespan, arguments):
            yield self

    def provided(self) -> Any:
        """The resource the open lifespan yielded (what a handler's resource parameter gets)."""
        return self.runtime.provided()

    @property
    def durability(self) -> Durability | None:
        """The attached effect store and token issuer, or None until one is attached."""
        return self.runtime.durability

    @property
    def receipt_window_s(self) -> float:
        return self.runtime.receipt_window_s

    @property
    def confirm_ttl_s(self) -> float:
        return self.runtime.confirm_ttl_s

    @property
    def changes(self) -> Changes:
        """Tell clients the lists or a resource changed (`drivable.contract.changes`)."""
        return self.runtime.changes

    @property
    def listed_names(self) -> Sequence[str]:
        """The tool names tools/list shows a client (a large catalog's entry tools)."""
        return self.runtime.listed_names

    @property
    def strict(self) -> bool:
        """Whether slips against the contract raise `StrictError` (see `drivable.contract.strict`)."""
        return self.runtime.strict

    def use_effects(
        self,
        store: EffectStore,
        secret: bytes,
        *,
        receipt_window_s: float = RECEIPT_WINDOW_S,
        confirm_ttl_s: float = CONFIRM_TTL_S,
    ) -> None:
        """Attach the store for receipts and confirm tokens (shared by every worker process).

        `secret` signs confirm tokens: give every process that serves this contract the same one.
        """
        self.runtime.use_effects(
            store, secret, receipt_window_s=receipt_window_s, confirm_ttl_s=confirm_ttl_s
        )

    async def durable(self) -> Durability:
        """The attached store, or the one the settings name (`Runtime.durable`)."""
        return await self.runtime.durable()

    async def prepare(self) -> None:
        """Settle the store and the token secret before the first call (`Runtime.prepare`)."""
        await self.runtime.prepare()

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        principal: Principal | None = None,
        request_id: str | None = None,
        progress: ProgressFn | None = None,
        client: ClientSide = NO_CLIENT,
    ) -> Outcome:
        """Answer one tools/call, transport-free: the shaped result or the finished envelope."""
        return await self.runtime.call(
            name,
            arguments,
            principal=principal,
            request_id=request_id,
            progress=progress,
            client=client,
        )

    def finish(self, envelope: Envelope, rid: str, tool: ToolSpec | None = None) -> Outcome:
        """The one finalizer of a tool call's envelope (`Runtime.finish`)."""
        return self.runtime.finish(envelope, rid, tool)

    @property
    def fingerprint(self) -> str | None:
        """`<server>@<version>+<hash>` of the agent-visible surface ([9.fingerprint]).

        Computed by `drivable.serve` when the server starts, from the surface a client collects,
        exactly as `drivable snapshot` computes it; None before that.
        """
        return self.runtime.fingerprint

    def set_fingerprint(self, value: str) -> None:
        self.runtime.fingerprint = value

    @property
    def _fingerprint(self) -> str | None:
        # Kept for `drivable.eval.surfaces`, which resets a copy's; a copy starts without one now.
        return self.runtime.fingerprint

    @_fingerprint.setter
    def _fingerprint(self, value: str | None) -> None:
        self.runtime.fingerprint = value

    # -- the surface ---------------------------------------------------------------------------

    def tool_codes(self, spec: ToolSpec) -> list[str]:
        """The codes one tool can emit: the ones every tool can, plus its declared domain codes."""
        return self.surface.tool_codes(spec)

    def tool_meta(self, spec: ToolSpec) -> dict[str, Any]:
        return self.surface.tool_meta(spec)

    def error_catalog(self) -> list[dict[str, Any]]:
        """Every code the server's tools can emit, with its recovery class and meaning."""
        return self.surface.error_catalog()

    def tool_wire(self, spec: ToolSpec, shown: frozenset[str] = SHOWN) -> dict[str, Any]:
        """The tool as tools/list shows it (camelCase, as on the wire), with the runtime's
        additions in `shown` (`drivable.contract.additions`)."""
        return self.surface.tool_wire(spec, shown)

    def tool_detail(self) -> dict[str, Any]:
        """What the compact tools/list leaves out, per tool (server/discover's `dev.drivable/tools`)."""
        return self.surface.tool_detail()

    def listed_tools(self) -> list[ToolSpec]:
        """The tools in the order they were declared ([9.deterministic-order])."""
        return self.surface.listed_tools()

    def summary_dict(self) -> dict[str, Any]:
        return self.surface.summary_dict()
