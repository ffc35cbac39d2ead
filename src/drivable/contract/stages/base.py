"""What flows through the call pipeline (`Attempt`), what a stage may read of the contract it
runs in (`StageContext`), how a stage refuses (`Refused`), and the one handler call a stage that
acts around the handler is handed (`Answer`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from drivable.contract.call import Call, CallContext, Outcome, Principal, ProgressFn
from drivable.contract.client import NO_CLIENT, ClientSide
from drivable.contract.envelope import Envelope

if TYPE_CHECKING:
    from drivable.contract.codes import Code
    from drivable.contract.durable import Durability
    from drivable.contract.tool import ToolSpec


class StageContext(CallContext, Protocol):
    """Everything a stage reads of the contract a call runs in, and nothing else: a stage can
    run on a small fake of this (`Contract` and its `Runtime` both are one)."""

    @property
    def name(self) -> str: ...

    @property
    def tools(self) -> Mapping[str, ToolSpec]: ...

    @property
    def codes(self) -> Mapping[str, Code]: ...

    @property
    def settings_url(self) -> str | None: ...

    @property
    def max_inline_bytes(self) -> int: ...

    @property
    def listed_names(self) -> Sequence[str]:
        """The tool names tools/list shows a client (a large catalog's entry tools)."""
        ...

    async def durable(self) -> Durability:
        """The effect store and token issuer (opened on first use)."""
        ...

    def finish(self, envelope: Envelope, rid: str, tool: ToolSpec | None = None) -> Outcome:
        """The refused call's envelope finished (`Runtime.finish`)."""
        ...


class Refused(Exception):
    """Raised by a stage (or inside an effect, to roll it back) to answer with an envelope."""

    def __init__(self, envelope: Envelope) -> None:
        super().__init__(envelope.code)
        self.envelope = envelope


@dataclass
class Attempt:
    """One tools/call on its way through the stages; each stage fills in what it established."""

    contract: StageContext
    name: str
    raw: Mapping[str, Any]
    principal: Principal
    request_id: str
    progress: ProgressFn | None = None
    client: ClientSide = NO_CLIENT  # who the handler may ask (`drivable.contract.client`)
    spec: ToolSpec | None = None  # set by `resolve`
    args: Any = None  # the validated input model, set by `read_arguments`
    call: Call | None = None  # the handler's context, set by `read_arguments`

    @property
    def tool(self) -> ToolSpec:
        assert self.spec is not None, "resolve runs first"
        return self.spec

    @property
    def context(self) -> Call:
        assert self.call is not None, "read_arguments runs first"
        return self.call


Settled = Callable[[], Awaitable[None]]
"""What a stage does between the handler and the shaping of its result: once the handler settled
the arguments (`drivable.kinds` `Deferred`), before the result is said (a dry run's note)."""


class Answer(Protocol):
    """The pipeline's one call of the handler, its result shaped into the call's outcome
    (`drivable.contract.pipeline.answer`). The stages that act around the handler (`consent`,
    `effects`) are handed it: they decide when it runs, and inside what, never how."""

    def __call__(self, attempt: Attempt, settled: Settled | None = None) -> Awaitable[Outcome]: ...
