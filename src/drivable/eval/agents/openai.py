"""Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server) through the official
`openai` client (the `[openai]` extra). The key comes from the environment; tool schemas are passed
exactly as the server gave them."""

from __future__ import annotations

import json
from typing import Any

from drivable import settings
from drivable.eval.agents._chat import SYSTEM
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow


class OpenAIAgent:
    def __init__(
        self,
        *,
        seed: int = 0,
        model: str | None = None,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 1024,
        max_turns: int = 24,
        **_: Any,
    ) -> None:
        try:
            import openai
        except ImportError as error:  # an optional extra
            raise RuntimeError(
                "the openai agent needs the openai client: pip install 'drivable[openai]'"
            ) from error
        key = settings.named(api_key_env)
        if not key and base_url is None:
            raise RuntimeError(
                f"the openai agent reads its key from ${api_key_env}, which is unset"
            )
        self.client: Any = openai.AsyncOpenAI(api_key=key or "unused", base_url=base_url)
        self.model = model or settings.OPENAI_MODEL.get() or "gpt-4o-mini"
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_turns = max_turns
        self.name = f"openai:{self.model}"
        self.usage = Usage()

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.relisted(tools)
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": workflow.prompt()},
        ]
        self.queue: list[tuple[str, ToolCall]] = []
        self.pending: str | None = None
        self.turns = 0

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        """The tools sent with every request from the next on."""
        self.tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description") or "",
                    "parameters": t.get("inputSchema") or {"type": "object"},
                },
            }
            for t in tools
        ]

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        if last is not None and self.pending is not None:
            self.messages.append(
                {"role": "tool", "tool_call_id": self.pending, "content": last.text or "{}"}
            )
            self.pending = None
        if not self.queue:
            if self.turns >= self.max_turns:
                return Finish("turn limit")
            self.turns += 1
            response = await self.client.chat.completions.create(
                model=self.model,
                messages=self.messages,
                tools=self.tools,
                tool_choice="auto",
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                seed=self.seed,
            )
            if response.usage is not None:
                self.usage.reported = True
                self.usage.input_tokens += response.usage.prompt_tokens
                self.usage.output_tokens += response.usage.completion_tokens
            message = response.choices[0].message
            calls = list(message.tool_calls or [])
            self.messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    **(
                        {
                            "tool_calls": [
                                {
                                    "id": c.id,
                                    "type": "function",
                                    "function": {
                                        "name": c.function.name,
                                        "arguments": c.function.arguments,
                                    },
                                }
                                for c in calls
                            ]
                        }
                        if calls
                        else {}
                    ),
                }
            )
            if not calls:
                return Finish(message.content or "")
            for c in calls:
                raw = c.function.arguments or "{}"
                try:
                    args = json.loads(raw)
                except ValueError:
                    args = {"__unparsed__": raw}
                if not isinstance(args, dict):
                    args = {"__unparsed__": args}
                self.queue.append((c.id, ToolCall(c.function.name, args)))
        call_id, call = self.queue.pop(0)
        self.pending = call_id
        return call
