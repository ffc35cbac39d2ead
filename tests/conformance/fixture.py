"""The conformance fixture: the server the official MCP conformance suite drives, written with the runtime.

Serve it with `drivable serve tests.conformance.fixture:contract --http` (add `--sessions` for the
2025-11-25 requirement set). The suite calls tools, resources and prompts by fixed names
(`test_simple_text`, `test://static-text`, ...), so each tool states why it keeps its name.

One module of ~660 lines on purpose: one short declaration per scenario, in the suite's order,
so a scenario's name finds its tool, resource or prompt with one search.
"""

from __future__ import annotations

import asyncio
import json

from drivable.contract import READ_ONLY, Call, Contract, Effects, Output, Summary, ToolError
from drivable.contract.client import ClientSide, Elicit, Elicited, ListRoots, Request, Sample
from drivable.contract.content import Audio, Embedded, Image, Message, ResourceLink
from drivable.contract.resources import PromptArgumentSpec, ResourceBody
from drivable.kinds import KindModel
from tests.conformance.media import RED_PIXEL_PNG, SILENT_WAV
from tests.conformance.tasks_fixture import register as register_tasks

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
    description="Returns one fixed sentence of text. Takes no arguments. Use it when a client tests text results. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def simple_text(args: NoArguments, call: Call) -> Said:
    return Said(text="This is a simple text response for testing.")


