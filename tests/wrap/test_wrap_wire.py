"""`drivable wrap` in front of tests/wrap/upstream_server.py, every call read back from the
upstream's own log: what reached it, and what never did."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from drivable.contract.stages.effects import PREVIEW_NOTE
from drivable.target import Target, connect
from tests.wrap.conftest import (
    calls_logged,
    closed_everywhere,
    ok,
    own_upstream,
    refused,
    wrap_command,
    wrapped,
)


async def test_the_listing_is_closed_and_effects_follow_the_annotations(tmp_path: Path) -> None:
    async with wrapped(own_upstream(), tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= {"create_note", "delete_note", "list_notes", "set_age"}
    for tool in tools.values():
        assert closed_everywhere(tool.input_schema), tool.name
    create = tools["create_note"].input_schema
    assert "idempotency_key" in create["required"]
    assert set(create["properties"]["priority"]["enum"]) == {"low", "normal", "high"}
    # set_age has no annotations: a write that a retry would repeat, never read-only
    assert tools["set_age"].annotations is not None
    assert tools["set_age"].annotations.read_only_hint is False
    assert "idempotency_key" in tools["set_age"].input_schema["required"]
    delete = tools["delete_note"].input_schema["properties"]
    assert {"dry_run", "confirm_token"} <= set(delete)
    assert "idempotency_key" not in tools["list_notes"].input_schema["properties"]


async def test_a_keyed_create_retried_reaches_upstream_once(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    call = {"title": "Dentist", "due_date": "5 January 2031", "priority": "HIGH"}
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}) as client:
        first = await ok(client, "create_note", {**call, "idempotency_key": "create-dentist-1"})
        again = await ok(client, "create_note", {**call, "idempotency_key": "create-dentist-1"})
        other = await ok(client, "create_note", {**call, "idempotency_key": "create-dentist-2"})
    assert first["result"] == again["result"]
    assert other["result"]["note_id"] != first["result"]["note_id"]
    creates = [c for c in calls_logged(log) if c["tool"] == "create_note"]
    assert len(creates) == 2  # the retry replayed from the store, never reaching upstream
    # the upstream got the canonical values the kinds read, and no control field
    assert creates[0]["arguments"] == {
        "title": "Dentist",
        "due_date": "2031-01-05",
        "priority": "high",
    }
    assert any("2031-01-05" in note for note in first["notes"])


async def test_a_destructive_call_without_a_valid_token_never_reaches_upstream(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}) as client:
        no_token = await refused(client, "delete_note", {"note_id": "n1", "dry_run": False})
        forged = await refused(
            client, "delete_note", {"note_id": "n1", "dry_run": False, "confirm_token": "ct2.x.y"}
        )
        preview = await ok(client, "delete_note", {"note_id": "n1", "dry_run": True})
        token_of_n1 = preview["next_call"]["arguments"]["confirm_token"]
        other_note = await refused(
            client,
            "delete_note",
            {"note_id": "n2", "dry_run": False, "confirm_token": token_of_n1},
        )
        assert calls_logged(log) == []  # nothing so far reached upstream
        done = await ok(client, "delete_note", preview["next_call"]["arguments"])
        # sent again as it was: a duplicate, replayed without reaching upstream (decision 0056)
        resent = await ok(client, "delete_note", preview["next_call"]["arguments"])
        reused = await refused(
            client,
            "delete_note",
            {**preview["next_call"]["arguments"], "note_id": "n2"},
        )
    assert no_token["code"] == "confirmation_required"  # with its dry run (decision 0049)
    assert no_token["details"]["preview"]["would_send"] == {"note_id": "n1"}
    assert no_token["repair"]["arguments"]["confirm_token"].startswith("ct2.")
    assert forged["code"] == other_note["code"] == reused["code"] == "confirmation_invalid"
    assert preview["would_send"] == {"note_id": "n1"}
    assert preview["notes"] == [PREVIEW_NOTE]  # the preview says it changed nothing
    assert done["text"] == "deleted"
    assert {k: v for k, v in resent.items() if k != "notes"} == done
    assert calls_logged(log) == [{"tool": "delete_note", "arguments": {"note_id": "n1"}}]


async def test_upstream_failures_are_the_envelope(tmp_path: Path) -> None:
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_NOISY": "1"}) as client:
        # log lines on stdout, at start and during a call, are skipped: the calls answer
        assert (await ok(client, "print_logs", {}))["text"] == "done"
        validation = await refused(client, "set_age", {"age": 200, "idempotency_key": "age-200-a"})
        trace = await refused(client, "fail_inside", {})
        rpc = await refused(client, "refuse_rpc", {})
        preview = await ok(client, "delete_note", {"note_id": "n9", "dry_run": True})
        missing = await refused(client, "delete_note", preview["next_call"]["arguments"])
        said_as_success = await refused(client, "open_note", {"note_id": "n9"})
        crashed = await refused(client, "crash_now", {})
        after = await ok(client, "ping", {})
    assert validation["code"] == "invalid_arguments"
    assert [i["path"] for i in validation["issues"]] == ["age"]
    assert trace["code"] == "internal_error"
    assert "Traceback" not in str(trace) and "secret_table" not in str(trace)
    assert rpc["code"] == "upstream_refused"
    assert missing["code"] == "not_found" and "list_notes" in missing["hint"]
    assert [(i["path"], i["code"]) for i in missing["issues"]] == [("note_id", "refused_value")]
    assert said_as_success["code"] == "not_found"
    assert [i["path"] for i in said_as_success["issues"]] == ["note_id"]
    assert crashed["code"] == "unavailable" and crashed["temporary"] is True
    assert crashed["retry_after_ms"]
    assert after["text"] == "pong"  # the upstream was restarted


async def test_a_hung_upstream_is_a_timeout(tmp_path: Path) -> None:
    async with wrapped(own_upstream(), tmp_path, config="timeout_s = 1\n") as client:
        hung = await refused(client, "hang_for", {"seconds": 30})
        assert (await ok(client, "ping", {}))["text"] == "pong"
    assert hung["code"] == "upstream_timeout" and hung["temporary"] is True


CONFIG = """
[tools.set_age]
effects = "update"
description = "Set the account holder's age in whole years; the server refuses 150 or more."
rename = "update_age"

