"""One handler API for asking the client, on the real wire of both protocol eras.

The conformance fixture's handlers ask with `call.client.ask(...)`; the SDK client answers
through its callbacks: in 2026-07-28 as input rounds it drives itself, in 2025-11-25 as
server-to-client requests. The raw 2026 HTTP exchanges (input_required, the signed state, the
-32021 refusal) are checked against a `drivable serve --http` subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from drivable.serve import build_server
from tests.conformance.fixture import contract
from tests.serve.conftest import ROOT, _wait_listening, free_port

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])
VERSION = "2026-07-28"


async def _on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    wanted = list(params.requested_schema["properties"])  # type: ignore[union-attr]
    return types.ElicitResult(action="accept", content={k: f"my {k}" for k in wanted})


async def _on_sample(context: Any, params: types.CreateMessageRequestParams) -> Any:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="Paris"), model="m"
    )


async def _on_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def _client(mode: str, **callbacks: Any) -> Client:
    return Client(build_server(contract), mode=mode, cache=None, **callbacks)


def _text(result: types.CallToolResult) -> str:
    assert result.structured_content is not None
    return str(result.structured_content["text"])


@MODES
async def test_one_handler_asks_the_user_the_model_and_the_host_in_both_eras(mode: str) -> None:
    async with _client(
        mode,
        elicitation_callback=_on_elicit,
        sampling_callback=_on_sample,
        list_roots_callback=_on_roots,
    ) as client:
        several = await client.call_tool("test_input_required_result_multiple_inputs", {})
        rounds = await client.call_tool("test_input_required_result_multi_round", {})
        prompt = await client.get_prompt("test_input_required_result_prompt")
    assert _text(several) == "Paris my name (1 roots)"
    assert _text(rounds) == "my name likes my color."
    assert "my context" in prompt.messages[0].content.text  # type: ignore[union-attr]


@MODES
async def test_a_missing_client_capability_is_refused_with_32021(mode: str) -> None:
    async with _client(mode, elicitation_callback=_on_elicit) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("test_missing_capability", {})
        only_declared = await client.call_tool("test_input_required_result_capabilities", {})
    assert caught.value.error.code == -32021
    assert caught.value.error.data["requiredCapabilities"] == {"sampling": {}}
    assert _text(only_declared) == "Asked for user_name."


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_handshake_logging_follows_the_level_the_session_set() -> None:
    got: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        got.append(f"{params.level}:{params.data}")

    async with _client("legacy", logging_callback=on_log) as client:
        await client.set_logging_level("info")
        await client.call_tool("test_tool_with_logging", {})
        await client.set_logging_level("error")
        await client.call_tool("test_logging_tool", {})
    assert got == [
        "info:Tool execution started",
        "info:Tool processing data",
        "info:Tool execution completed",
    ]


def _serve(tmp_path_factory: pytest.TempPathFactory, *extra: str) -> Iterator[str]:
    port = free_port()
    log = Path(tmp_path_factory.mktemp("fixture")) / "http.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "drivable", "serve", "tests.conformance.fixture:contract"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            # --insecure: a loopback fixture without a verifier whose clients call every tool
            [*command, "--http", "--port", str(port), "--insecure", *extra],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_listening(port, process, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(tmp_path_factory)


@pytest.fixture(scope="module")
def sessions_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(tmp_path_factory, "--sessions")


def _post(url: str, method: str, params: dict[str, Any], **capabilities: Any) -> httpx2.Response:
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    if "name" in params:
        headers["Mcp-Name"] = params["name"]
    return httpx2.post(url, json=body, headers=headers, timeout=30)


def test_a_2026_round_asks_in_the_result_and_refuses_an_altered_state(fixture_url: str) -> None:
    call = {"name": "test_input_required_result_tampered_state", "arguments": {}}
    first = _post(fixture_url, "tools/call", call, elicitation={}).json()["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"]["confirm"]["method"] == "elicitation/create"
    answer = {"confirm": {"action": "accept", "content": {"ok": True}}}
    good = _post(
        fixture_url,
        "tools/call",
        {**call, "inputResponses": answer, "requestState": first["requestState"]},
        elicitation={},
    ).json()
    assert good["result"]["resultType"] == "complete"
    assert good["result"]["structuredContent"] == {"text": "Confirmed: True"}
    altered = _post(
        fixture_url,
        "tools/call",
        {**call, "inputResponses": answer, "requestState": first["requestState"] + "x"},
        elicitation={},
    )
    assert altered.status_code == 400
    error = altered.json()["error"]
    assert error["code"] == -32602 and "requestState" in error["data"]["hint"]


def test_a_2026_request_needing_an_undeclared_capability_is_http_400(fixture_url: str) -> None:
    reply = _post(fixture_url, "tools/call", {"name": "test_missing_capability", "arguments": {}})
    assert reply.status_code == 400
    assert reply.json()["error"]["data"]["requiredCapabilities"] == {"sampling": {}}


def test_discover_lists_every_revision_and_no_logging_in_2026(fixture_url: str) -> None:
    result = _post(fixture_url, "server/discover", {}).json()["result"]
    assert result["supportedVersions"] == [
        "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
    ]  # fmt: skip
    assert "logging" not in result["capabilities"]
    removed = _post(fixture_url, "logging/setLevel", {"level": "info"})
    assert removed.status_code == 404 and removed.json()["error"]["code"] == -32601


async def test_a_keyed_write_that_asks_first_runs_once_after_the_answer(tmp_path: Path) -> None:
    from drivable.contract import Call, Contract, Effects, Output, Summary
    from drivable.contract.client import Elicit
    from drivable.contract.durable import IDEMPOTENCY_KEY, IdempotencyKey
    from drivable.effects import open_store
    from drivable.kinds import KindModel

    keyed = Contract(
        "keyed-asking",
        version="1.0.0",
        summary=Summary(text="Asks before writing.", does=["write"], does_not=["read"]),
    )
    keyed.use_effects(open_store(str(tmp_path / "effects.sqlite")), b"s" * 32)
    ran: list[str] = []

    class Note(KindModel):
        text: str
        idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY

    class Saved(Output):
        saved: bool

    @keyed.tool(
        name="create_note",
        title="Create a note",
        description="Saves a note after the user confirms it. "
        'Example: {"text": "<text>", "idempotency_key": "<idempotency key>"}.',
        effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
    )
    async def create_note(args: Note, call: Call) -> Saved:
        answer = await call.client.ask(
            "confirm", Elicit(f"Save {args.text!r}?", {"type": "object", "properties": {}})
        )
        if answer.accepted:
            ran.append(args.text)
        return Saved(saved=answer.accepted)

    arguments = {"text": "hi", "idempotency_key": "note-0001-abcdef"}
    async with Client(
        build_server(keyed), mode="auto", cache=None, elicitation_callback=_on_elicit
    ) as client:
        first = await client.call_tool("create_note", arguments)
        again = await client.call_tool("create_note", arguments)
    # The first round ended input_required inside the keyed path: it claimed nothing, so the
    # answered retry ran once, and the same key then replays.
    assert first.structured_content == {"saved": True}
    assert again.structured_content is not None and again.structured_content["saved"] is True
    assert again.meta is not None and again.meta["dev.drivable/receipt"]["replayed"]
    assert ran == ["hi"]


def _events(response: httpx2.Response) -> list[dict[str, str]]:
    """The SSE events of a response, read until the server closes it."""
    events: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in response.iter_lines():
        if not line:
            if current:
                events.append(current)
            current = {}
            continue
        field, _, value = line.partition(":")
        current[field] = current.get(field, "") + value.removeprefix(" ")
    if current:
        events.append(current)
    return events


def test_a_released_session_stream_is_resumed_with_last_event_id(sessions_url: str) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    with httpx2.Client(timeout=30) as http:
        opened = http.post(sessions_url, json=init, headers=headers)
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        session["mcp-protocol-version"] = "2025-11-25"
        http.post(sessions_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                  headers=session)  # fmt: skip
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_reconnection", "arguments": {}},
        }
        with http.stream("POST", sessions_url, json=call, headers=session) as posted:
            before = _events(posted)
        assert before[0]["data"] == "" and before[0]["retry"] == "1000" and before[0]["id"]
        assert not any('"id":2' in e.get("data", "") for e in before)  # released before the answer
        resume = {**session, "Accept": "text/event-stream", "last-event-id": before[-1]["id"]}
        with http.stream("GET", sessions_url, headers=resume) as resumed:
            answer = None
            for line in resumed.iter_lines():
                if line.startswith("data:") and '"id":2' in line:
                    answer = line
                    break
    assert answer is not None and "Answered after the stream was released." in answer
