"""The catalog a client sees when it declares client capabilities (sampling, elicitation, roots).

The main session declares none, the least capable client. A server may list more (or fewer) tools
to a client that declares them: server-everything registers its sampling, elicitation and roots
tools only then, and two more only to a client that also runs its requests as tasks. The audit
lists the tools once more as a client declaring them all; when the lists differ, once per
capability alone, to say which tool needs which. No tool is called in these sessions: the client
declines whatever the server asks (no sampling, no form answered, no roots), so nothing leaves the
machine.

A stdio server is listed by the raw handshake of `stdio_probe`, which the audit runs anyway to
read stdout: the capable listing costs no extra start of the server, and that handshake can also
declare `tasks`, which the SDK client cannot. Other targets are listed by the SDK client, which
declares sampling, elicitation and roots.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.client.stdio import get_default_environment
from mcp_types import INVALID_REQUEST, ElicitResult, ErrorData, ListRootsResult

from drivable.audit.model import Finding
from drivable.audit.stdio_probe import DECLARATIONS, StdoutReport, probe_stdout
from drivable.target import Target, connect, wire

CLIENT_CAPABILITIES = ("sampling", "elicitation", "roots")  # what the SDK client can declare
HANDSHAKE_CAPABILITIES = tuple(DECLARATIONS)  # what the raw handshake declares

# Lists every tool as a client declaring the named capabilities.
Lister = Callable[[Sequence[str]], Awaitable[list[dict[str, Any]]]]


async def _decline_sampling(_context: Any, _params: Any) -> ErrorData:
    return ErrorData(code=INVALID_REQUEST, message="the auditing client runs no model")


async def _decline_elicitation(_context: Any, _params: Any) -> ElicitResult:
    return ElicitResult(action="decline")


async def _no_roots(_context: Any) -> ListRootsResult:
    return ListRootsResult(roots=[])


CALLBACKS: dict[str, tuple[str, Any]] = {
    "sampling": ("sampling_callback", _decline_sampling),
    "elicitation": ("elicitation_callback", _decline_elicitation),
    "roots": ("list_roots_callback", _no_roots),
}


async def list_tools_declaring(
    target: Target, declared: Sequence[str], connect_timeout: float
) -> list[dict[str, Any]]:
    """`tools/list` (every page) as a client that declares the named client capabilities."""
    callbacks = {CALLBACKS[c][0]: CALLBACKS[c][1] for c in declared}
    tools: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog,
        anyio.fail_after(connect_timeout),
    ):
        async with connect(
            target, errlog=errlog, read_timeout_seconds=connect_timeout, **callbacks
        ) as client:
            cursor: str | None = None
            for _ in range(1000):
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
                tools.extend(wire(t) for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
    return tools


async def handshake(
    target: Target, declared: Sequence[str], connect_timeout: float
) -> StdoutReport:
    """The raw stdio handshake (a fresh start of the server) declaring `declared`."""
    env = dict(get_default_environment())
    env.update(target.env)
    return await anyio.to_thread.run_sync(
        lambda: probe_stdout(
            target.command, env, cwd=target.cwd, timeout=connect_timeout, capabilities=declared
        )
    )


def lister_of(target: Target, connect_timeout: float) -> Lister:
    """How the audit lists `target`'s tools as a capable client: the raw handshake for a stdio
    server, the SDK client otherwise."""

    async def by_handshake(declared: Sequence[str]) -> list[dict[str, Any]]:
        report = await handshake(target, declared, connect_timeout)
        if report.tools is None:
            raise RuntimeError("the handshake got no complete tool list")
        return report.tools

    async def by_sdk(declared: Sequence[str]) -> list[dict[str, Any]]:
        return await list_tools_declaring(target, declared, connect_timeout)

    return by_handshake if target.command else by_sdk


@dataclass
class CapabilityView:
    """What declaring client capabilities changed in the tool list."""

    declared: tuple[str, ...]
    status: str = "ok"
    reason: str = ""
    extra: list[dict[str, Any]] = field(default_factory=list)  # tools listed only when declaring
    missing: list[str] = field(default_factory=list)  # tools listed only to the bare client
    needs: dict[str, list[str]] = field(default_factory=dict)  # extra tool -> capabilities

    @property
    def differs(self) -> bool:
        return bool(self.extra or self.missing)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"declared": list(self.declared), "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.status == "ok":
            out["same_tools"] = not self.differs
        if self.extra:
            out["only_when_declared"] = self.needs
        if self.missing:
            out["only_when_not_declared"] = self.missing
        return out


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [str(t.get("name")) for t in tools]


async def compare(
    bare: list[dict[str, Any]],
    declaring: list[dict[str, Any]] | BaseException,
    declared: tuple[str, ...],
    lister: Lister,
) -> CapabilityView:
    """Compare the bare list with the one a client declaring `declared` got, and attribute each
    extra tool: it needs the capabilities without which it is not listed (`lister`, once per
    capability left out), which also tells a tool needing two at once (sampling and tasks). A
    tool that every single omission still lists takes any one of them: those that list it alone."""
    view = CapabilityView(declared)
    if isinstance(declaring, BaseException):
        view.status, view.reason = "failed", f"{type(declaring).__name__}"
        return view
    bare_names = set(names(bare))
    declared_names = set(names(declaring))
    view.extra = [t for t in declaring if str(t.get("name")) not in bare_names]
    view.missing = sorted(bare_names - declared_names)
    if not view.extra:
        return view
    without = await _listed_by_each(lister, {c: [d for d in declared if d != c] for c in declared})
    for name in names(view.extra):
        view.needs[name] = [c for c in declared if name not in without.get(c, {name})]
    if any(not needed for needed in view.needs.values()):
        alone = await _listed_by_each(lister, {c: [c] for c in declared})
        for name, needed in view.needs.items():
            if not needed:
                either = " or ".join(c for c in declared if name in alone.get(c, ()))
                view.needs[name] = [either or "+".join(declared)]
    return view


async def _listed_by_each(
    lister: Lister, declarations: dict[str, list[str]]
) -> dict[str, set[str]]:
    """The tool names listed under each declaration, by its key; a failed listing is left out
    (its tools then count as listed: no capability is blamed on a listing that failed)."""
    out: dict[str, set[str]] = {}

    async def one(key: str, declared: list[str]) -> None:
        # attribution is best effort; the difference itself is established
        with contextlib.suppress(Exception):
            out[key] = set(names(await lister(declared)))

    async with anyio.create_task_group() as tg:
        for key, declared in declarations.items():
            tg.start_soon(one, key, declared)
    return out


def findings_of(view: CapabilityView) -> list[Finding]:
    if view.status != "ok" or not view.differs:
        return []
    parts = [f"`{tool}` ({', '.join(caps)})" for tool, caps in view.needs.items()]
    summary = []
    if parts:
        summary.append(
            f"{len(parts)} tool(s) are listed only to a client that declares client capabilities: "
            + ", ".join(parts)
            + "."
        )
    if view.missing:
        summary.append(
            f"{len(view.missing)} tool(s) disappear when the client declares them: "
            + ", ".join(f"`{t}`" for t in view.missing)
            + "."
        )
    by_capability: dict[str, list[str]] = {}
    for tool, caps in view.needs.items():
        for cap in caps:
            by_capability.setdefault(cap, []).append(tool)
    return [
        Finding(
            "1.negotiated-caps",
            "minor",
            "server",
            " ".join(summary)
            + " A model on a client without them never learns these tools exist or what it lacks.",
            {
                "declared": list(view.declared),
                "only_when_declared": by_capability,
                "only_when_not_declared": view.missing,
            },
            "List every tool to every client; when a call needs a capability the client did not "
            "declare, answer JSON-RPC -32021 with `data.requiredCapabilities` and name the "
            "fallback (or say in the description which capability the tool needs).",
        )
    ]


class Listed:
    """The main session's tool list, handed over as soon as it has it (None: there will be none),
    so the comparison runs while the main session probes."""

    def __init__(self) -> None:
        self.tools: list[dict[str, Any]] | None = None
        self.ready = anyio.Event()

    def give(self, tools: list[dict[str, Any]] | None) -> None:
        if not self.ready.is_set():
            self.tools = tools
            self.ready.set()


async def view_when_listed(
    target: Target, listed: Listed, connect_timeout: float
) -> CapabilityView | None:
    """The SDK client's view (targets that are not stdio commands): list as a capable client while
    the main session probes, then compare with the main session's list."""
    try:
        declaring: list[dict[str, Any]] | BaseException = await list_tools_declaring(
            target, CLIENT_CAPABILITIES, connect_timeout
        )
    except Exception as exc:  # the comparison fails alone; the audit goes on
        declaring = exc
    await listed.ready.wait()
    if listed.tools is None:
        return None
    return await compare(
        listed.tools, declaring, CLIENT_CAPABILITIES, lister_of(target, connect_timeout)
    )
