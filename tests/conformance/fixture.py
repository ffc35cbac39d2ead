"""The conformance fixture: the server the official MCP conformance suite drives, written with the runtime.

Serve it with `drivable serve tests.conformance.fixture:contract --http` (add `--sessions` for the
2025-11-25 requirement set). The suite calls tools, resources and prompts by fixed names
(`test_simple_text`, `test://static-text`, ...), so each tool states why it keeps its name.
"""

from __future__ import annotations

import asyncio
import json

from drivable.contract import READ_ONLY, Call, Contract, Output, Summary, ToolError
from drivable.contract.content import Audio, Embedded, Image, Message, ResourceLink
from drivable.contract.resources import PromptArgumentSpec, ResourceBody
from drivable.kinds import KindModel
from tests.conformance.media import RED_PIXEL_PNG, SILENT_WAV

SUITE = "The MCP conformance suite calls this tool by this exact name."

contract = Contract(
    "drivable-conformance-fixture",
    version="1.0.0",
    summary=Summary(
        text="The server the MCP conformance suite drives: one tool, resource or prompt per scenario.",
        does=["answer every scenario of the conformance suite"],
        does_not=["anything a person needs"],
    ),
)


class NoArguments(KindModel):
    pass


class Said(Output):
    text: str


@contract.tool(
    name="test_simple_text",
    title="Simple text",
    description="Returns one fixed sentence of text. Takes no arguments. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def simple_text(args: NoArguments, call: Call) -> Said:
    return Said(text="This is a simple text response for testing.")


@contract.tool(
    name="test_image_content",
    title="Image content",
    description="Returns a 1x1 red PNG image beside a sentence. Takes no arguments. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def image_content(args: NoArguments, call: Call) -> Said:
    call.attach(Image(RED_PIXEL_PNG, "image/png"))
    return Said(text="A 1x1 red pixel.")


@contract.tool(
    name="test_audio_content",
    title="Audio content",
    description="Returns a short silent WAV clip beside a sentence. Takes no arguments. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def audio_content(args: NoArguments, call: Call) -> Said:
    call.attach(Audio(SILENT_WAV, "audio/wav"))
    return Said(text="A tenth of a second of silence.")


@contract.tool(
    name="test_embedded_resource",
    title="Embedded resource",
    description="Returns a plain-text resource embedded in the result. Takes no arguments. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def embedded_resource(args: NoArguments, call: Call) -> Said:
    call.attach(
        Embedded(
            "test://embedded-resource",
            "text/plain",
            text="This is an embedded resource content.",
        )
    )
    return Said(text="One embedded resource follows.")


@contract.tool(
    name="test_multiple_content_types",
    title="Mixed content",
    description="Returns text, an image, an embedded JSON resource and a resource link. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def multiple_content_types(args: NoArguments, call: Call) -> Said:
    call.attach(
        Image(RED_PIXEL_PNG, "image/png"),
        Embedded(
            "test://mixed-content-resource",
            "application/json",
            text=json.dumps({"test": "data", "value": 123}),
        ),
        ResourceLink("test://static-text", "static-text", mime_type="text/plain"),
    )
    return Said(text="Multiple content types test:")


@contract.tool(
    name="test_error_handling",
    title="Error handling",
    description="Always fails with an internal error result, to test error reporting. Example: {}.",
    effects=READ_ONLY,
    errors=["internal_error"],
    allow_name=SUITE,
)
async def error_handling(args: NoArguments, call: Call) -> Said:
    raise ToolError(
        "internal_error",
        "This tool intentionally returns an error for testing",
        hint="Nothing to fix: test_error_handling always fails.",
    )


@contract.tool(
    name="test_tool_with_progress",
    title="Progress",
    description="Reports progress 0, 50 and 100 of 100, about 50 ms apart. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def tool_with_progress(args: NoArguments, call: Call) -> Said:
    for step in (0, 50, 100):
        await call.report_progress(step, 100, f"{step} of 100")
        if step < 100:
            await asyncio.sleep(0.05)
    return Said(text="Progress reported: 0, 50, 100 of 100.")


@contract.resource(
    "test://static-text",
    name="static-text",
    title="Static text",
    description="A fixed line of plain text.",
    mime_type="text/plain",
)
async def static_text() -> ResourceBody:
    return ResourceBody("This is the content of the static text resource.", mime_type="text/plain")


@contract.resource(
    "test://static-binary",
    name="static-binary",
    title="Static binary",
    description="A 1x1 red PNG image.",
    mime_type="image/png",
)
async def static_binary() -> ResourceBody:
    return ResourceBody(blob=RED_PIXEL_PNG, mime_type="image/png")


@contract.resource_template(
    "test://template/{id}/data",
    name="template-data",
    title="Templated data",
    description="JSON naming the id taken from the URI.",
)
async def template_data(id: str) -> ResourceBody:
    return ResourceBody(json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}))


@contract.prompt(
    name="test_simple_prompt",
    title="Simple prompt",
    description="A prompt without arguments.",
    when_to_use="When a client tests prompts/get without arguments.",
)
async def simple_prompt() -> str:
    return "This is a simple prompt for testing."


@contract.prompt(
    name="test_prompt_with_arguments",
    title="Prompt with arguments",
    description="A prompt that repeats its two arguments.",
    when_to_use="When a client tests prompt arguments.",
    arguments=[
        PromptArgumentSpec(
            "arg1", "First test argument", required=True, choices=("paris", "park", "party")
        ),
        PromptArgumentSpec("arg2", "Second test argument", required=True),
    ],
)
async def prompt_with_arguments(arg1: str = "", arg2: str = "") -> str:
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@contract.prompt(
    name="test_prompt_with_embedded_resource",
    title="Prompt with an embedded resource",
    description="A prompt that embeds the resource it names, then asks to process it.",
    when_to_use="When a client tests embedded resources in prompts.",
    arguments=[PromptArgumentSpec("resourceUri", "URI of the resource to embed", required=True)],
)
async def prompt_with_embedded_resource(resourceUri: str) -> list[Message]:
    return [
        Message(Embedded(resourceUri, "text/plain", text="Embedded resource content for testing.")),
        Message("Please process the embedded resource above."),
    ]


@contract.prompt(
    name="test_prompt_with_image",
    title="Prompt with an image",
    description="A prompt that shows an image, then asks to analyze it.",
    when_to_use="When a client tests images in prompts.",
)
async def prompt_with_image() -> list[Message]:
    return [Message(Image(RED_PIXEL_PNG, "image/png")), Message("Please analyze the image above.")]
