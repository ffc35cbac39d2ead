"""§7 static rules: task declarations against the advertised extension and the description."""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import given
from hypothesis import strategies as st

from drivable.audit.rules import REGISTRY, s7_long_running
from drivable.audit.rules.base import StaticContext
from drivable.serve.mount import build_server
from drivable.servers.caselaw.server import contract
from drivable.target import Target, connect, wire

EXTENSION = "io.modelcontextprotocol/tasks"
SAYS_LONG = "Tally everything. Long-running (usually seconds); stopped after 2 min."
SAYS_NOTHING = "Tally everything a search matches, then read single decisions with get_decision."


def tool(
    description: str, *, execution: str | None = None, meta: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": "summarize", "description": description}
    if execution is not None:
        out["execution"] = {"taskSupport": execution}
    if meta is not None:
        out["_meta"] = {"dev.drivable/task": {"support": meta}}
    return out


def findings(
    tools: list[dict[str, Any]], extensions: dict[str, Any] | None
) -> set[tuple[str, str]]:
    capabilities = {"tools": {}} if extensions is None else {"tools": {}, "extensions": extensions}
    ctx = StaticContext({"tools": tools, "capabilities": capabilities})
    return {(f.rule, f.severity) for f in s7_long_running.check(ctx)}


support = st.sampled_from(["optional", "required"])


@given(support=support, via_meta=st.booleans(), says=st.booleans(), advertised=st.booleans())
def test_a_task_tool_needs_the_extension_and_a_description_that_says_it_is_long(
    support: str, via_meta: bool, says: bool, advertised: bool
) -> None:
    declared = tool(
        SAYS_LONG if says else SAYS_NOTHING,
        execution=None if via_meta else support,
        meta=support if via_meta else None,
    )
    found = findings([declared], {EXTENSION: {}} if advertised else {})
    expected = set()
    if not advertised:
        expected.add(("7.task-support", "critical" if support == "required" else "major"))
    if not says:
        expected.add(("7.declare-duration", "minor"))
    assert found == expected
    for rule, severity in found:
        assert REGISTRY[rule].doc is not None and REGISTRY[rule].doc.allows(severity)  # type: ignore[union-attr]


@given(st.sampled_from([None, "forbidden", "", "yes"]))
def test_a_tool_that_declares_no_task_support_is_not_judged_here(value: str | None) -> None:
    assert findings([tool(SAYS_NOTHING, execution=value)], None) == set()


def test_caselaw_long_running_tool_passes_both_rules() -> None:
    async def listed() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        server = build_server(contract)  # the session opens its lifespan
        async with connect(Target(server=server)) as client:
            page = await client.list_tools()
            return [wire(t) for t in page.tools], wire(client.server_capabilities)

    tools, capabilities = anyio.run(listed)
    assert any(s7_long_running.task_support(t) for t in tools)
    ctx = StaticContext({"tools": tools, "capabilities": capabilities})
    assert list(s7_long_running.check(ctx)) == []


def test_the_handshake_eras_core_tasks_capability_counts_as_advertised() -> None:
    # server-everything 2026.8.31 over 2025-11-25: tasks in the protocol, not the extension
    core: dict[str, Any] = {
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    }
    ctx = StaticContext({"tools": [tool(SAYS_LONG, execution="required")], "capabilities": core})
    assert list(s7_long_running.check(ctx)) == []
    without_calls: dict[str, Any] = {"tasks": {"list": {}, "requests": {}}}
    ctx = StaticContext(
        {"tools": [tool(SAYS_LONG, execution="required")], "capabilities": without_calls}
    )
    assert {f.rule for f in s7_long_running.check(ctx)} == {"7.task-support"}
