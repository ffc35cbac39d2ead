"""The contract on the real wire: stdio and HTTP subprocesses, both protocol eras, the SDK's client.

Every test runs four times: stdio and HTTP, `mode="auto"` (2026-07-28) and `mode="legacy"`
(the 2025-11-25 handshake).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import jsonschema
from mcp import Client

from drivable.contract import NAMESPACE, envelope_of
from tests.contract.example_server import contract as example_contract

BOUND = 90.0  # seconds: no test waits longer than this

EXAMPLE_TOOLS = {"search_notes", "get_note", "check_failure"}


def closed_everywhere(schema: Any) -> None:
    """Every object schema, at every level (including $defs), is closed."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            assert schema.get("additionalProperties") is False, schema
        for value in schema.values():
            closed_everywhere(value)
    elif isinstance(schema, list):
        for value in schema:
            closed_everywhere(value)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        # No structuredContent on an error (TypeScript SDK 1.x clients would validate it against
        # the outputSchema and throw); the envelope travels in _meta and as the text.
        assert result.structured_content is None
        structured = (result.meta or {}).get("dev.drivable/envelope")
    else:
        structured = result.structured_content
    assert isinstance(structured, dict)
    # The JSON text mirror, for clients that read only content.
    assert result.content[0].type == "text"
    assert json.loads(result.content[0].text) == structured
    return bool(result.is_error), structured


def assert_envelope(envelope: dict[str, Any], code: str) -> None:
    assert envelope["code"] == code, envelope
    for key in ("message", "hint", "issues", "temporary", "retry_after_ms", "request_id"):
        assert key in envelope, key
    assert envelope["hint"].strip()
    assert envelope["request_id"]


async def test_tools_list_is_strict_and_described(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            listed = (await client.list_tools()).tools
            names = {t.name for t in listed}
            assert names >= EXAMPLE_TOOLS
            # deterministic: the order the tools were declared (discovery first), every time; over
            # HTTP serve_app declares more tools after the example's
            declared = list(example_contract.tools)
            assert [t.name for t in listed][: len(declared)] == declared
            again = (await client.list_tools()).tools
            assert [t.name for t in again] == [t.name for t in listed]
            for tool in listed:
                wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                closed_everywhere(wire["inputSchema"])
                assert wire["outputSchema"]["type"] == "object"
                hints = wire["annotations"]
                for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
                    assert isinstance(hints.get(hint), bool), (tool.name, hint)
                meta = wire["_meta"]
                assert meta[f"{NAMESPACE}/lifecycle"]["stability"] in {
                    "stable",
                    "preview",
                    "experimental",
                }
                codes = set(meta[f"{NAMESPACE}/errors"])
                assert {"invalid_arguments", "internal_error"} <= codes
            get_note = next(t for t in listed if t.name == "get_note")
            get_codes = set(get_note.meta[f"{NAMESPACE}/errors"])
            assert "not_found" in get_codes


async def test_success_conforms_and_carries_notes(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            failed, out = await call(
                client, "search_notes", {"query": "note", "date_from": "2026", "limit": 3}
            )
            assert not failed, out
            jsonschema.validate(out, listed["search_notes"].output_schema)
            assert len(out["results"]) == 3
            assert out["has_more"] is True
            assert any("Read '2026' as 2026-01-01." in note for note in out["notes"])


async def test_schema_rejection_happens_before_the_handler(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client(app=True) as client:
            await call(client, "list_count_events", {"clear": True})
            failed, env = await call(client, "count_slowly", {"steps": 5000, "delay_ms": 0})
            assert failed
            assert_envelope(env, "invalid_arguments")
            assert [i["path"] for i in env["issues"]] == ["steps"]
            assert env["issues"][0]["received"] == 5000
            _, events = await call(client, "list_count_events", {"clear": True})
            assert events["events"] == []  # the handler never ran


async def test_unknown_property_has_a_callable_near_miss_repair(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            failed, env = await call(
                client, "search_notes", {"query": "note", "date-from": "2026-01-01"}
            )
            assert failed
            assert_envelope(env, "invalid_arguments")
            issue = env["issues"][0]
            assert issue["path"] == "date-from"
            assert issue["code"] == "unknown_property"
            assert "date_from" in issue["message"]
            repair = env["repair"]
            assert repair["tool"] == "search_notes"
            assert repair["arguments"] == {"query": "note", "date_from": "2026-01-01"}
            # Literally callable: send it as it is.
            failed, out = await call(client, repair["tool"], repair["arguments"])
            assert not failed, out


async def test_ambiguous_date_asks_with_both_readings(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            failed, env = await call(
                client, "search_notes", {"query": "note", "date_from": "01/02/2026"}
            )
            assert failed
            assert_envelope(env, "invalid_arguments")
            issue = env["issues"][0]
            assert issue["code"] == "ambiguous_date"
            assert issue["received"] == "01/02/2026"
            assert sorted(issue["readings"]) == ["2026-01-02", "2026-02-01"]
            assert "2026-01-02" in env["hint"] and "2026-02-01" in env["hint"]
            assert "repair" not in env  # the model must choose; nothing is guessed


async def test_domain_error_names_the_lookup(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            failed, env = await call(client, "get_note", {"note_id": "note_999"})
            assert failed
            assert_envelope(env, "not_found")
            assert env["repair"]["tool"] == "search_notes"
            failed, out = await call(client, env["repair"]["tool"], env["repair"]["arguments"])
            assert not failed, out


async def test_unexpected_exception_discloses_nothing(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            result = await client.call_tool("check_failure", {"flag": True})
            assert result.is_error
            env = envelope_of(result)
            assert isinstance(env, dict)
            assert_envelope(env, "internal_error")
            assert env["request_id"] in env["hint"]
            assert env["temporary"] is True
            wire = json.dumps(result.model_dump(by_alias=True, mode="json")).lower()
            for leak in (
                "sqlite",
                "/srv",
                "notes.sqlite",
                "operationalerror",
                "runtimeerror",
                "no such table",
                "traceback",
                "example_server",
            ):
                assert leak not in wire, leak
            # The server keeps answering.
            failed, _ = await call(client, "get_note", {"note_id": "note_1"})
            assert not failed


async def test_unknown_tool_names_the_nearest(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            failed, env = await call(client, "search_note", {"query": "note"})
            assert failed
            assert_envelope(env, "unknown_tool")
            assert "search_notes" in env["hint"]
            assert env["repair"] == {
                "next_step": "call_nearest_tool",
                "tool": "search_notes",
                "arguments": {"query": "note"},
            }


async def test_oversized_arguments_are_refused_with_the_limit(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client() as client:
            # Over the inline bound but within the HTTP body bound: the runtime refuses it by name.
            failed, env = await call(client, "search_notes", {"query": "x" * 270_000})
            assert failed
            assert_envelope(env, "payload_too_large")
            assert env["details"]["limit_bytes"] == 256 * 1024
            assert "reference" in env["hint"]
            for word in ("shorten", "shrink", "truncate", "summari"):
                assert word not in env["hint"].lower()
