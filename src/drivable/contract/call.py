"""What a handler meets: who calls (`Principal`), the call's context (`Call`), and the answer (`Outcome`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from drivable.contract.client import NO_CLIENT, ClientSide

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pydantic import BaseModel

    from drivable.contract.codes import WarningCode
    from drivable.contract.echo import NextCall
    from drivable.contract.relax import Count, Facet, Filter, Relaxation

log = logging.getLogger(__name__)

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


class CallContext(Protocol):
    """What a `Call` reads of the contract it runs in: the warnings it may raise, whether slips
    are raised (strict mode), and how an echoed next call is checked."""

    @property
    def warning_codes(self) -> Mapping[str, WarningCode]: ...

    @property
    def strict(self) -> bool: ...

    def next_call(self, tool: str, arguments: Mapping[str, Any]) -> NextCall: ...


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
    contract: CallContext
    notes: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    progress: ProgressFn | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)
    # The effect store's transaction a mutating handler writes through, so its effect commits
    # together with the receipt (and the spent confirm token); None for read-only tools.
    transaction: Any = None
    # Content blocks shown after the result's JSON text (`drivable.contract.content`).
    attachments: list[Any] = field(default_factory=list)
    # The client side: ask the user, the model or the host; log (`drivable.contract.client`).
    client: ClientSide = NO_CLIENT
    # The call a result leads on to, sent as its `next_call`, and in words why and what to do,
    # sent as its `message` and `hint` (all set with `follow`).
    following: NextCall | None = None
    message: str | None = None
    hint: str | None = None
    # `relax` ran: the author judged the empty page, whatever it found (the runtime does not
    # relax it again, `stages.relaxing`)
    relaxed: bool = False

    def attach(self, *blocks: Any) -> None:
        """Show images, audio, embedded resources or links beside the structured result."""
        self.attachments.extend(blocks)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def warn(self, code: str, message: str, path: str | None = None) -> None:
        if code not in self.contract.warning_codes:
            raise ValueError(f"unregistered warning code {code!r}")
        entry = {"code": code, "message": message}
        if path:
            entry["path"] = path
        self.warnings.append(entry)

    def follow(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        message: str | None = None,
        hint: str | None = None,
    ) -> None:
        """Send `tool` with `arguments` as this result's `next_call`: the call to make next, which
        a model copies (an empty filtered page's relaxed search, `relax`). Checked like every
        echoed call (`Contract.next_call`); a page's own next page wins. A call that does not
        check out is the server's bug: raised in strict mode, else logged and left out (the
        result stands without it).

        A result that is not what the call wanted also says so in the words a refusal uses:
        `message`, what happened, and `hint`, the call to make in words
        (docs/decisions/0024-how-a-next-step-is-said.md, 4)."""
        try:
            self.following = self.contract.next_call(tool, arguments)
        except ValueError:
            if self.contract.strict:
                raise
            log.warning("tool %s: its next call %s does not validate; left out", self.tool, tool)
            return
        self.message, self.hint = message, hint

    def say(self, message: str, hint: str) -> None:
        """Say why the result is not what the call wanted, and what to do, in a refusal's words
        (`message`, `hint`), where there is no call to lead on to (`follow` when there is)."""
        self.following, self.message, self.hint = None, message, hint

    async def relax(
        self,
        args: BaseModel,
        filters: Sequence[Filter],
        count: Count,
        facet: Facet,
        *,
        noun: str = "result",
        query: str | None = None,
    ) -> Relaxation | None:
        """Explain an empty first page under filters by its minimal relaxation
        (`drivable.contract.relax`): the same call without the one filter whose removal brings
        back the fewest rows, every other argument as `args` was sent, is its `next_call`;
        `message` and `hint` say so, and a no_hits_filtered warning per filter left out names the
        values that would have matched. `count` and `facet` are the domain's, over its own data
        (sync or async). `query` names the argument whose words every row must hold: its words
        that a filter sent asks, or that no row holds, leave the next call's query first (rule 6;
        `count` and `facet` then read the query from `kept`), and a word no row holds that the
        field of a filter not sent reads as its value moves to that filter (rule 7). Without a
        filter sent or a word to leave out, nothing is said and None is returned."""
        from drivable.contract.relax import declared, reader, relax, sent_arguments
        from drivable.contract.relax_said import words
        from drivable.contract.tool import cursor_field

        self.relaxed = True
        model = type(args)
        sent = sent_arguments(args, cursor_field(model))
        found = await relax(
            sent, declared(model, filters), count, facet, query=query, reads=reader(model)
        )
        if found is None:
            return None
        said = words(found, self.tool, noun)
        if found.arguments is not None:
            self.follow(self.tool, found.arguments, message=said.message, hint=said.hint)
        if self.following is None:  # none, or (not strict) one that did not check out
            self.say(said.message, said.hint)
        for path, text in said.warnings:
            self.warn("no_hits_filtered", text, path)
        return found

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
    content: tuple[Any, ...] = ()  # attached content blocks, after the JSON text
    # A prose tool's answer (`Text`): the first text block instead of the JSON; `structured`
    # then holds only the call's notes, warnings and rejected entries (sent as a second block).
    prose: str | None = None
    # A data tool's answer read as prose (`Output.prose_field`): the field `prose` came from.
    # The rest of `structured` is the second block, and `structured` is still structuredContent.
    prose_from: str | None = None

    def after_prose(self) -> dict[str, Any]:
        """What a prose answer's second text block says: `structured` without the prose."""
        if self.prose_from is None:
            return self.structured
        return {k: v for k, v in self.structured.items() if k != self.prose_from}

    def text(self) -> str:
        return self.prose if self.prose is not None else WIRE_ENCODER.encode(self.structured)
