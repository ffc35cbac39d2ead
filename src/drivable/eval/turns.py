"""What passes between the solver and an agent: a call, its observation, the end of a task."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from drivable.eval.workflow import Workflow


@dataclass(frozen=True)
class ToolCall:
    tool: str
    arguments: dict[str, Any]

    def key(self) -> str:
        return self.tool + json.dumps(self.arguments, sort_keys=True, default=str)


@dataclass(frozen=True)
class Finish:
    """The agent ends the task: with its answer, or (`cap` set) because a limit stopped it.

    A cap is not the agent's own decision and is reported as such (turn_cap, identical_resends,
    reply_cut), never as `finished_by_agent`."""

    answer: str = ""
    cap: str | None = None


@dataclass
class Observation:
    """One call as the agent saw it come back."""

    call: ToolCall
    is_error: bool
    structured: dict[str, Any] | None
    text: str

    def payload(self) -> Any:
        """The result as data: structuredContent, else the text read as JSON, else the text."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except (ValueError, TypeError):
            return self.text

    def envelope(self) -> dict[str, Any] | None:
        """The drivable error envelope, when the error carries one."""
        if not self.is_error:
            return None
        data = self.payload()
        if isinstance(data, dict) and isinstance(data.get("code"), str) and "message" in data:
            return data
        return None


@dataclass
class Usage:
    """Tokens a model backend reported (None when the backend reports none, e.g. simulated)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reported: bool = False
    parse_paths: dict[str, int] = field(default_factory=dict)  # local model: which parser matched
    # a model backend's side, one record per completion: raw reply, finish reason, tokens, latency
    turns: list[dict[str, Any]] = field(default_factory=list)


class Agent(Protocol):
    """An agent sees the task and the tools (as tools/list gave them) and answers one turn at a time."""

    name: str
    usage: Usage

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None: ...

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        """The host listed the tools again (the server said they changed): these from now on."""
        ...

    async def act(self, last: Observation | None) -> ToolCall | Finish: ...
