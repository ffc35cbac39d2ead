"""The loop: an agent drives a real MCP client through one workflow; the scorer watches every call.

The solver owns the connection (the real SDK `Client` over stdio, HTTP or in-process serialized),
discovery, forced errors and the trace; the scorer judges and the agent decides.
"""

from __future__ import annotations

import json
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import anyio
import jsonschema
from pydantic import ValidationError

from drivable.contract import Contract, envelope_of
from drivable.contract.catalog import ENTRY
from drivable.contract.envelope import reads_as_error
from drivable.eval.catalog import through_entry
from drivable.eval.distractors import Distractor, Distractors, opened
from drivable.eval.listing import Listing
from drivable.eval.scorer import Normalizer, StepScore, Tracker, contains, discovery_cost
from drivable.eval.tasks import TaskHost, TasksExtension, TaskStarted, offered
from drivable.eval.trace import TraceWriter, record
from drivable.eval.turns import Agent, Finish, Observation, ToolCall
from drivable.eval.unanswered import describe_error, http_refusal
from drivable.eval.user import WorkflowUser
from drivable.eval.workflow import Workflow
from drivable.target import Mode, Target, connect

SCHEMA_CODES = {"invalid_arguments", "unknown_tool"}
DRIVABLE_META = "dev.drivable/"

AgentFactory = Callable[[int], Agent]  # seed -> a fresh agent for one trial


@dataclass
class EvalTarget:
    """What the eval drives. `contract` (drivable servers) makes the eval validate through the very
    schema objects the handler uses (seed rule 3)."""

    target: Target
    contract: Contract | None = None
    mode: Mode | None = None
    label: str = ""
    errlog: TextIO | None = None  # a stdio server's stderr
    # other servers whose tools are listed beside the target's (`drivable.eval.distractors`)
    distractors: tuple[Distractor, ...] = ()
    # a file-backed server's trial target, made in a fresh directory (`eval.commandsets`)
    per_trial: Callable[[Path], Target] | None = None
    # the client declares elicitation and the workflow's user answers (`drivable.eval.user`)
    user: bool = False
    # tools that change, counted as such on a side whose listing does not say so (a naive twin)
    destructive: frozenset[str] = frozenset()

    def describe(self) -> dict[str, Any]:
        out = self.target.describe()
        out["contract"] = self.contract.name if self.contract is not None else None
        out["label"] = self.label
        if self.distractors:
            out["distractors"] = [d.label for d in self.distractors]
        if self.user:
            out["user"] = "answers elicitation as the workflow's user"
        return out


