"""The trace keeps every call the schema rejected WHOLE, with its envelope (seed rule 2)."""

from __future__ import annotations

from pathlib import Path

from drivable.eval.agents.simulated import SimulatedAgent
from drivable.eval.solver import run_trial
from drivable.eval.trace import TraceWriter, read
from drivable.eval.workflow import Workflow, bundled
from tests.eval.evalkit import drivable_target, naive_target


def _wf(name: str) -> Workflow:
    return next(w for w in bundled("example") if w.name == name)


async def test_rejected_calls_are_recorded_whole_with_their_envelope(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as trace:
        await run_trial(
            drivable_target(), _wf("invalid-argument"), SimulatedAgent("speller", 1), trace=trace
        )
        await run_trial(
            drivable_target(), _wf("version-change"), SimulatedAgent("filler", 1), trace=trace
        )
    records = read(path)
    assert len(records) == len(trace.records) >= 4
    rejected = [r for r in records if r["rejected_by_schema"]]
    assert rejected
    first = rejected[0]
    assert first["arguments"] == {"query": "plan", "date_from": "01/02/2026", "limit": "4 000"}
    env = first["envelope"]
    assert env["code"] == "invalid_arguments"
    issue = env["issues"][0]
    assert issue["path"] == "date_from" and issue["readings"] == ["2026-02-01", "2026-01-02"]
    assert "result_text" in first and "result_excerpt" not in first  # whole, not an excerpt
    filler = next(r for r in rejected if r["workflow"] == "version-change")
    assert {"q", "page_size", "query", "date_from", "date_to", "limit", "detail"} <= set(
        filler["arguments"]
    )
    accepted = [r for r in records if not r["is_error"]]
    assert accepted and all(not r["rejected_by_schema"] for r in accepted)
    # one record per call, each naming its step and attempt
    assert all(r["step"] and r["attempt"] for r in records)


async def test_the_eval_judges_through_the_handlers_schema_objects() -> None:
    # "1. 6. 2026" matches the expected 2026-06-01 only because the contract read it so
    trace = TraceWriter(None)
    result = await run_trial(
        drivable_target(), _wf("cold-start"), SimulatedAgent("speller", 0), trace=trace
    )
    assert trace.records[0]["arguments"]["date_from"] == "1. 6. 2026"
    assert result.verdict["steps"][0]["first_call"] is True
    assert trace.records[0]["rejected_by_schema"] is False


async def test_a_naive_rejection_is_recorded_whole_too() -> None:
    trace = TraceWriter(None)
    await run_trial(naive_target(), _wf("version-change"), SimulatedAgent("filler", 0), trace=trace)
    rejected = [r for r in trace.records if r["rejected_by_schema"]]
    assert rejected and rejected[0]["envelope"] is None
    assert "validation error" in rejected[0]["result_text"]
