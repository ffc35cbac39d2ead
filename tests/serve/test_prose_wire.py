"""A tool that answers prose (`Text`): its text is the content, with no outputSchema and no
structuredContent; errors keep the envelope. Through the real SDK client."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from pydantic import Field

from drivable.contract import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Contract,
    ContractError,
    Effects,
    Summary,
    ToolError,
    envelope_of,
)
from drivable.contract.content import Image, Text
from drivable.kinds import KindModel
from drivable.serve import build_server
from drivable.testing import call_text


class Words(KindModel):
    text: str = Field(description="What to say back.", max_length=400)
    times: int = Field(1, ge=1, le=3, description="How often, 1 to 3.")


def _contract(*, strict: bool = False) -> Contract:
    contract = Contract(
        "prose-test",
        version="1.0.0",
        summary=Summary(text="Prose tests.", does=["say"], does_not=["anything else"]),
        strict=strict,
    )

    @contract.tool(
        name="echo_words",
        description="Returns the words back as plain text, `times` times. Use it to read words "
        'back. Example: {"text": "<text>"}.',
        effects=READ_ONLY,
        errors=["state_conflict"],
    )
    async def echo_words(args: Words, call: Call) -> Text:
        if args.text == "refuse":
            raise ToolError("state_conflict", "Refused on request.", hint="Send other words.")
        if args.text == "picture":
            call.attach(Image(b"\x89PNG", "image/png"))
        if args.text == "noted":
            call.note("Said it as asked.")
            call.warn("value_repaired", "A value was read from another spelling.", path="text")
        return Text(" ".join([args.text] * args.times))

    @contract.tool(
        name="echo_wrong",
        description="Declares prose but returns data, which is the server's bug. Use it to test "
        'that. Example: {"text": "<text>"}.',
        effects=READ_ONLY,
    )
    async def echo_wrong(args: Words, call: Call) -> Text:
        return {"text": args.text}  # type: ignore[return-value]

    return contract


def _client(contract: Contract, mode: str = "auto") -> Client:
    return Client(build_server(contract), mode=mode, cache=None)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_prose_tool_lists_no_output_schema_and_answers_its_text_alone(mode: str) -> None:
    async with _client(_contract(), mode) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("echo_words", {"text": "Hello, sep-2243!"})
    assert listed["echo_words"].output_schema is None
    assert not result.is_error and result.structured_content is None
    wire = [c.model_dump(by_alias=True, exclude_none=True) for c in result.content]
    assert wire == [{"type": "text", "text": "Hello, sep-2243!"}]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=60).filter(
        lambda t: t not in ("refuse", "picture", "noted")
    )
)
async def test_the_text_is_exactly_what_the_handler_said(text: str) -> None:
    async with _client(_contract()) as client:
        result = await client.call_tool("echo_words", {"text": text, "times": 2})
    assert result.structured_content is None
    assert result.content[0].text == f"{text} {text}"  # type: ignore[union-attr]


async def test_notes_on_the_call_follow_the_prose_as_a_json_block() -> None:
    async with _client(_contract()) as client:
        result = await client.call_tool("echo_words", {"text": "noted", "times": 2})
    texts = [c.text for c in result.content if c.type == "text"]
    assert texts[0] == "noted noted" and result.structured_content is None
    said = json.loads(texts[1])
    assert said["notes"] == ["Said it as asked."]
    assert said["warnings"][0]["code"] == "value_repaired"


async def test_the_testing_helper_reads_prose_and_refuses_data() -> None:
    async with _client(_contract()) as client:
        assert await call_text(client, "echo_words", {"text": "hi", "times": 3}) == "hi hi hi"
        with pytest.raises(AssertionError, match="failed"):
            await call_text(client, "echo_wrong", {"text": "hi"})


async def test_attached_blocks_follow_the_prose() -> None:
    async with _client(_contract()) as client:
        result = await client.call_tool("echo_words", {"text": "picture"})
    assert [c.type for c in result.content] == ["text", "image"]
    assert result.content[0].text == "picture"  # type: ignore[union-attr]


async def test_a_refusal_of_a_prose_tool_is_the_envelope() -> None:
    async with _client(_contract()) as client:
        result = await client.call_tool("echo_words", {"text": "refuse"})
        invalid = await client.call_tool("echo_words", {"times": 9})
    for refused, code in ((result, "state_conflict"), (invalid, "invalid_arguments")):
        assert refused.is_error and refused.structured_content is None
        assert (envelope_of(refused) or {}).get("code") == code


async def test_data_from_a_prose_tool_is_the_servers_bug() -> None:
    async with _client(_contract()) as client:
        result = await client.call_tool("echo_wrong", {"text": "hi"})
    assert result.is_error and (envelope_of(result) or {}).get("code") == "internal_error"


@pytest.mark.parametrize("effects", [CREATE, DELETE])
def test_a_tool_with_a_receipt_or_a_confirm_token_cannot_answer_prose(effects: Effects) -> None:
    contract = _contract()
    with pytest.raises(ContractError, match="output model"):

        @contract.tool(
            name="send_words",
            description="Sends the words somewhere and says so in prose. Use it to test "
            'the refusal. Example: {"text": "<text>"}.',
            effects=effects,
        )
        async def send_words(args: Words, call: Call) -> Text:
            return Text(args.text)