@contract.tool(
    name="test_image_content",
    title="Image content",
    description="Returns a 1x1 red PNG image beside a sentence. Takes no arguments. Use it when a client tests image content. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def image_content(args: NoArguments, call: Call) -> Said:
    call.attach(Image(RED_PIXEL_PNG, "image/png"))
    return Said(text="A 1x1 red pixel.")


@contract.tool(
    name="test_audio_content",
    title="Audio content",
    description="Returns a short silent WAV clip beside a sentence. Takes no arguments. Use it when a client tests audio content. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def audio_content(args: NoArguments, call: Call) -> Said:
    call.attach(Audio(SILENT_WAV, "audio/wav"))
    return Said(text="A tenth of a second of silence.")


@contract.tool(
    name="test_embedded_resource",
    title="Embedded resource",
    description="Returns a plain-text resource embedded in the result. Takes no arguments. Use it when a client tests embedded resources in results. Example: {}.",
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
    description="Returns text, an image, an embedded JSON resource and a resource link. Use it when a client tests mixed content blocks. Example: {}.",
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
    description="Always fails with an internal error result, to test error reporting. Use it when a client tests error results. Example: {}.",
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
    description="Reports progress 0, 50 and 100 of 100, about 50 ms apart. Use it when a client tests progress notifications. Example: {}.",
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
    description="Use when a client tests prompts/get without arguments: a prompt without any.",
    when_to_use="When a client tests prompts/get without arguments.",
)
async def simple_prompt() -> str:
    return "This is a simple prompt for testing."


@contract.prompt(
    name="test_prompt_with_arguments",
    title="Prompt with arguments",
    description="Use when a client tests prompt arguments: repeats its two arguments.",
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
    description="Use when a client tests embedded resources in prompts: embeds the resource it "
    "names, then asks to process it.",
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
    description="Use when a client tests images in prompts: shows an image, then asks to analyze it.",
    when_to_use="When a client tests images in prompts.",
)
async def prompt_with_image() -> list[Message]:
    return [Message(Image(RED_PIXEL_PNG, "image/png")), Message("Please analyze the image above.")]


# -- asking the client: the same handlers in both eras --------------------------------------------


class PromptArgument(KindModel):
    prompt: str


class MessageArgument(KindModel):
    message: str


def _said(answer: Elicited) -> str:
    return f"action={answer.action}, content={json.dumps(dict(answer.content), sort_keys=True)}"


def _name_form(message: str) -> Elicit:
    return Elicit(
        message,
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    )


def _confirm_form(message: str) -> Elicit:
    return Elicit(
        message,
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    )


@contract.tool(
    name="test_sampling",
    title="Sampling",
    description="Asks the client's model to complete the given prompt and returns its reply. "
    'Use it when a client tests sampling; a client without it is refused with -32021. Example: {"prompt": "<prompt>"}.',
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def sampling(args: PromptArgument, call: Call) -> Said:
    reply = await call.client.ask("reply", Sample([args.prompt], max_tokens=100))
    return Said(text=f"LLM response: {reply.text}")


@contract.tool(
    name="test_elicitation",
    title="Elicitation",
    description="Asks the user for a username and an email with the given message. "
    'Use it when a client tests form elicitation; a client without it is refused with -32021. Example: {"message": "<message>"}.',
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def elicitation(args: MessageArgument, call: Call) -> Said:
    form = Elicit(
        args.message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return Said(text=f"User response: {_said(await call.client.ask('user', form))}")


@contract.tool(
    name="test_elicitation_sep1034_defaults",
    title="Elicitation defaults",
    description="Asks the user a form whose every field has a default (SEP-1034). Use it when a client tests elicitation defaults. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def elicitation_defaults(args: NoArguments, call: Call) -> Said:
    form = Elicit(
        "Please review your details.",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {
                    "type": "string",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "default": True},
            },
        },
    )
    return Said(text=f"Elicitation completed: {_said(await call.client.ask('details', form))}")


@contract.tool(
    name="test_elicitation_sep1330_enums",
    title="Elicitation enums",
    description="Asks the user a form with every enum style of SEP-1330. Use it when a client tests elicitation enums. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def elicitation_enums(args: NoArguments, call: Call) -> Said:
    def titled(prefix: str, titles: tuple[str, ...]) -> list[dict[str, str]]:
        return [{"const": f"{prefix}{i}", "title": t} for i, t in enumerate(titles, start=1)]

    options = ("option1", "option2", "option3")
    form = Elicit(
        "Please choose.",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": list(options)},
                "titledSingle": {
                    "type": "string",
                    "oneOf": titled("value", ("First Option", "Second Option", "Third Option")),
                },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(options)},
                },
                "titledMulti": {
                    "type": "array",
                    "items": {
                        "anyOf": titled("value", ("First Choice", "Second Choice", "Third Choice"))
                    },
                },
            },
        },
    )
    return Said(text=f"Elicitation completed: {_said(await call.client.ask('choices', form))}")


@contract.tool(
    name="test_tool_with_logging",
    title="Logging",
    description="Sends three info log messages about 50 ms apart while it runs. Use it when a client tests log notifications during a call. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def tool_with_logging(args: NoArguments, call: Call) -> Said:
    for line in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await call.client.log("info", line)
        if line != "Tool execution completed":
            await asyncio.sleep(0.05)
    return Said(text="Logged three messages.")


@contract.tool(
    name="test_logging_tool",
    title="Logging (per request)",
    description="Logs one info message; the client sees it only if its request asked for logs. "
    "Use it when a client tests per-request log levels. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def logging_tool(args: NoArguments, call: Call) -> Said:
    await call.client.log("info", "test_logging_tool ran")
    return Said(text="Logged one message.")


@contract.tool(
    name="test_input_required_result_elicitation",
    title="Input rounds: elicitation",
    description="Asks the user's name, then greets them. Use it when a client tests an elicitation round. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_elicitation(args: NoArguments, call: Call) -> Said:
    answer = await call.client.ask("user_name", _name_form("What is your name?"))
    return Said(text=f"Hello, {answer.content.get('name', 'stranger')}!")


@contract.tool(
    name="test_input_required_result_sampling",
    title="Input rounds: sampling",
    description="Asks the client's model for the capital of France. Use it when a client tests a sampling round. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_sampling(args: NoArguments, call: Call) -> Said:
    reply = await call.client.ask(
        "capital_question", Sample(["What is the capital of France?"], max_tokens=100)
    )
    return Said(text=f"The model said: {reply.text}")


@contract.tool(
    name="test_input_required_result_list_roots",
    title="Input rounds: roots",
    description="Asks the host for its roots and lists them. Use it when a client tests a roots round. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_list_roots(args: NoArguments, call: Call) -> Said:
    roots = await call.client.ask("client_roots", ListRoots())
    return Said(text="Roots: " + ", ".join(r.uri for r in roots))


@contract.tool(
    name="test_input_required_result_request_state",
    title="Input rounds: request state",
    description="Asks for a confirmation and says state-ok when its signed state came back. "
    "Use it when a client tests requestState. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_request_state(args: NoArguments, call: Call) -> Said:
    answer = await call.client.ask("confirm", _confirm_form("Please confirm"))
    verdict = "state-ok" if call.client.resumed else "no state came back"
    return Said(text=f"Confirmed: {answer.content.get('ok')} ({verdict})")


@contract.tool(
    name="test_input_required_result_multiple_inputs",
    title="Input rounds: several at once",
    description="Asks a name, a greeting from the model and the roots in one round. Use it when a client tests several inputs in one round. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_multiple_inputs(args: NoArguments, call: Call) -> Said:
    got = await call.client.ask_all(
        {
            "user_name": _name_form("What is your name?"),
            "greeting": Sample(["Generate a greeting"], max_tokens=50),
            "client_roots": ListRoots(),
        }
    )
    name = got["user_name"].content.get("name")
    return Said(text=f"{got['greeting'].text} {name} ({len(got['client_roots'])} roots)")


@contract.tool(
    name="test_input_required_result_multi_round",
    title="Input rounds: two rounds",
    description="Asks a name, then a favourite colour, then answers with both. Use it when a client tests several rounds in a row. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_multi_round(args: NoArguments, call: Call) -> Said:
    name = await call.client.ask("step1", _name_form("Step 1: What is your name?"))
    colour = await call.client.ask(
        "step2",
        Elicit(
            "Step 2: What is your favorite color?",
            {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
        ),
    )
    return Said(text=f"{name.content.get('name')} likes {colour.content.get('color')}.")


@contract.tool(
    name="test_input_required_result_tampered_state",
    title="Input rounds: signed state",
    description="Asks for a confirmation; a retry with an altered requestState is refused. "
    "Use it when a client tests a tampered requestState. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_tampered_state(args: NoArguments, call: Call) -> Said:
    answer = await call.client.ask("confirm", _confirm_form("Please confirm"))
    return Said(text=f"Confirmed: {answer.content.get('ok')}")


@contract.tool(
    name="test_input_required_result_capabilities",
    title="Input rounds: only what the client declared",
    description="Asks the user and the model, each only if the client declared it. Use it when a client tests rounds against declared capabilities. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def irr_capabilities(args: NoArguments, call: Call) -> Said:
    wanted: dict[str, Request] = {}
    if call.client.supports("elicitation"):
        wanted["user_name"] = _name_form("What is your name?")
    if call.client.supports("sampling"):
        wanted["greeting"] = Sample(["Generate a greeting"], max_tokens=50)
    got = await call.client.ask_all(wanted) if wanted else {}
    return Said(text=f"Asked for {', '.join(sorted(got)) or 'nothing'}.")


@contract.tool(
    name="test_missing_capability",
    title="Needs sampling",
    description="Needs the client's model (sampling); a client without it is refused with -32021. "
    "Use it when a client tests the missing-capability error. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def missing_capability(args: NoArguments, call: Call) -> Said:
    reply = await call.client.ask("reply", Sample(["Say yes"], max_tokens=10))
    return Said(text=reply.text)


@contract.tool(
    name="test_streaming_elicitation",
    title="Elicitation on the response stream",
    description="Asks the user's name; in 2026-07-28 the question is a result, never a request "
    "on the stream. Use it when a client tests elicitation over a 2026-07-28 stream. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def streaming_elicitation(args: NoArguments, call: Call) -> Said:
    await call.client.log("info", "asking for a name")
    answer = await call.client.ask("user_name", _name_form("What is your name?"))
    return Said(text=f"Hello, {answer.content.get('name')}!")


@contract.prompt(
    name="test_input_required_result_prompt",
    title="Prompt that asks first",
    description="Use when a client tests input rounds on prompts/get: asks the user which context "
    "to use before rendering.",
    when_to_use="When a client tests input rounds on prompts/get.",
)
async def irr_prompt(client: ClientSide) -> str:
    answer = await client.ask(
        "user_context",
        Elicit(
            "What context should the prompt use?",
            {
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"],
            },
        ),
    )
    return f"Use this context: {answer.content.get('context')}"


# -- changes: list-changed and resource-updated, delivered in both eras ---------------------------
# The triggers are idempotent: each makes sure its addition is listed and announces the change
# (a repeated announcement only makes a client list again).

DYNAMIC_TOOL = "test_dynamic_tool"
DYNAMIC_PROMPT = "test_dynamic_prompt"
WATCHED = "test://watched-resource"


@contract.resource(
    WATCHED,
    name="watched-resource",
    title="Watched resource",
    description="A resource clients subscribe to; test_trigger_resource_update announces it.",
    mime_type="text/plain",
)
async def watched_resource() -> ResourceBody:
    return ResourceBody("Watched.", mime_type="text/plain")


async def _dynamic(args: NoArguments, call: Call) -> Said:
    return Said(text="Added by test_trigger_tool_change.")


async def _dynamic_prompt() -> str:
    return "Added by test_trigger_prompt_change."


ANNOUNCES = Effects(read_only=False, destructive=False, idempotent=True, open_world=False)


@contract.tool(
    name="test_trigger_tool_change",
    title="Change the tool list",
    description="Adds test_dynamic_tool if it is not listed yet and tells every listening client "
    "the tool list changed. Use it when a client tests tool list changes. Example: {}.",
    effects=ANNOUNCES,
    allow_name=SUITE,
)
async def trigger_tool_change(args: NoArguments, call: Call) -> Said:
    if DYNAMIC_TOOL not in contract.tools:
        contract.tool(
            name=DYNAMIC_TOOL,
            title="Dynamic tool",
            description="Listed once test_trigger_tool_change has run. Example: {}.",
            effects=READ_ONLY,
            allow_name="test_trigger_tool_change adds it by this name.",
        )(_dynamic)
    await contract.changes.tools_changed()
    return Said(text=f"{DYNAMIC_TOOL} is listed.")


@contract.tool(
    name="test_trigger_prompt_change",
    title="Change the prompt list",
    description="Adds test_dynamic_prompt if it is not listed yet and tells every listening client "
    "the prompt list changed. Use it when a client tests prompt list changes. Example: {}.",
    effects=ANNOUNCES,
    allow_name=SUITE,
)
async def trigger_prompt_change(args: NoArguments, call: Call) -> Said:
    if DYNAMIC_PROMPT not in contract.prompts:
        contract.prompt(
            name=DYNAMIC_PROMPT,
            title="Dynamic prompt",
            description="Listed once test_trigger_prompt_change has run.",
            when_to_use="Never; it shows prompt list changes.",
        )(_dynamic_prompt)
    await contract.changes.prompts_changed()
    return Said(text=f"{DYNAMIC_PROMPT} is listed.")


@contract.tool(
    name="test_trigger_resource_update",
    title="Announce a resource update",
    description="Tells the clients watching test://watched-resource that it changed. Use it when a client tests resource subscriptions. Example: {}.",
    effects=ANNOUNCES,
    allow_name=SUITE,
)
async def trigger_resource_update(args: NoArguments, call: Call) -> Said:
    await contract.changes.resource_updated(WATCHED)
    return Said(text=f"Announced an update of {WATCHED}.")


@contract.tool(
    name="test_reconnection",
    title="Release the stream mid-call",
    description="Closes its own response stream, then answers; a client of a resumable HTTP "
    "session reconnects with Last-Event-ID and receives the answer. Use it when a client tests resuming an HTTP stream. Example: {}.",
    effects=READ_ONLY,
    allow_name=SUITE,
)
async def reconnection(args: NoArguments, call: Call) -> Said:
    await call.client.release_stream()
    await asyncio.sleep(0.2)  # long enough for the client to notice and reconnect
    return Said(text="Answered after the stream was released.")


# The tasks extension's scenarios (SEP-2663) call their own fixed tools: greet, slow_compute,
# confirm_delete, multi_input, failing_job, protocol_error_job, test_tool_with_task.
register_tasks(contract)
