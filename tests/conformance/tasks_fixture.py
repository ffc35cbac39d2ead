"""The tools the conformance suite's tasks scenarios (SEP-2663) call, by the names they call them.

`register(contract)` adds them to a contract (the conformance fixture's, or `tasks_server`'s own).
They are real long-running tools of the runtime: slow_compute sleeps in steps and reports them,
confirm_delete and multi_input ask the client through the task's input requests, failing_job ends
with a tool error, protocol_error_job with a protocol error (status failed), test_tool_with_task
asks the user's name in input-required rounds and only then starts its task. The two greetings
answer prose (`Text`): the suite compares their text content with the bare sentence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, Output, ToolError
from drivable.contract.client import Elicit
from drivable.contract.content import Text
from drivable.kinds import KindModel
from drivable.tasks import LongRunning, current_task

SUITE = "The MCP conformance suite's tasks scenarios call this tool by this exact name."

SLOW = LongRunning(duration="seconds", timeout_s=90, keep_s=600, on_worker_lost="restart")
REQUIRED = LongRunning(duration="seconds", timeout_s=60, keep_s=600, support="required")
NAME_FORM = Elicit(
    "What is your name?",
    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
)


class GreetArguments(KindModel):
    name: str = Field(description="Who to greet.", max_length=200)


class SlowArguments(KindModel):
    seconds: float = Field(default=1, ge=0, le=120, description="How long to work, in seconds.")
    label: str = Field(default="", max_length=200, description="A label echoed in the result.")


class NoArguments(KindModel):
    pass


class DeleteArguments(KindModel):
    filename: str = Field(description="The (pretend) file to delete.", max_length=200)


class Said(Output):
    text: str


class Computed(Output):
    text: str
    label: str
    seconds: float


class Deleted(Output):
    text: str
    filename: str
    deleted: bool


class Answered(Output):
    text: str
    actions: list[str]


def register(contract: Contract) -> None:
    """Add the tasks scenarios' tools (skipping any the contract already has)."""

    def tool(name: str, **options: Any) -> Callable[[Any], Any]:
        if name in contract.tools:
            return lambda handler: handler
        return contract.tool(name=name, effects=READ_ONLY, allow_name=SUITE, **options)

    @tool(
        "greet",
        title="Greet",
        description="Returns the greeting 'Hello, {name}!' as plain text, at once (never a task). "
        "Use it when a client tests a plain call beside task tools. "
        'Example: {"name": "<name>"}.',
    )
    async def greet(args: GreetArguments, call: Call) -> Text:
        return Text(f"Hello, {args.name}!")

    @tool(
        "slow_compute",
        title="Slow compute",
        description="Works for `seconds` seconds (0 to 120), reporting each tenth of a second, then "
        "echoes `label`. Use it when a client tests a task with progress; seconds over 120 are "
        'refused. Example: {"seconds": "<seconds>", "label": "<label>"}.',
        task=SLOW,
    )
    async def slow_compute(args: SlowArguments, call: Call) -> Computed:
        steps = int(args.seconds * 10)
        for step in range(steps):
            await asyncio.sleep(0.1)
            await call.report_progress(
                step + 1, steps, f"Worked {(step + 1) / 10:g} of {args.seconds:g} s."
            )
        return Computed(
            text=f"Computed for {args.seconds:g} s ({args.label}).",
            label=args.label,
            seconds=args.seconds,
        )

    @tool(
        "failing_job",
        title="Failing job",
        description="Always ends with a tool error after about a second; runs only as a task. Use "
        "it when a client tests a failed task result; called without a task it is refused. "
        "Example: {}.",
        errors=["internal_error"],
        task=REQUIRED,
    )
    async def failing_job(args: NoArguments, call: Call) -> Said:
        await asyncio.sleep(1)
        raise ToolError(
            "internal_error",
            "failing_job always fails, to test tool errors in tasks.",
            hint="Nothing to fix: failing_job always fails.",
        )

    @tool(
        "protocol_error_job",
        title="Protocol error job",
        description="Always ends with a protocol error (task status failed). Use it when a client "
        "tests a task that fails; called without a task it is refused. Example: {}.",
        errors=["internal_error"],
        task=REQUIRED,
    )
    async def protocol_error_job(args: NoArguments, call: Call) -> Said:
        await asyncio.sleep(0.2)
        task = current_task()
        if task is not None:
            task.fail("protocol_error_job always fails at the protocol level.")
        raise ToolError(
            "internal_error",
            "protocol_error_job always fails.",
            hint="Nothing to fix: protocol_error_job always fails.",
        )

    @tool(
        "confirm_delete",
        title="Confirm delete",
        description="Asks the client to confirm deleting `filename` (a pretend file: nothing is "
        "deleted), then reports the answer; runs only as a task. Use it when a client tests input "
        'inside a task; called without a task it is refused. Example: {"filename": "<filename>"}.',
        task=REQUIRED,
    )
    async def confirm_delete(args: DeleteArguments, call: Call) -> Deleted:
        task = current_task()
        assert task is not None  # support="required": never a blocking call
        answer = await task.elicit(
            f"Delete {args.filename}?",
            {
                "type": "object",
                "properties": {"confirm": {"type": "boolean"}},
                "required": ["confirm"],
            },
        )
        content = answer.get("content") or {}
        confirmed = answer.get("action") == "accept" and bool(content.get("confirm"))
        verdict = "confirmed" if confirmed else "not confirmed"
        return Deleted(
            text=f"Deletion of {args.filename} {verdict}.",
            filename=args.filename,
            deleted=confirmed,
        )

    @tool(
        "multi_input",
        title="Multiple inputs",
        description="Asks the client two questions at once and reports both answers; runs only "
        "as a task. Use it when a client tests several inputs in one task round; called "
        "without a task it is refused. Example: {}.",
        task=REQUIRED,
    )
    async def multi_input(args: NoArguments, call: Call) -> Answered:
        task = current_task()
        assert task is not None
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
        }
        first, second = await asyncio.gather(
            task.elicit("What is your name?", schema), task.elicit("Confirm?", schema)
        )
        actions = [str(first.get("action")), str(second.get("action"))]
        return Answered(text=f"Both answers received ({', '.join(actions)}).", actions=actions)

    @tool(
        "test_tool_with_task",
        title="Greet after asking, as a task",
        description="Asks the user's name (input-required rounds before the task starts), then "
        "returns the greeting as plain text from a task; runs only as a task. Use it when a client tests input before a "
        "task; called without a task it is refused. Example: {}.",
        task=LongRunning(
            duration="seconds",
            timeout_s=60,
            keep_s=600,
            support="required",
            on_worker_lost="restart",
            asks_first={"user_name": NAME_FORM},
        ),
    )
    async def tool_with_task(args: NoArguments, call: Call) -> Text:
        answer = await call.client.ask("user_name", NAME_FORM)  # answered before the task began
        await asyncio.sleep(0.2)
        name = answer.content.get("name") if answer.accepted else None
        return Text(f"Hello, {name or 'stranger'}!")
