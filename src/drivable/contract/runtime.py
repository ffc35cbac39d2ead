"""The runtime: what a served contract keeps between calls (the effect store, strict mode, the
fingerprint) and the call itself.

`Runtime.call(name, arguments)` is transport-free: it runs the pipeline (`drivable.contract.pipeline`:
bound the payload, check scopes, validate through the tool's input model, run the handler, shape
the result) inside a telemetry span, and `Runtime.finish` is the one finalizer of every refusal.
The runtime is the `StageContext` the stages read, so they never see the whole `Contract`.
`drivable.serve` mounts it on the SDK's low-level Server for stdio and streamable HTTP.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

from drivable import settings
from drivable.contract import strict as strict_mode
from drivable.contract import telemetry
from drivable.contract.call import Outcome, Principal, ProgressFn
from drivable.contract.changes import Changes
from drivable.contract.client import NO_CLIENT, ClientSide
from drivable.contract.declaration import ENTRY_TOOLS, entered
from drivable.contract.durable import CONFIRM_TTL_S, RECEIPT_WINDOW_S, Durability
from drivable.contract.finish import finish
from drivable.contract.finish import request_id as new_request_id
from drivable.contract.lifespan import Opening
from drivable.contract.pipeline import run
from drivable.contract.stages.base import Attempt
from drivable.contract.stages.handler import internal_error
from drivable.contract.surface import tool_codes
from drivable.effects import ConfirmTokens, EffectStore, open_store

if TYPE_CHECKING:
    from drivable.contract.codes import Code, WarningCode
    from drivable.contract.declaration import Declaration
    from drivable.contract.echo import NextCall
    from drivable.contract.envelope import Envelope
    from drivable.contract.tool import ToolSpec

log = logging.getLogger("drivable.contract")


class Runtime:
    """The durable state of a served `declaration` and the call through its tools."""

    def __init__(self, declaration: Declaration, *, strict: bool | None = None) -> None:
        self.declaration = declaration
        self._strict = strict
        self.durability: Durability | None = None
        self.receipt_window_s: float = RECEIPT_WINDOW_S
        self.confirm_ttl_s: float = CONFIRM_TTL_S
        self.fingerprint: str | None = None
        self.changes = Changes()  # tell clients the lists or a resource changed
        self.opening = Opening()  # the lifespan's resource, while the contract is started

    # -- what the stages read of the declaration (`StageContext`) ------------------------------

    @property
    def name(self) -> str:
        return self.declaration.name

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        return self.declaration.tools

    @property
    def codes(self) -> Mapping[str, Code]:
        return self.declaration.codes

    @property
    def warning_codes(self) -> Mapping[str, WarningCode]:
        return self.declaration.warning_codes

    @property
    def settings_url(self) -> str | None:
        return self.declaration.settings_url

    @property
    def max_inline_bytes(self) -> int:
        return self.declaration.max_inline_bytes

    @property
    def listed_names(self) -> Sequence[str]:
        return ENTRY_TOOLS if entered(self.declaration) else sorted(self.tools)

    def next_call(self, tool: str, arguments: Mapping[str, Any]) -> NextCall:
        return self.declaration.next_call(tool, arguments)

    def provided(self) -> Any:
        """The resource the open lifespan yielded (`drivable.contract.lifespan`)."""
        if not self.opening.open:
            raise LookupError(
                f"{self.name}: its lifespan is not open; serve the contract, or enter "
                "`async with contract.started():` around the calls"
            )
        return self.opening.value

    # -- durable state -------------------------------------------------------------------------

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
        self.receipt_window_s = receipt_window_s
        self.confirm_ttl_s = confirm_ttl_s
        self.durability = Durability(
            store, ConfirmTokens(secret, store=store, ttl_s=confirm_ttl_s), receipt_window_s
        )
        self.fingerprint = None

    async def durable(self) -> Durability:
        """The attached store, or the one the settings name (`store`, default a SQLite file in
        the cache directory), with the settings' secret or one derived in and shared through the
        store: every process that shares the store accepts the others' confirm tokens."""
        if self.durability is None:
            configured = settings.current()
            url = configured.store_url(self.name)
            if url.startswith("sqlite:///"):
                Path(url[len("sqlite:///") :]).parent.mkdir(parents=True, exist_ok=True)
            store = open_store(url)
            secret = configured.secret or await settings.shared_secret(store, "tokens")
            if self.durability is None:  # another call may have attached one meanwhile
                self.use_effects(
                    store,
                    secret,
                    receipt_window_s=self.receipt_window_s,
                    confirm_ttl_s=self.confirm_ttl_s,
                )
                settings.install_secret(secret)
        assert self.durability is not None
        return self.durability

    async def prepare(self) -> None:
        """Settle the store and the token secret before the first call (serve does this at
        startup): when a tool keeps receipts, a store is configured, or several workers serve
        the contract, so that cursors and confirm tokens hold across processes from the start."""
        configured = settings.current()
        durable = any(s.keyed or s.effects.destructive for s in self.tools.values())
        if durable or configured.store or configured.workers > 1:
            await self.durable()

    @property
    def strict(self) -> bool:
        """Whether slips against the contract raise `StrictError` (see `drivable.contract.strict`)."""
        return strict_mode.enabled() if self._strict is None else self._strict

    # -- calling -------------------------------------------------------------------------------

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
        rid = request_id or new_request_id()
        who = principal or Principal()
        raw: Mapping[str, Any] = arguments if arguments is not None else {}
        # A name the caller made up is not recorded (nor does it grow the metrics' label set).
        recorded = name if name in self.tools else "(unknown)"
        if not _tracing():
            # No tracer provider installed: a no-op span still costs about a third of a call.
            outcome = await run(Attempt(self, name, raw, who, rid, progress, client))
            _record(trace.INVALID_SPAN, recorded, outcome)
            return outcome
        with telemetry.call_span(recorded) as span:
            outcome = await run(Attempt(self, name, raw, who, rid, progress, client))
            _record(span, recorded, outcome)
            return outcome

    def finish(self, envelope: Envelope, rid: str, tool: ToolSpec | None = None) -> Outcome:
        """The one finalizer of a tool call's envelope: its code registered (else internal_error),
        temporary and retry_after_ms from the code, the request id, the fingerprint."""
        if tool is not None and self.strict:
            declared = tool_codes(tool, store_attached=self.durability is not None)
            if envelope.code not in declared:
                raise strict_mode.StrictError(
                    f"{tool.name} answered {envelope.code!r}, which it does not declare: add it "
                    f"to errors=[...] of {tool.name}, or raise a code it declares"
                )
        if envelope.code not in self.codes:
            log.error("unregistered error code %r (request_id=%s)", envelope.code, rid)
            envelope = internal_error(tool.name if tool else "", rid)
        finish(envelope, request_id=rid, codes=self.codes, fingerprint=self.fingerprint)
        return Outcome(envelope.to_dict(), is_error=True)


def _tracing() -> bool:
    """Whether an OpenTelemetry tracer provider is installed (checked per call: it may come later).

    `get_tracer_provider()` searches the environment on every call until a provider is set, a
    tenth of a call's overhead; the API's own global says the same at the cost of a load. The
    environment variable that names a provider is looked up once (`_PROVIDER_IN_ENVIRONMENT`).
    """
    installed = getattr(trace, "_TRACER_PROVIDER", _UNKNOWN)
    if installed is None and not _PROVIDER_IN_ENVIRONMENT:
        return False
    if installed is not None and installed is not _UNKNOWN:
        return not isinstance(installed, trace.ProxyTracerProvider)
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


_UNKNOWN = object()
_PROVIDER_IN_ENVIRONMENT = settings.OTEL_TRACER_PROVIDER.is_set()


def _record(span: trace.Span, name: str, outcome: Outcome) -> None:
    if outcome.is_error:
        telemetry.record_rejection(span, name, outcome.structured)
    else:
        telemetry.record_success(span, name)
