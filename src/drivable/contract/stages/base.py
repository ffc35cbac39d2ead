"""What flows through the call pipeline (`Attempt`) and how a stage refuses (`Refused`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drivable.contract.call import Call, Principal, ProgressFn
from drivable.contract.envelope import Envelope

if TYPE_CHECKING:
    from drivable.contract.runtime import Contract
    from drivable.contract.tool import ToolSpec


class Refused(Exception):
    """Raised by a stage (or inside an effect, to roll it back) to answer with an envelope."""

    def __init__(self, envelope: Envelope) -> None:
        super().__init__(envelope.code)
        self.envelope = envelope


@dataclass
class Attempt:
    """One tools/call on its way through the stages; each stage fills in what it established."""

    contract: Contract
    name: str
    raw: Mapping[str, Any]
    principal: Principal
    request_id: str
    progress: ProgressFn | None = None
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
