"""The catalog a client sees when it declares client capabilities (sampling, elicitation, roots).

The main session declares none, the least capable client. A server may list more (or fewer) tools
to a client that declares them: server-everything registers its sampling, elicitation and roots
tools only then. The audit lists the tools once more as a client declaring all three; when the
lists differ, once per capability alone, to say which tool needs which. No tool is called in
these sessions: the client's callbacks decline whatever the server asks (no sampling, no form
answered, no roots), so nothing leaves the machine.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp_types import INVALID_REQUEST, ElicitResult, ErrorData, ListRootsResult

from drivable.audit.model import Finding
from drivable.target import Target, connect, wire

CLIENT_CAPABILITIES = ("sampling", "elicitation", "roots")


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


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [str(t.get("name")) for t in tools]


async def compare(
    target: Target,
    bare: list[dict[str, Any]],
    declaring: list[dict[str, Any]] | BaseException,
    connect_timeout: float,
) -> CapabilityView:
    """Compare the bare list with the declaring one; attribute each extra tool to a capability."""
    view = CapabilityView(CLIENT_CAPABILITIES)
    if isinstance(declaring, BaseException):
        view.status, view.reason = "failed", f"{type(declaring).__name__}"
        return view
    bare_names = set(_names(bare))
    declared_names = set(_names(declaring))
    view.extra = [t for t in declaring if str(t.get("name")) not in bare_names]
    view.missing = sorted(bare_names - declared_names)
    if not view.extra:
        return view
    alone: dict[str, set[str]] = {}

    async def one(capability: str) -> None:
        try:
            alone[capability] = set(
                _names(await list_tools_declaring(target, (capability,), connect_timeout))
            )
        except Exception:  # attribution is best effort; the difference itself is established
            alone[capability] = set()

    async with anyio.create_task_group() as tg:
        for capability in CLIENT_CAPABILITIES:
            tg.start_soon(one, capability)
    for name in _names(view.extra):
        needed = [c for c in CLIENT_CAPABILITIES if name in alone.get(c, set())]
        # Listed under all three together but under none alone: it needs them combined.
        view.needs[name] = needed or ["+".join(CLIENT_CAPABILITIES)]
    return view


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
    try:
        declaring: list[dict[str, Any]] | BaseException = await list_tools_declaring(
            target, CLIENT_CAPABILITIES, connect_timeout
        )
    except Exception as exc:  # the comparison fails alone; the audit goes on
        declaring = exc
    await listed.ready.wait()
    if listed.tools is None:
        return None
    return await compare(target, listed.tools, declaring, connect_timeout)