[tools.crash_now]
hidden = true

[tools.create_note]
hidden_arguments = ["estimate_hours"]
kinds = { title = "text" }

[tools.list_notes]
effects = { read_only = false, destructive = false, idempotent = false }
"""


async def test_the_config_renames_describes_hides_and_sets_effects(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    async with wrapped(
        own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}, config=CONFIG
    ) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        unknown = await refused(
            client,
            "create_note",
            {"title": "x", "estimate_hours": 2, "idempotency_key": "hidden-arg-1"},
        )
        await ok(client, "update_age", {"age": 40})
    assert "crash_now" not in tools and "set_age" not in tools
    age = tools["update_age"]
    assert age.description is not None and age.description.startswith("Set the account holder")
    assert "idempotency_key" not in age.input_schema["properties"]  # an update: no key
    assert "estimate_hours" not in tools["create_note"].input_schema["properties"]
    assert unknown["code"] == "invalid_arguments"
    assert "idempotency_key" in tools["list_notes"].input_schema["required"]
    # the renamed tool calls the upstream's own
    assert calls_logged(log) == [{"tool": "set_age", "arguments": {"age": 40}}]


async def test_wrap_serves_streamable_http(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    command = wrap_command(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)})
    server = subprocess.Popen(
        [*command[:4], "--http", "--insecure", "--port", "0", *command[4:]],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert server.stderr is not None
        url = ""
        with anyio.fail_after(120):
            while not url:
                line = await anyio.to_thread.run_sync(server.stderr.readline)
                assert line, "the wrapper ended before it served"
                found = re.search(r"at (http://\S+/mcp)", line)
                url = found.group(1) if found else ""
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            while True:  # the line is said before uvicorn listens
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.2)
        async with connect(Target(url=url)) as client:
            call = {"title": "Over HTTP", "idempotency_key": "http-create-1"}
            first = await ok(client, "create_note", call)
            again = await ok(client, "create_note", call)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert first["result"] == again["result"]
    assert [c["tool"] for c in calls_logged(log)] == ["create_note"]


class Person:
    """Says one thing to every question, and keeps the questions."""

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        if not self.yes:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"confirm": True})


async def test_a_previewed_change_reaches_upstream_only_on_the_persons_yes(tmp_path: Path) -> None:
    """Where the client can ask, the preview's token does not stand for the person: a no keeps
    the confirmed call from the upstream, a yes lets it through once (decision 0063)."""
    for yes in (False, True):
        log = tmp_path / f"calls-{yes}.jsonl"
        person = Person(yes)
        async with wrapped(
            own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}, elicitation_callback=person
        ) as client:
            preview = await ok(client, "delete_note", {"note_id": "n1", "dry_run": True})
            confirming = preview["next_call"]["arguments"]
            if yes:
                await ok(client, "delete_note", confirming)
                await ok(client, "delete_note", confirming)  # sent again: replayed, unasked
            else:
                said = await refused(client, "delete_note", confirming)
                assert said["code"] == "confirmation_declined"
        assert len(person.asked) == 1 and "n1" in person.asked[0]
        deletes = [c for c in calls_logged(log) if c["tool"] == "delete_note"]
        assert len(deletes) == (1 if yes else 0)
