"""The upstream's resources, templates and prompts, served through the wrapper: listed as the
upstream lists them, read and rendered upstream with every body kept, and every upstream failure
a clean MCP error carrying the envelope, with nothing of a trace or of the server's paths."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError

from drivable.target import Target, connect
from tests.wrap.conftest import calls_logged, own_upstream, wrapped

READS = ["notes://all", "notes://note/n1", "files:///docs/a.txt", "notes://pair"]


async def test_resources_and_prompts_are_served_as_the_upstream_serves_them(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    async with connect(Target(command=tuple(own_upstream()))) as direct:
        expected = [(await direct.read_resource(uri)).contents for uri in READS]
        expected_prompt = await direct.get_prompt("summarize_note", {"note_id": "n1"})
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}) as client:
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        templates = {
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        }
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        read = [(await client.read_resource(uri)).contents for uri in READS]
        rendered = await client.get_prompt("summarize_note", {"note_id": "n1"})
    assert listed == {"notes://all", "notes://pair", "notes://broken"}
    assert templates == {"notes://note/{note_id}", "files:///{+path}"}
    assert [a.name for a in prompts["summarize_note"].arguments or []] == ["note_id"]
    # every body, under its own URI, as the upstream answered it
    assert [_dump(c) for c in read] == [_dump(c) for c in expected]
    assert [m.model_dump() for m in rendered.messages] == [
        m.model_dump() for m in expected_prompt.messages
    ]
    assert [c["tool"] for c in calls_logged(log)] == ["resources/read"] * 4 + ["prompts/get"]


def _dump(contents: Sequence[Any]) -> list[dict[str, Any]]:
    return [c.model_dump() for c in contents]


@pytest.mark.parametrize(
    ("request_kind", "target", "code"),
    [
        ("read", "notes://broken", "internal_error"),
        ("read", "notes://none", "not_found"),
        ("prompt", "broken_prompt", "internal_error"),
    ],
)
async def test_an_upstream_failure_is_a_clean_mcp_error(
    tmp_path: Path, request_kind: str, target: str, code: str
) -> None:
    async with wrapped(own_upstream(), tmp_path) as client:
        with pytest.raises(MCPError) as raised:
            if request_kind == "read":
                await client.read_resource(target)
            else:
                await client.get_prompt(target, {})
    data = raised.value.error.data
    assert isinstance(data, dict) and data["machine_code"] == code
    said = str(raised.value.error.message) + str(data)
    for leak in ("Traceback", "/srv/app", ".py", "KeyError"):
        assert leak not in said
