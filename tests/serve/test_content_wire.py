"""Content blocks, binary resources, rich prompts and prompt completion through the real SDK client."""

from __future__ import annotations

import base64
import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from drivable.serve import build_server
from tests.conformance.fixture import contract
from tests.conformance.media import RED_PIXEL_PNG, SILENT_WAV

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])


def _client(mode: str) -> Client:
    return Client(build_server(contract), mode=mode, cache=None)


@MODES
async def test_attached_blocks_follow_the_json_text_of_the_structured_result(mode: str) -> None:
    async with _client(mode) as client:
        result = await client.call_tool("test_multiple_content_types", {})
    assert not result.is_error
    wire = [c.model_dump(by_alias=True, exclude_none=True) for c in result.content]
    assert [c["type"] for c in wire] == ["text", "image", "resource", "resource_link"]
    assert json.loads(wire[0]["text"]) == result.structured_content
    assert base64.b64decode(wire[1]["data"]) == RED_PIXEL_PNG
    assert json.loads(wire[2]["resource"]["text"]) == {"test": "data", "value": 123}
    assert wire[3]["uri"] == "test://static-text"


@MODES
async def test_audio_arrives_as_audio_with_its_bytes(mode: str) -> None:
    async with _client(mode) as client:
        result = await client.call_tool("test_audio_content", {})
    audio = result.content[1].model_dump(by_alias=True)
    assert audio["type"] == "audio" and audio["mimeType"] == "audio/wav"
    assert base64.b64decode(audio["data"]) == SILENT_WAV


@MODES
async def test_a_binary_resource_reads_as_a_blob(mode: str) -> None:
    async with _client(mode) as client:
        result = await client.read_resource("test://static-binary")
    body = result.contents[0].model_dump(by_alias=True, exclude_none=True)
    assert body["mimeType"] == "image/png"
    assert base64.b64decode(body["blob"]) == RED_PIXEL_PNG
    assert "text" not in body


@MODES
async def test_an_unknown_resource_names_its_uri_with_the_code_of_the_era(mode: str) -> None:
    uri = "test://nowhere"
    async with _client(mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert caught.value.error.code == (-32002 if mode == "legacy" else -32602)
    assert caught.value.error.data["uri"] == uri
    assert caught.value.error.data["machine_code"] == "not_found"


@MODES
async def test_a_prompt_shows_images_and_embedded_resources_in_order(mode: str) -> None:
    async with _client(mode) as client:
        image = await client.get_prompt("test_prompt_with_image")
        embedded = await client.get_prompt(
            "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
        )
    assert [m.content.type for m in image.messages] == ["image", "text"]
    first = embedded.messages[0].content.model_dump(by_alias=True)
    assert first["type"] == "resource"
    assert first["resource"]["uri"] == "test://example-resource"


@MODES
async def test_a_missing_required_prompt_argument_is_refused_not_rendered_empty(
    mode: str,
) -> None:
    async with _client(mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("test_prompt_with_arguments", {"arg1": "only one"})
    error = caught.value.error
    assert error.code == -32602
    assert error.data["machine_code"] == "invalid_arguments"
    assert "arg2" in error.data["human_message"] and "arg2" in error.data["hint"]


@MODES
async def test_prompt_arguments_complete_from_their_declared_choices(mode: str) -> None:
    from mcp_types import PromptReference

    async with _client(mode) as client:
        done = await client.complete(
            PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "par"},
        )
    assert done.completion.values == ["paris", "park", "party"]
