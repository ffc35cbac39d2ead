"""The client side of a call: one handler API for asking the user, the model and the host.

A handler asks with `await call.client.ask(key, Elicit(...))` (a form for the user),
`Sample(...)` (a completion from the client's model) or `ListRoots()` (the host's roots), or
several at once with `ask_all`. The same code works in both protocol eras:

- 2026-07-28 (multi-round requests): the first call ends with `input_required` listing what is
  asked; the client answers by calling again with `inputResponses`. The handler runs again from
  the top and finds its answers; answers of earlier rounds travel in the signed `requestState`
  (`drivable.contract.rounds`), so a multi-round handler sees every answer so far.
- 2025-11-25 and before: each ask is a server-to-client request (`elicitation/create`,
  `sampling/createMessage`, `roots/list`) answered while the call waits.

`client.capabilities` is what the client declared. Asking for something it did not declare
raises `MissingCapability` (JSON-RPC -32021 with `requiredCapabilities`), never a silent wait;
a handler that can do without it checks `client.supports(...)` first.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.contract.content import Message, Text

log = logging.getLogger("drivable.contract.client")

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVELS: tuple[LogLevel, ...] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip


class ClientRound(Exception):
    """Raised through the pipeline to the transport: the call cannot finish on this round."""


class InputRequired(ClientRound):
    """The call needs answers from the client before it can finish (2026-07-28 rounds)."""

    def __init__(self, requests: Mapping[str, Request], answers: Mapping[str, Any]) -> None:
        super().__init__("input required")
        self.requests = dict(requests)
        self.answers = dict(answers)  # raw answers so far, carried in the signed request state


class MissingCapability(ClientRound):
    """The call needs a client capability the client did not declare (JSON-RPC -32021)."""

    def __init__(self, capability: str, method: str) -> None:
        super().__init__(capability)
        self.capability = capability
        self.method = method


@dataclass(frozen=True)
class Elicited:
    """The user's answer to a form: `accept` (with `content`), `decline` or `cancel`."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True)
class Sampled:
    """The client model's reply: its text (empty for non-text content) and the model's name."""

    text: str
    model: str
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class Root:
    uri: str
    name: str | None = None


@dataclass(frozen=True)
class Elicit:
    """Ask the user to fill a small flat form (`elicitation/create`, form mode)."""

    message: str
    schema: Mapping[str, Any]  # the requestedSchema: a flat object of primitive properties

    method = "elicitation/create"
    capability = "elicitation"

    def params(self) -> dict[str, Any]:
        return {"mode": "form", "message": self.message, "requestedSchema": dict(self.schema)}

    def read(self, answer: Any) -> Elicited | None:
        if not isinstance(answer, Mapping) or answer.get("action") not in (
            "accept",
            "decline",
            "cancel",
        ):
            return None
        content = answer.get("content") or {}
        if not isinstance(content, Mapping):
            return None
        return Elicited(answer["action"], dict(content))


@dataclass(frozen=True)
class Sample:
    """Ask the client's model for a completion (`sampling/createMessage`)."""

    messages: Sequence[Message | str]
    max_tokens: int
    system_prompt: str | None = None

    method = "sampling/createMessage"
    capability = "sampling"

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "messages": [
                (m if isinstance(m, Message) else Message(Text(m))).wire() for m in self.messages
            ],
            "maxTokens": self.max_tokens,
        }
        if self.system_prompt is not None:
            out["systemPrompt"] = self.system_prompt
        return out

    def read(self, answer: Any) -> Sampled | None:
        if not isinstance(answer, Mapping) or not isinstance(answer.get("model"), str):
            return None
        content = answer.get("content")
        blocks: list[Any] = content if isinstance(content, list) else [content]
        if not all(isinstance(b, Mapping) and "type" in b for b in blocks):
            return None
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        return Sampled(text, answer["model"], dict(answer))


@dataclass(frozen=True)
class ListRoots:
    """Ask the host which roots (directories, repositories) the user opened (`roots/list`)."""

    method = "roots/list"
    capability = "roots"

    def params(self) -> dict[str, Any]:
        return {}

    def read(self, answer: Any) -> list[Root] | None:
        roots = answer.get("roots") if isinstance(answer, Mapping) else None
        if not isinstance(roots, list):
            return None
        out = []
        for root in roots:
            if not isinstance(root, Mapping) or not isinstance(root.get("uri"), str):
                return None
            name = root.get("name")
            out.append(Root(root["uri"], name if isinstance(name, str) else None))
        return out


