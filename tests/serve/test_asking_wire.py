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
    return Client(build_server(contract), mode=mode, cache=None, **callbacks)  # type: ignore[arg-type]


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


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = Path(tmp_path_factory.mktemp("fixture")) / "http.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "drivable", "serve", "tests.conformance.fixture:contract"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--http", "--port", str(port)],
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
