"""`drivable wrap` in front of real third-party servers, pinned and installed by the suite
(tests/audit/audit_thirdparty.py, into var/thirdparty; installed on first use like the auditor's
tests). Deselect with `-m 'not thirdparty'`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.audit_thirdparty import npm_server_command, python_server
from tests.audit.conftest import SERVERS
from tests.wrap.conftest import closed_everywhere, ok, refused, wrapped

pytestmark = pytest.mark.thirdparty


async def test_memory_server(tmp_path: Path) -> None:
    env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    entity = {"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}
    async with wrapped(npm_server_command("memory"), tmp_path, env=env) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(closed_everywhere(t.input_schema) for t in tools.values())
        assert "idempotency_key" in tools["create_entities"].input_schema["required"]
        created = await ok(
            client, "create_entities", {"entities": [entity], "idempotency_key": "ada-entity-1"}
        )
        replayed = await ok(
            client, "create_entities", {"entities": [entity], "idempotency_key": "ada-entity-1"}
        )
        assert replayed["result"] == created["result"]
        preview = await ok(client, "delete_entities", {"entityNames": ["Ada"], "dry_run": True})
        assert preview["would_send"] == {"entityNames": ["Ada"]}
        still = await ok(client, "read_graph", {})
        assert [e["name"] for e in still["result"]["entities"]] == ["Ada"]
        # one observation spelled at the top level, no key (decisions 0044 and 0048): the repair
        # nests it as the one item of `observations` and mints a key; sent as is, it is added
        flat = {"entityName": "Ada", "contents": ["moved to Brno"]}
        nested = await refused(client, "add_observations", flat)
        repair = dict(nested["repair"]["arguments"])
        assert repair.pop("idempotency_key") and repair == {"observations": [flat]}
        await ok(client, "add_observations", nested["repair"]["arguments"])
        added = await ok(client, "read_graph", {})
        assert added["result"]["entities"][0]["observations"] == ["wrote notes", "moved to Brno"]
        await ok(client, "delete_entities", preview["next_call"]["arguments"])
        gone = await ok(client, "read_graph", {})
    assert gone["result"]["entities"] == []


async def test_memory_servers_not_found_leads_to_its_search(tmp_path: Path) -> None:
    # decision 0059: "Entity with name Grace not found" quotes the name sent; the repair is the
    # server's own search for it, which finds the entity by its full name
    env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    grace = {"name": "Grace Hopper", "entityType": "person", "observations": ["admiral"]}
    async with wrapped(npm_server_command("memory"), tmp_path, env=env) as client:
        await ok(client, "create_entities", {"entities": [grace], "idempotency_key": "grace-1"})
        item = {"entityName": "Grace", "contents": ["wrote a compiler"]}
        missing = await refused(
            client, "add_observations", {"observations": [item], "idempotency_key": "grace-2"}
        )
        assert missing["code"] == "not_found", missing
        assert missing["issues"][0]["path"] == "observations.0.entityName"
        assert missing["repair"] == {
            "tool": "search_nodes",
            "arguments": {"query": "Grace"},
            "next_step": "look_the_id_up_first",
        }
        found = await ok(client, missing["repair"]["tool"], missing["repair"]["arguments"])
    assert [e["name"] for e in found["result"]["entities"]] == ["Grace Hopper"]


async def test_filesystem_server(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    command = [*npm_server_command("filesystem"), str(root)]
    async with wrapped(command, tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(closed_everywhere(t.input_schema) for t in tools.values())
        read = await ok(client, "read_text_file", {"path": str(root / "a.txt")})
        # a folder is read by listing it: the repair is list_directory with the path as sent
        folder = await refused(client, "read_directory", {"path": str(root)})
        assert folder["repair"]["tool"] == "list_directory"
        assert folder["repair"]["arguments"]["path"] == str(root)
        missing = await refused(client, "read_text_file", {"path": str(root / "none.txt")})
        outside = await refused(client, "read_text_file", {"path": "/etc/hostname"})
        new = {"path": str(root / "b.txt"), "content": "beta"}
        asked = await refused(client, "write_file", new)  # no token: its dry run, refused
        assert asked["code"] == "confirmation_required"
        assert asked["details"]["preview"]["would_send"] == new
        assert not (root / "b.txt").exists()  # the dry run did not reach the server
        await ok(client, "write_file", asked["repair"]["arguments"])
    assert "alpha" in str(read)
    assert missing["code"] == "not_found" and "list_directory" in missing["hint"]
    assert [i["path"] for i in missing["issues"]] == ["path"]
    assert outside["code"] == "upstream_refused"
    assert (root / "b.txt").read_text(encoding="utf-8") == "beta"


async def test_everything_server(tmp_path: Path) -> None:
    async with wrapped(npm_server_command("everything"), tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "get-sum" in tools and all(closed_everywhere(t.input_schema) for t in tools.values())
        summed = await ok(client, "get-sum", {"a": "4 000", "b": 2})
        image = await client.call_tool("get-tiny-image", {})
        unknown = await refused(client, "echo", {"message": "hi", "volume": 3})
    assert "4002" in str(summed)
    assert any("4 000" in note for note in summed["notes"])
    assert not image.is_error and any(b.type == "image" for b in image.content)
    assert unknown["code"] == "invalid_arguments"


async def test_fastmcp_server(tmp_path: Path) -> None:
    venv = python_server("fastmcp")
    command = [str(venv / "bin" / "python"), str(SERVERS / "fastmcp_notes.py")]
    # Its tools carry no annotations: each is a keyed write until the config says otherwise.
    config = (
        '[tools.search_notes]\neffects = "read_only"\n[tools.get_note]\neffects = "read_only"\n'
    )
    async with wrapped(command, tmp_path, config=config) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(closed_everywhere(t.input_schema) for t in tools.values())
        assert "idempotency_key" in tools["delete_note"].input_schema["required"]
        assert "idempotency_key" not in tools["search_notes"].input_schema["properties"]
        found = await ok(client, "search_notes", {"query": "tax", "limit": "5"})
        missing = await refused(client, "get_note", {"note_id": "n9"})
    assert found["result"]
    assert missing["code"] in ("not_found", "internal_error", "upstream_refused")
    assert "Traceback" not in str(missing)
