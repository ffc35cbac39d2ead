"""Content blocks and the naming exemption, as an author declares them."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.contract import READ_ONLY, Call, Contract, ContractError, Output, Summary
from drivable.contract.content import (
    Audio,
    Embedded,
    Image,
    Message,
    ResourceLink,
    Text,
    wire_blocks,
    wire_messages,
)
from drivable.contract.resources import PromptArgumentSpec, ResourceBody
from drivable.kinds import KindModel


class NoArguments(KindModel):
    pass


class Said(Output):
    text: str


def _contract() -> Contract:
    return Contract(
        "content-test",
        version="1.0.0",
        summary=Summary(text="Content tests.", does=["say"], does_not=["anything else"]),
    )


@given(st.binary(max_size=512))
def test_binary_blocks_carry_their_bytes_base64_encoded(data: bytes) -> None:
    for block in (Image(data, "image/png"), Audio(data, "audio/wav")):
        wire = block.wire()
        assert base64.b64decode(wire["data"]) == data
        assert wire["mimeType"] == block.mime_type
    blob = Embedded("x://a", "application/octet-stream", blob=data).wire()
    assert base64.b64decode(blob["resource"]["blob"]) == data
    assert "text" not in blob["resource"]


def test_an_embedded_resource_is_text_or_blob_never_both_nor_neither() -> None:
    with pytest.raises(ValueError):
        Embedded("x://a", "text/plain")
    with pytest.raises(ValueError):
        Embedded("x://a", "text/plain", text="a", blob=b"a")
    with pytest.raises(ValueError):
        ResourceBody("text", blob=b"bytes")


def test_a_resource_body_with_a_blob_reads_as_blob_contents() -> None:
    contents = ResourceBody(blob=b"\x89PNG", mime_type="image/png").contents("x://img")
    assert contents == {"uri": "x://img", "mimeType": "image/png", "blob": "iVBORw=="}
    assert ResourceBody("hi", mime_type="text/plain").contents("x://t")["text"] == "hi"


def test_only_blocks_are_attached_and_links_are_not_prompt_messages() -> None:
    with pytest.raises(TypeError):
        wire_blocks(["a plain string"])
    with pytest.raises(TypeError):
        Message(ResourceLink("x://a", "a")).wire()
    assert wire_blocks([Text("t"), ResourceLink("x://a", "a", mime_type="text/plain")]) == [
        {"type": "text", "text": "t"},
        {"type": "resource_link", "uri": "x://a", "name": "a", "mimeType": "text/plain"},
    ]


def test_a_prompt_renders_from_a_string_or_messages() -> None:
    assert wire_messages("hello") == [
        {"role": "user", "content": {"type": "text", "text": "hello"}}
    ]
    two = wire_messages([Message(Image(b"x")), "then this"])
    assert [m["content"]["type"] for m in two] == ["image", "text"]
    with pytest.raises(TypeError):
        wire_messages(42)


def test_prompt_argument_choices_complete_by_prefix_ignoring_case() -> None:
    spec = PromptArgumentSpec("city", "A city.", choices=("Paris", "park", "Rome"))
    assert spec.complete("PAR") == ["Paris", "park"]
    assert spec.complete("") == ["Paris", "park", "Rome"]
    assert spec.complete("x") == []


def test_a_name_outside_verb_noun_needs_a_stated_reason() -> None:
    contract = _contract()
    with pytest.raises(ContractError, match="verb"):

        @contract.tool(
            name="test_simple_text",
            title="Simple",
            description="Says one fixed sentence, for a test suite. Example: {}.",
            effects=READ_ONLY,
        )
        async def plain(args: NoArguments, call: Call) -> Said:
            return Said(text="x")

    with pytest.raises(ContractError, match="reason"):

        @contract.tool(
            name="test_simple_text",
            title="Simple",
            description="Says one fixed sentence, for a test suite. Example: {}.",
            effects=READ_ONLY,
            allow_name="suite",
        )
        async def terse(args: NoArguments, call: Call) -> Said:
            return Said(text="x")

    @contract.tool(
        name="test_simple_text",
        title="Simple",
        description="Says one fixed sentence, for a test suite. Example: {}.",
        effects=READ_ONLY,
        allow_name="The conformance suite calls it by this name.",
    )
    async def exempt(args: NoArguments, call: Call) -> Said:
        return Said(text="x")

    assert contract.tools["test_simple_text"].name_exempt == (
        "The conformance suite calls it by this name."
    )


@pytest.mark.parametrize("name", ["has space", "x" * 65, "ünïcode"])
def test_an_exempt_name_must_still_be_a_valid_mcp_tool_name(name: str) -> None:
    contract = _contract()
    with pytest.raises(ContractError, match="valid MCP tool name"):

        @contract.tool(
            name=name,
            title="Bad",
            description="A tool with a name no client can call, for a test. Example: {}.",
            effects=READ_ONLY,
            allow_name="A test needs exactly this broken name.",
        )
        async def bad(args: NoArguments, call: Call) -> Said:
            return Said(text="x")
