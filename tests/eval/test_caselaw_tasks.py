"""The long-running workflows: a host that speaks the tasks extension starts caselaw's tally as a
task, polls it and reads its result; cancels one and starts it again. Every persona, over the
2026-07-28 wire (the only one that carries the extension), against the real server in process."""

from __future__ import annotations

from drivable.eval.agents.simulated import PERSONAS, SimulatedAgent
from drivable.eval.solver import EvalTarget, _call, run_trial
from drivable.eval.tasks import CANCEL, GET, TaskHost, TasksExtension, offered
from drivable.eval.trace import TraceWriter
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Workflow, bundled, loads
from drivable.serve.mount import build_server
from drivable.target import Target, connect, wire
from tests.conformance.fixture import contract as fixture
from tests.eval.evalkit import caselaw_target, jobs

TASK_FLOWS = {"long-running-task", "cancel-and-restart"}


def _flows() -> list[Workflow]:
    return [w for w in bundled("caselaw") if w.name in TASK_FLOWS]


async def test_every_persona_starts_polls_reads_and_cancels_and_restarts() -> None:
    from drivable.eval.solver import run_jobs

    flows = _flows()
    assert {w.name for w in flows} == TASK_FLOWS and all(w.tasks for w in flows)
    trace = TraceWriter(None)
    results = await run_jobs(
        caselaw_target("auto"), jobs(flows, trials=1), concurrency=4, trace=trace
    )
    assert len(results) == len(flows) * len(PERSONAS)
    for r in results:
        assert r.skipped is None and r.verdict["completed"], (r.workflow, r.agent, r.verdict)
        for step in r.verdict["steps"]:
            assert step["attempt"] in (1, 2), (r.workflow, r.agent, step)
    calls = trace.records
    # The agents saw the handle, then read the result through the host's tool.
    started = [c for c in calls if c["tool"] == "summarize_decisions"]
    assert started and all('"resultType":"task"' in c["result_excerpt"] for c in started)
    polls = [c for c in calls if c["tool"] == GET]
    assert polls and all(c["arguments"]["taskId"] for c in polls)
    assert any('"status":"completed"' in c["result_excerpt"] for c in polls)
    assert {c["workflow"] for c in calls if c["tool"] == CANCEL} == {"cancel-and-restart"}


async def test_the_restarted_tally_not_the_cancelled_one_completes_the_step() -> None:
    """Reading the first (2018) task's result does not do the step that asks for the 2022 one."""
    flow = next(w for w in _flows() if w.name == "cancel-and-restart")
    wrong = flow.model_copy(
        update={
            "steps": [
                s.model_copy(update={"draft": flow.steps[0].draft}) if s.name == "restarted" else s
                for s in flow.steps
            ]
        }
    )
    result = await run_trial(caselaw_target("auto"), wrong, SimulatedAgent("literal"))
    steps = {s["name"]: s for s in result.verdict["steps"]}
    assert steps["started"]["passed"] and steps["cancelled"]["passed"]
    assert not steps["restarted"]["passed"] and not result.verdict["completed"]


async def test_without_the_extension_a_task_workflow_is_skipped_not_failed() -> None:
    for flow in _flows():
        result = await run_trial(caselaw_target("legacy"), flow, SimulatedAgent("literal"))
        assert result.skipped is not None and "tasks extension" in result.skipped


CANCEL_SLOW = """
name: cancel-slow
tasks: true
goal: Start a long computation, then stop it.
budget: {tool_calls: 3, tokens: 4000}
steps:
  - name: started
    ask: Start the computation.
    draft: {tool: slow_compute, arguments: {seconds: 60, label: eval}}
    done: {tool: slow_compute, result_contains: '"status":"working"'}
  - name: cancelled
    ask: Stop it.
    draft: {tool: cancel_task, arguments: {taskId: "$slow_compute.taskId"}}
    done: {tool: cancel_task, result_contains: '"status":"cancelled"'}
"""


async def test_cancel_task_stops_a_running_task_and_says_so() -> None:
    target = EvalTarget(Target(server=build_server(fixture), mode="auto"), contract=fixture)
    result = await run_trial(target, loads(CANCEL_SLOW), SimulatedAgent("literal"))
    assert result.verdict["completed"], result.verdict
    assert result.verdict["tool_calls"] == 2  # no waiting out the 60 s: cancelled at once


async def _until_ended(host: TaskHost, task_id: str) -> Observation:
    for _ in range(40):
        seen = await host.call(ToolCall(GET, {"taskId": task_id}))
        if (seen.structured or {}).get("status") != "working":
            return seen
    raise AssertionError("the task never ended")


async def test_a_failed_call_read_through_the_host_is_an_error_with_the_envelope() -> None:
    async with connect(
        Target(server=build_server(fixture), mode="auto"), extensions=[TasksExtension()]
    ) as client:
        assert offered(client)
        tools = [wire(t) for t in (await client.list_tools()).tools]
        host = TaskHost(client, tools)
        assert {t["name"] for t in host.tools()} == {GET, CANCEL}
        started = await _call(client, ToolCall("failing_job", {}), host)
        assert not started.is_error and started.structured is not None
        assert started.structured["resultType"] == "task" and "_meta" not in started.structured
        failed_tool = await _until_ended(host, started.structured["taskId"])
        # a tool error inside a completed task: the agent reads the envelope, and the scorer
        # counts it against the call that started the task
        assert failed_tool.is_error and failed_tool.envelope() is not None
        assert failed_tool.envelope()["code"] == "internal_error"  # type: ignore[index]
        assert host.attributed(failed_tool).call.tool == "failing_job"
        protocol = await _call(client, ToolCall("protocol_error_job", {}), host)
        assert protocol.structured is not None
        lost = await _until_ended(host, protocol.structured["taskId"])
        assert lost.is_error and '"status":"failed"' in lost.text
        unknown = await host.call(ToolCall(GET, {"taskId": "never-issued"}))
        assert unknown.is_error and unknown.envelope() is not None
        assert host.attributed(unknown) is unknown  # not a task of this trial
        empty = await host.call(ToolCall(CANCEL, {}))
        assert empty.is_error and empty.envelope()["issues"][0]["path"] == "taskId"  # type: ignore[index]


async def test_a_server_tool_named_like_a_host_tool_keeps_its_name() -> None:
    host = TaskHost(None, [{"name": GET}])
    names = {t["name"] for t in host.tools()}
    assert names == {f"host_{GET}", CANCEL}
    assert host.handles(ToolCall(f"host_{GET}", {})) and not host.handles(ToolCall(GET, {}))


def test_the_side_by_side_run_leaves_task_workflows_out_unless_named() -> None:
    """The naive twin serves no tasks: by default both sides run the same workflows."""
    from drivable.eval.sidebyside import runnable

    assert not TASK_FLOWS & {w.name for w in runnable("caselaw", [])}
    assert [w.name for w in runnable("caselaw", ["long-running-task"])] == ["long-running-task"]
