"""Resources, templates, completion and prompts over the real SDK client's serialized path."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from drivable.contract import Contract, envelope_of
from drivable.serve import build_server


def client(contract: Contract, mode: str = "legacy") -> Client:
    return Client(build_server(contract), mode=mode, cache=None)


def body(result: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    content = result.contents[0]
    return json.loads(content.text), content.meta


async def test_the_catalog_lists_the_summary_and_both_templates(caselaw: Contract) -> None:
    async with client(caselaw) as c:
        resources = (await c.list_resources()).resources
        templates = (await c.list_resource_templates()).resource_templates
        assert [str(r.uri) for r in resources] == ["caselaw://summary"]
        assert [t.uri_template for t in templates] == [
            "caselaw://decisions/{decision_id}",
            "caselaw://decisions/{decision_id}/chunks/{chunk_id}",
        ]
        assert all(t.title and t.description and t.mime_type for t in templates)
        summary, _ = body(await c.read_resource("caselaw://summary"))
        assert summary["data"]["decisions"] == 5000
        assert summary["tools"] == [
            "search_decisions",
            "get_decision",
            "list_courts",
            "summarize_decisions",
        ]  # as declared
        assert summary["does_not"]


async def test_the_index_comes_before_the_body_and_chunks_chain_to_the_end(
    caselaw: Contract,
) -> None:
    async with client(caselaw) as c:
        found = await c.call_tool("search_decisions", {"query": "soud", "limit": 1})
        row = found.structured_content["results"][0]
        index, meta = body(await c.read_resource(row["uri"]))
        assert index["summary"] and "text" not in json.dumps(index["chunks"][0])
        assert meta is not None and meta["dev.drivable/chunks"] == index["chunks"]
        texts = []
        uri: str | None = index["chunks"][0]["uri"]
        while uri:
            chunk, _ = body(await c.read_resource(uri))
            texts.append(chunk["text"])
            uri = chunk["next_chunk_uri"]
        assert chunk["next_chunk_id"] is None
        full = await c.call_tool(
            "get_decision", {"decision_id": row["decision_id"], "detail": "full"}
        )
        chunks = full.structured_content["decision"]["chunks"]
        assert texts == [x["text"] for x in chunks]
        # A chunk is reachable without reading the ones before it (N+1 without N).
        last, _ = body(await c.read_resource(index["chunks"][-1]["uri"]))
        assert last["text"] == texts[-1]


async def test_missing_resources_are_jsonrpc_errors_with_the_envelope(caselaw: Contract) -> None:
    async with client(caselaw) as c:
        with pytest.raises(MCPError) as caught:
            await c.read_resource("caselaw://decisions/dec_nosuchthing")
        data = caught.value.error.data
        assert data["machine_code"] == "not_found"
        assert data["repair"]["tool"] == "search_decisions"
        found = await c.call_tool("search_decisions", {"limit": 1})
        decision_id = found.structured_content["results"][0]["decision_id"]
        with pytest.raises(MCPError) as caught:
            await c.read_resource(f"caselaw://decisions/{decision_id}/chunks/c99")
        assert caught.value.error.data["machine_code"] == "not_found"
        assert f"caselaw://decisions/{decision_id}" in caught.value.error.data["hint"]


async def test_decision_ids_complete(caselaw: Contract) -> None:
    async with client(caselaw, mode="auto") as c:
        ref = types.ResourceTemplateReference(
            type="ref/resource", uri="caselaw://decisions/{decision_id}"
        )
        done = await c.complete(ref, {"name": "decision_id", "value": "dec_a"})
        values = done.completion.values
        assert values and all(v.startswith("dec_a") for v in values)


async def test_prompts_name_real_tools_and_render(caselaw: Contract) -> None:
    async with client(caselaw) as c:
        prompts = (await c.list_prompts()).prompts
        assert [p.name for p in prompts] == ["read_decision_by_case_number", "research_case_law"]
        for prompt in prompts:
            assert (prompt.description or "").startswith("Use when")
            followups = prompt.meta["dev.drivable/expected-followups"]  # type: ignore[index]
            assert set(followups) <= set(caselaw.tools)
        rendered = await c.get_prompt(
            "read_decision_by_case_number", {"case_number": "21 Cdo 1096/2021"}
        )
        text = rendered.messages[0].content.text  # type: ignore[union-attr]
        assert "get_decision" in text and "21 Cdo 1096/2021" in text


async def test_the_serialized_path_carries_notes_warnings_and_envelopes(caselaw: Contract) -> None:
    async with client(caselaw) as c:
        out = await c.call_tool(
            "search_decisions", {"court": "supreme court", "cursor": "0", "limit": "4 000"}
        )
        assert not out.is_error
        data = out.structured_content
        assert data is not None and json.loads(out.content[0].text) == data  # type: ignore[union-attr]
        assert any("Nejvyšší soud" in n for n in data["notes"])
        bad = await c.call_tool("search_decisions", {"date_to": "01/02/2026"})
        assert bad.is_error and envelope_of(bad)["issues"][0]["code"] == "ambiguous_date"  # type: ignore[index]
