"""Resources, templates and prompts over the serialized path of the real SDK client."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from drivable.serve import build_server
from tests.contract.example_server import contract

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])


def _client(mode: str) -> Client:
    return Client(build_server(contract), mode=mode, cache=None)


@MODES
async def test_resources_and_templates_are_listed_in_a_stable_order(mode: str) -> None:
    async with _client(mode) as client:
        await _test_resources_and_templates_are_listed_in_a_stable_order(client)


async def _test_resources_and_templates_are_listed_in_a_stable_order(client: Client) -> None:
    resources = (await client.list_resources()).resources
    templates = (await client.list_resource_templates()).resource_templates
    assert [str(r.uri) for r in resources] == ["notes://summary"]
    assert [t.uri_template for t in templates] == ["notes://notes/{note_id}"]
    assert all(r.title and r.description and r.mime_type for r in resources)


@MODES
async def test_a_template_reads_one_record(mode: str) -> None:
    async with _client(mode) as client:
        await _test_a_template_reads_one_record(client)


async def _test_a_template_reads_one_record(client: Client) -> None:
    result = await client.read_resource("notes://notes/note_3")
    body = json.loads(result.contents[0].text)  # type: ignore[union-attr]
    assert body["id"] == "note_3"


@MODES
async def test_a_missing_resource_is_a_jsonrpc_error_with_the_renamed_envelope(mode: str) -> None:
    async with _client(mode) as client:
        # 2025-11-25 names resource-not-found -32002; 2026-07-28 made it -32602 (SEP-2164).
        await _missing(client, -32002 if mode == "legacy" else -32602)


async def _missing(client: Client, expected_code: int) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource("notes://notes/note_999")
    error = caught.value.error
    assert error.code == expected_code
    data = error.data
    assert data["machine_code"] == "not_found"
    assert data["human_message"] == "No note has the id note_999."
    assert data["resource_uri"] == "notes://notes/note_999"
    assert data["repair"]["tool"] == "search_notes"
    assert "code" not in data and "message" not in data


@MODES
async def test_prompts_name_their_tools_and_when_to_use_them(mode: str) -> None:
    async with _client(mode) as client:
        await _test_prompts_name_their_tools_and_when_to_use_them(client)


async def _test_prompts_name_their_tools_and_when_to_use_them(client: Client) -> None:
    prompts = (await client.list_prompts()).prompts
    (prompt,) = prompts
    meta = prompt.meta or {}
    assert meta["dev.drivable/expected-followups"] == ["search_notes", "get_note"]
    assert "remember" in meta["dev.drivable/when-to-use"]
    rendered = await client.get_prompt("find_a_note", {"words": "budget"})
    text = rendered.messages[0].content.text  # type: ignore[union-attr]
    assert "search_notes" in text and '"budget"' in text


def test_a_prompt_naming_an_unknown_tool_is_refused_at_mount() -> None:
    from drivable.contract import Contract, ContractError, Summary

    broken = Contract("b", version="1", summary=Summary(text="t", does=["t"], does_not=["u"]))

    @broken.prompt(
        name="p", title="P", description="d", when_to_use="w", followups=["no_such_tool"]
    )
    async def render() -> str:
        return ""

    with pytest.raises(ContractError, match="no_such_tool"):
        build_server(broken)
