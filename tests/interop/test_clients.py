"""Real MCP clients against both reference servers over stdio and streamable HTTP: every rejection
must reach the caller as the whole envelope, as a result, never as an exception in the client.

The clients are the TypeScript SDK 1.x and 2.x (run by Node 22), the Python SDK 1.x and 2.x, and
the MCP Inspector CLI; see tests/interop/interop.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from drivable.contract.envelope import ENVELOPE_META_KEY
from tests.interop.interop import (
    CLIENTS,
    INSPECTED,
    SERVERS,
    TRANSPORTS,
    Run,
    model_view,
    problems,
)
from tests.interop.plans import Step

TOOLS = {
    "caselaw": {"search_decisions", "get_decision", "list_courts", "summarize_decisions"},
    "billing": {
        "list_customers",
        "find_invoices",
        "get_invoice",
        "create_invoice",
        "update_invoice",
        "refund_invoice",
        "void_invoice",
    },
}

RunOf = Callable[[str, str, str], Run]


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_every_rejection_reaches_the_client_whole(
    run_of: RunOf, client: str, transport: str, server: str
) -> None:
    run = run_of(client, transport, server)
    assert run.out["connect"]["ok"], run.out["connect"]
    assert set(run.out["tools"]) == TOOLS[server]
    if CLIENTS[client][1] != "legacy":
        assert run.out.get("protocolVersion") in (CLIENTS[client][1], None), run.out
    failures = {
        step.id: found
        for step in run.steps
        if (found := problems(step, run.entry(step.id), run.out["tools"]))
    }
    assert not failures, json.dumps(failures, indent=1)
    # Every rejection class of the plan was exercised, not only the first few.
    codes = {model_view(run.entry(s.id)["result"])["code"] for s in run.steps if s.rejection}
    assert codes == {s.expect for s in run.steps if s.rejection}


def test_the_judge_passes_the_whole_envelope_and_nothing_less() -> None:
    """What counts as received whole: the envelope as text and in _meta, no structuredContent, no
    exception; each way of losing part of it is caught."""
    step = Step("x", "get_decision", {}, "not_found", repair=True)
    tools = ["get_decision", "search_decisions"]
    env = {
        "code": "not_found",
        "message": "No decision has the id 'dec_x'.",
        "hint": "Find it with search_decisions.",
        "issues": [],
        "repair": {"next_step": "search_first", "tool": "search_decisions", "arguments": {}},
        "temporary": False,
        "retry_after_ms": None,
        "request_id": "0123456789abcdef",
    }
    text = [{"type": "text", "text": json.dumps(env)}]
    whole = {"isError": True, "content": text, "_meta": {ENVELOPE_META_KEY: env}}
    assert problems(step, {"threw": False, "result": whole}, tools) == []
    losses: list[dict[str, Any]] = [
        {"threw": True, "error": {"message": "MCP error -32602: Structured content ..."}},
        {"threw": False, "result": {**whole, "structuredContent": env}},
        {"threw": False, "result": {"isError": True, "content": text}},  # _meta dropped
        {"threw": False, "result": {**whole, "content": [{"type": "text", "text": "not found"}]}},
        {"threw": False, "result": {**whole, "isError": False}},
    ]
    for lost in losses:
        assert problems(step, lost, tools), lost
    nameless = {**env, "hint": "Look it up first.", "repair": None}
    bare = {"isError": True, "content": [{"type": "text", "text": json.dumps(nameless)}]}
    bare["_meta"] = {ENVELOPE_META_KEY: nameless}
    assert len(problems(step, {"threw": False, "result": bare}, tools)) == 2  # no tool, no repair


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_inspector_cli_shows_the_envelope(run_of: RunOf, transport: str, server: str) -> None:
    run = run_of("inspector", transport, server)
    assert run.out["connect"]["ok"], run.out["connect"]
    assert set(run.out["tools"]) == TOOLS[server]
    tools = run.out["tools"]
    failures = {s.id: found for s in run.steps if (found := problems(s, run.entry(s.id), tools))}
    assert not failures, json.dumps(failures, indent=1)
    assert [s.id for s in run.steps] == list(INSPECTED[server])
