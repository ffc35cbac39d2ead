"""§7 Long-running operations, where the listed surface shows them.

A tool says it may answer with a task through the standard `execution.taskSupport` ("optional" or
"required") or drivable's `_meta["dev.drivable/task"]`. The static rules read those declarations
against what the server advertises and what the description tells a model; running a task and
timing progress need long-running probes, which the audit does not make.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding, tool_subject
from drivable.audit.rules.declare import Rules

EXTENSION = "io.modelcontextprotocol/tasks"
DRIVABLE_TASK_META = "dev.drivable/task"
# What a model needs to read before it calls: that the call may take long, and what bounds it.
DURATION_CUES = re.compile(
    r"\b(long[- ]running|seconds?|minutes?|hours?|takes? (up to|about)|timeout|stopped after|"
    r"task(s|/get| id| handle)?)\b",
    re.I,
)

RULES = Rules()


def task_support(tool: dict[str, Any]) -> str | None:
    """'optional' or 'required' when the tool declares it may answer with a task, else None."""
    execution = tool.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") in ("optional", "required"):
        return str(execution["taskSupport"])
    meta = tool.get("_meta")
    declared = meta.get(DRIVABLE_TASK_META) if isinstance(meta, dict) else None
    if isinstance(declared, dict) and declared.get("support") in ("optional", "required"):
        return str(declared["support"])
    return None


def advertises_tasks(capabilities: dict[str, Any]) -> bool:
    """The extension (2026-07-28), or the core `tasks` capability of 2025-11-25 with tool calls
    among its requests (the handshake era had tasks in the protocol itself)."""
    extensions = capabilities.get("extensions")
    if isinstance(extensions, dict) and EXTENSION in extensions:
        return True
    core = capabilities.get("tasks")
    requests = core.get("requests") if isinstance(core, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and "call" in tools


def _declaring(ctx: StaticContext) -> list[tuple[dict[str, Any], str]]:
    return [(tool, support) for tool in ctx.tools if (support := task_support(tool))]


@RULES.static(
    "7.declare-duration",
    "Describe duration, timeout, progress, and when a task may be returned.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static+probe",
        "The description of a tool that declares task support says that it is long-running: "
        "its usual duration or timeout, or that it may return a task. A probe call that gets no "
        "answer within `--timeout` is a finding unless the description says the tool is long "
        "or the tool offers a task.",
        "A model picks and schedules calls from descriptions; a call that silently takes minutes "
        "or returns a handle instead of a result surprises it, and it retries or gives up. A call "
        "that never returns stalls the whole turn, and the model cannot tell whether it applied.",
        "`summarize_decisions`: 'Tally every decision a search matches.' with taskSupport set; "
        "a calculator whose `9**9**9` never returns.",
        "Add one sentence: 'Long-running (usually seconds); stopped after 2 min; with the tasks "
        "extension it returns a task id to poll with tasks/get.' (drivable adds it from "
        "`LongRunning`.) Bound the work of a tool that is not long by nature (a time or size "
        "limit) and answer a structured error past it.",
        levels=(
            (
                "major",
                "a probe call got no answer within the timeout and nothing says the tool is long",
            ),
        ),
    ),
)
def _declare_duration(ctx: StaticContext) -> Iterator[Finding]:
    for tool, _ in _declaring(ctx):
        description = str(tool.get("description") or "")
        if not DURATION_CUES.search(description):
            yield finding(
                "7.declare-duration",
                "minor",
                tool_subject(tool),
                "Declares task support but its description does not say it is long-running.",
                {"description": description[:500]},
                "Say its usual duration or timeout and that it may return a task to poll.",
            )


@RULES.static(
    "7.task-support",
    "Tasks only for requests declaring the extension + server advertising it; else never; can't proceed → -32021.",
    "a+b",
    doc=RuleDoc(
        "major",
        "static",
        "A tool that declares task support (`execution.taskSupport` or drivable's "
        f"`_meta['{DRIVABLE_TASK_META}']`) is served by a server that advertises the "
        f"`{EXTENSION}` extension in its capabilities (in the 2025-11-25 era, the core "
        "`tasks` capability with `requests.tools.call`).",
        "A client only creates, polls and cancels tasks with a server that advertised the "
        "extension; a task tool without it either never runs as a task or answers task handles "
        "the client has no method to follow.",
        f"`taskSupport: 'required'` with `capabilities.extensions` lacking `{EXTENSION}`.",
        f"Advertise `capabilities.extensions['{EXTENSION}']` (drivable does so for any contract "
        "with a `LongRunning` tool), or drop the declaration.",
        levels=(("critical", "the tool requires a task (taskSupport 'required')"),),
    ),
)
def _task_support(ctx: StaticContext) -> Iterator[Finding]:
    declaring = _declaring(ctx)
    if not declaring:
        ctx.note(7, "no tool declares task support")
        return
    ctx.note(7, f"{len(declaring)} task tools against the advertised extensions")
    if advertises_tasks(ctx.capabilities):
        return
    for tool, support in declaring:
        yield finding(
            "7.task-support",
            "critical" if support == "required" else "major",
            tool_subject(tool),
            f"Declares task support '{support}' but the server does not advertise {EXTENSION}.",
            {"taskSupport": support, "capabilities": sorted(ctx.capabilities)},
            f"Advertise capabilities.extensions['{EXTENSION}'] or drop the declaration.",
        )


# This module's rules alone, in declaration order (the registry runs every module's).
check = RULES.check