def contract_normalizer(contract: Contract) -> Normalizer:
    def normalize(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        if tool not in contract.tools:
            return None
        try:
            validated = contract.validate(tool, arguments)
        except ValidationError:
            return None
        dumped = validated.value.model_dump(mode="json")
        return dumped if isinstance(dumped, dict) else None

    return normalize


def rejected_by_schema(
    obs: Observation, tools: Mapping[str, dict[str, Any]], contract: Contract | None
) -> bool:
    """Was this call refused before any handler ran (unknown tool or arguments the schema refused)?"""
    if obs.call.tool not in tools:
        return obs.is_error
    if contract is not None and obs.call.tool in contract.tools:
        try:
            contract.validate(obs.call.tool, obs.call.arguments)
        except ValidationError:
            return True
        return False
    if not obs.is_error:
        return False
    env = obs.envelope()
    if env is not None:
        return env.get("code") in SCHEMA_CODES
    schema = tools[obs.call.tool].get("inputSchema") or {}
    try:
        jsonschema.validate(obs.call.arguments, schema)
    except jsonschema.ValidationError:
        return True
    except jsonschema.SchemaError:
        return False
    return "validation error" in obs.text.lower()


def speaks_envelope(tools: Sequence[dict[str, Any]], contract: Contract | None) -> bool:
    if contract is not None:
        return True
    return any(any(str(k).startswith(DRIVABLE_META) for k in (t.get("_meta") or {})) for t in tools)


def observation_of(call: ToolCall, result: Any) -> Observation:
    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
    structured = envelope_of(result) if result.is_error else result.structured_content
    # an "Error: ..." returned as a success is the failure a model reads (decision 0026)
    failed = bool(result.is_error) or reads_as_error(texts, structured)
    return Observation(
        call=call,
        is_error=failed,
        structured=structured if isinstance(structured, dict) else None,
        text="\n".join(texts),
    )


async def _call(
    client: Any,
    call: ToolCall,
    host: TaskHost | None = None,
    others: Distractors | None = None,
) -> Observation:
    if host is not None and host.handles(call):
        return await host.call(call)
    name = call.tool
    if others is not None and others.handles(call):
        client, name = others.route(call)
    try:
        result = await client.call_tool(name, call.arguments)
    except TaskStarted as started:  # a long-running tool answered with a task handle
        if host is None:
            return Observation(call, True, None, "The server started a task this host cannot poll.")
        return host.started(call, started.handle)
    except Exception as exc:  # a protocol error is an observation too: the agent sees it
        return Observation(call=call, is_error=True, structured=None, text=f"{exc}")
    return observation_of(call, result)


@dataclass
class TrialResult:
    workflow: str
    fixture: str
    agent: str
    trial: int
    seed: int
    verdict: dict[str, Any]
    seconds: float
    skipped: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    split: str | None = None  # tune or holdout, for a bundled set's workflow

    def to_dict(self) -> dict[str, Any]:
        return {
            "workflow": self.workflow,
            "fixture": self.fixture,
            "split": self.split,
            "agent": self.agent,
            "trial": self.trial,
            "seed": self.seed,
            "seconds": round(self.seconds, 4),
            "skipped": self.skipped,
            "usage": self.usage,
            **self.verdict,
        }


def skipped(
    workflow: Workflow, agent: str, trial: int, seed: int, seconds: float, why: str
) -> TrialResult:
    """A trial that did not run, and why (a capability or extension it needs)."""
    verdict = {"steps": [], "completed": False}
    return TrialResult(
        workflow.name,
        workflow.fixture,
        agent,
        trial,
        seed,
        verdict,
        seconds,
        skipped=why,
        split=workflow.split,
    )


async def run_trial(
    target: EvalTarget,
    workflow: Workflow,
    agent: Agent,
    *,
    trial: int = 0,
    seed: int = 0,
    run_id: str = "",
    trace: TraceWriter | None = None,
    capabilities: set[str] | frozenset[str] = frozenset(),
) -> TrialResult:
    if target.per_trial is not None:
        with tempfile.TemporaryDirectory(prefix="drivable-trial-") as scratch:
            made = await anyio.to_thread.run_sync(target.per_trial, Path(scratch))
            return await run_trial(
                replace(target, target=made, per_trial=None), workflow, agent, trial=trial,
                seed=seed, run_id=run_id, trace=trace, capabilities=capabilities,
            )  # fmt: skip
    started = time.perf_counter()
    if target.target.kind == "stdio":  # a process of its own a trial: no state carries over
        capabilities = {*capabilities, "fresh-server"}
    missing = [r for r in workflow.requires if r not in capabilities]
    if missing:
        return skipped(workflow, agent.name, trial, seed, 0.0, f"needs {', '.join(missing)}")
    try:
        return await _run_connected(target, workflow, agent, trial, seed, run_id, trace, started)
    except Exception as error:  # a server that cannot be reached or refuses us is a result too
        verdict: dict[str, Any] = {
            "steps": [StepScore(s.name).record() for s in workflow.steps],
            "completed": False,
            "tool_calls": 0,
            "tokens": 0,
            "bytes": 0,
            "within_budget": False,
            "state": [],
            "discovery": {"bytes": 0, "tokens": 0},
            "finished_by_agent": False,
            "connect_error": describe_error(error),
        }
        if target.target.url is not None:
            verdict["http_refusal"] = await http_refusal(target.target)
        return TrialResult(
            workflow.name,
            workflow.fixture,
            agent.name,
            trial,
            seed,
            verdict,
            time.perf_counter() - started,
            split=workflow.split,
        )


async def _run_connected(
    target: EvalTarget,
    workflow: Workflow,
    agent: Agent,
    trial: int,
    seed: int,
    run_id: str,
    trace: TraceWriter | None,
    started: float,
) -> TrialResult:
    extensions = [TasksExtension()] if workflow.tasks else []
    listed = Listing()  # read again before a turn once the server says its tools changed
    normalize = contract_normalizer(target.contract) if target.contract is not None else None
    user = WorkflowUser(workflow, normalize) if target.user else None
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            connect(
                target.target, mode=target.mode, errlog=target.errlog, extensions=extensions,
                message_handler=listed.heard, elicitation_callback=user,
            )
        )  # fmt: skip
        tools = await listed.read(client)
        host = TaskHost(client, tools) if workflow.tasks and offered(client) else None
        if workflow.tasks and host is None:
            why = "needs the tasks extension (this connection did not negotiate it)"
            return skipped(workflow, agent.name, trial, seed, time.perf_counter() - started, why)
        server_tools = tools
        # the host's task tools, shown beside the server's to every agent, then other servers'
        task_tools = host.tools() if host is not None else []
        others = await stack.enter_async_context(
            opened(
                target.distractors, (str(t["name"]) for t in [*tools, *task_tools]), target.errlog
            )
        )

        def beside(server: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [*server, *task_tools, *others.tools()]

        tools = beside(server_tools)
        by_name = {str(t["name"]): t for t in tools}
        entered = set(ENTRY) <= set(by_name)  # a large catalog, listed through its entry tools
        tracker = Tracker(
            workflow,
            tools,
            normalize=normalize,
            discovery=discovery_cost(listed.pages),
            destructive=target.destructive,
        )
        envelope_style = speaks_envelope(server_tools, target.contract)
        forced_by_step = {f.step: f for f in workflow.forced_errors}
        await agent.begin(workflow, tools)
        last: Observation | None = None
        cap = max(workflow.budget.tool_calls * 3, 12)
        seq = 0
        while not tracker.all_done:
            if seq >= cap:
                tracker.stopped_by = "call_cap"
                break
            if listed.stale:  # as hosts do: the new listing from the next turn on
                tools = beside(await listed.read(client))
                by_name = {str(t["name"]): t for t in tools}
                tracker.relisted(tools, discovery_cost(listed.pages))
                agent.relisted(tools)
            try:
                action = await agent.act(last)
            except Exception as error:  # the agent broke (a model's context overflowed, ...)
                tracker.agent_error = describe_error(error)
                break
            if isinstance(action, Finish):
                if action.cap is None:
                    tracker.finished_by_agent = True
                else:
                    tracker.stopped_by = action.cap
                break
            seq += 1
            t0 = time.perf_counter()
            forced_step = tracker.should_force()
            if forced_step is not None:
                forced = forced_by_step[forced_step]
                env = forced.envelope()
                last = (
                    Observation(action, True, env, json.dumps(env, ensure_ascii=False))
                    if envelope_style
                    else Observation(action, True, None, forced.text())
                )
            else:
                if user is not None:  # the call a question during it is about
                    user.in_flight = through_entry(Observation(action, False, None, "")).call
                last = await _call(client, action, host, others)
            latency = (time.perf_counter() - t0) * 1000
            scored = host.attributed(last) if host is not None else last
            if entered:
                scored = through_entry(scored)
            step, attempt = tracker.observe(scored, forced=forced_step is not None)
            if trace is not None:
                trace.write(
                    record(
                        last,
                        run=run_id,
                        workflow=workflow.name,
                        agent=agent.name,
                        trial=trial,
                        seq=seq,
                        step=step,
                        attempt=attempt,
                        forced=forced_step is not None,
                        rejected_by_schema=forced_step is None
                        and rejected_by_schema(last, by_name, target.contract),
                        latency_ms=latency,
                        model=getattr(agent, "last_turn", None),
                    )
                )
        for check in workflow.state:
            call = ToolCall(check.call.tool, dict(check.call.arguments))
            obs = await _call(client, call, host)
            # a state query may answer with an error (not_found after a delete): read its text
            passed = (check.error is None or obs.is_error == check.error) and (
                check.result_contains is None or contains(obs, check.result_contains)
            )
            tracker.observe_state(check.call.model_dump(), obs, passed)
        if user is not None:
            tracker.user_said = dict(user.said)
    usage = agent.usage
    return TrialResult(
        workflow.name,
        workflow.fixture,
        agent.name,
        trial,
        seed,
        tracker.verdict(),
        time.perf_counter() - started,
        usage={
            "reported": usage.reported,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "parse_paths": dict(usage.parse_paths),
            "turns": list(usage.turns),
        },
        split=workflow.split,
    )


@dataclass
class Job:
    workflow: Workflow
    agent_name: str
    make_agent: AgentFactory
    trial: int
    seed: int


async def run_jobs(
    target: EvalTarget,
    jobs: Sequence[Job],
    *,
    concurrency: int = 4,
    trace: TraceWriter | None = None,
    on_done: Callable[[TrialResult], None] | None = None,
    capabilities: set[str] | frozenset[str] = frozenset(),
) -> list[TrialResult]:
    """Run trials concurrently (bounded), in a stable order in the returned list."""
    run_id = uuid.uuid4().hex[:12]
    results: list[TrialResult | None] = [None] * len(jobs)
    limiter = anyio.Semaphore(max(1, concurrency))

    async def one(index: int, job: Job) -> None:
        async with limiter:
            res = await run_trial(
                target,
                job.workflow,
                job.make_agent(job.seed),
                trial=job.trial,
                seed=job.seed,
                run_id=run_id,
                trace=trace,
                capabilities=capabilities,
            )
        results[index] = res
        if on_done is not None:
            on_done(res)

    async with anyio.create_task_group() as tg:
        for index, job in enumerate(jobs):
            tg.start_soon(one, index, job)
    return [r for r in results if r is not None]