Request = Elicit | Sample | ListRoots

# A server-to-client request in the handshake eras: method and params in, the result out.
SendRequest = Callable[[str, dict[str, Any]], Awaitable[Any]]
SendLog = Callable[[LogLevel, Any, "str | None"], Awaitable[None]]


class ClientSide:
    """What a handler can ask of the client and tell it, in either protocol era."""

    def __init__(
        self,
        capabilities: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
        *,
        responses: Mapping[str, Any] | None = None,
        carried: Mapping[str, Any] | None = None,
        send_request: SendRequest | None = None,
        send_log: SendLog | None = None,
        release_stream: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        # A callable is read on first use: most calls never ask, and reading the client's declared
        # capabilities into a mapping is a measurable part of a call.
        self._capabilities = (
            capabilities if capabilities is None or callable(capabilities) else dict(capabilities)
        )
        # 2026 rounds: the answers of earlier rounds (verified) and this round's inputResponses.
        self._carried: dict[str, Any] = dict(carried or {})
        self._responses: dict[str, Any] = dict(responses or {})
        self._good: dict[str, Any] = {}  # raw answers that read well in this run
        self._send_request = send_request
        self._send_log = send_log
        self._release_stream = release_stream
        self.resumed = carried is not None  # a verified requestState came back

    @property
    def capabilities(self) -> Mapping[str, Any]:
        source = self._capabilities
        if isinstance(source, dict):
            return source
        read = dict(source() if source is not None else {})
        self._capabilities = read
        return read

    def answers(self) -> dict[str, Any]:
        """Every answer this call has so far, as the client sent it (earlier rounds' and this
        round's): what a later run of the same call needs in order not to ask again."""
        return {**self._carried, **self._good}

    def supports(self, capability: str) -> bool:
        """Whether the client declared `capability` ("elicitation", "sampling", "roots")."""
        return self.capabilities.get(capability) is not None

    async def ask(self, key: str, request: Request) -> Any:
        """One answer (`Elicited`, `Sampled` or a list of `Root`), asked under `key`."""
        return (await self.ask_all({key: request}))[key]

    async def ask_all(self, requests: Mapping[str, Request]) -> dict[str, Any]:
        """Several answers at once: one round in 2026-07-28, one request each before."""
        for request in requests.values():
            if not self.supports(request.capability):
                raise MissingCapability(request.capability, request.method)
        if self._send_request is not None:
            return {key: await self._request(key, request) for key, request in requests.items()}
        read: dict[str, Any] = {}
        missing: dict[str, Request] = {}
        for key, request in requests.items():
            raw = self._responses.get(key, self._carried.get(key))
            answer = request.read(raw) if raw is not None else None
            if answer is None:
                missing[key] = request  # unanswered or malformed: asked again
            else:
                read[key] = answer
                self._good[key] = raw
        if missing:
            raise InputRequired(missing, {**self._carried, **self._good})
        return read

    async def _request(self, key: str, request: Request) -> Any:
        assert self._send_request is not None
        if key in self._good:
            return self._good[key]  # asked already in this call (a handler asking twice)
        carried = request.read(self._carried[key]) if key in self._carried else None
        if carried is not None:
            # Answered in an earlier round (a task's rounds before it started): not asked again.
            self._good[key] = carried
            return carried
        raw = await self._send_request(request.method, request.params())
        answer = request.read(raw)
        if answer is None:
            raise ValueError(f"the client's answer to {request.method} is malformed")
        self._good[key] = answer
        return answer

    async def log(self, level: LogLevel, message: Any, logger: str | None = None) -> None:
        """Send a log message to the client, if it asked for that level (never tool arguments)."""
        if level not in LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        if self._send_log is not None:
            await self._send_log(level, message, logger)

    async def release_stream(self) -> None:
        """Let a long call free its HTTP connection: the client reconnects for the result.

        Only a 2025-11-25 HTTP session with resumable streams can (the client polls back with
        Last-Event-ID and gets what it missed); everywhere else this does nothing.
        """
        if self._release_stream is not None:
            await self._release_stream()


NO_CLIENT = ClientSide()
