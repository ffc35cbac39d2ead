"""Anthropic's Messages API through the official `anthropic` client (the `[anthropic]` extra), the
key from the environment; tool schemas passed exactly as the server gave them."""

from __future__ import annotations

from typing import Any

from drivable import settings
from drivable.eval.agents._chat import SYSTEM
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow


class AnthropicAgent:
    def __init__(
        self,
        *,
        seed: int = 0,
        model: str | None = None,
        base_url: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        max_tokens: int = 1024,
        max_turns: int = 24,
        **_: Any,
    ) -> None:
        try:
            import anthropic
        except ImportError as error:
            raise RuntimeError(
                "the anthropic agent needs the anthropic client: pip install 'drivable[anthropic]'"
            ) from error
        key = settings.named(api_key_env)
        if not key and base_url is None:
            raise RuntimeError(
                f"the anthropic agent reads its key from ${api_key_env}, which is unset"
            )
        self.client: Any = anthropic.AsyncAnthropic(api_key=key or "unused", base_url=base_url)
        self.model = model or settings.ANTHROPIC_MODEL.get() or "claude-sonnet-4-5"
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_turns = max_turns
        self.name = f"anthropic:{self.model}"
        self.usage = Usage()

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.relisted(tools)
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": workflow.prompt()}]
        self.queue: list[tuple[str, ToolCall]] = []
        self.results: list[dict[str, Any]] = []
        self.pending: str | None = None
        self.turns = 0

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        """The tools sent with every request from the next on."""
        self.tools = [
            {
                "name": t["name"],
                "description": t.get("description") or "",
                "input_schema": t.get("inputSchema") or {"type": "object"},
            }
            for t in tools
        ]

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        if last is not None and self.pending is not None:
            self.results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": self.pending,
                    "content": last.text or "{}",
                    "is_error": last.is_error,
                }
            )
            self.pending = None
        if not self.queue:
            if self.results:
                self.messages.append({"role": "user", "content": self.results})
                self.results = []
            if self.turns >= self.max_turns:
                return Finish("turn limit")
            self.turns += 1
            response = await self.client.messages.create(
                model=self.model,
                system=SYSTEM,
                messages=self.messages,
                tools=self.tools,
                max_tokens=self.max_tokens,
            )
            self.usage.reported = True
            self.usage.input_tokens += response.usage.input_tokens
            self.usage.output_tokens += response.usage.output_tokens
            blocks = [b.model_dump(mode="json", exclude_none=True) for b in response.content]
            self.messages.append({"role": "assistant", "content": blocks})
            uses = [b for b in response.content if getattr(b, "type", None) == "tool_use"]
            if not uses:
                text = " ".join(str(getattr(b, "text", "")) for b in response.content)
                return Finish(text)
            for b in uses:
                args = b.input if isinstance(b.input, dict) else {"__unparsed__": b.input}
                self.queue.append((b.id, ToolCall(b.name, dict(args))))
        call_id, call = self.queue.pop(0)
        self.pending = call_id
        return call
