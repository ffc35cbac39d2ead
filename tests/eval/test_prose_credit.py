"""A server whose errors name the next call in words gets the credit a model gives it: every
persona follows "Use get_room with the day to see free times", and the scorer counts it as a
rejection naming the next call, in prose."""

from __future__ import annotations

from pathlib import Path

from drivable.eval.agents.simulated import SimulatedAgent
from drivable.eval.report import run_document
from drivable.eval.solver import EvalTarget, run_jobs
from drivable.eval.workflow import load
from drivable.target import Target
from tests.eval.evalkit import jobs
from tests.eval.prose_rooms_server import server

FLOW = Path(__file__).parent / "data" / "book_a_free_time.yaml"


async def test_personas_follow_a_next_call_written_in_prose_and_the_scorer_credits_it() -> None:
    target = EvalTarget(Target(server=server, mode="legacy"), mode="legacy")
    results = await run_jobs(target, jobs([load(FLOW)], trials=2))
    refused = [r for r in results if any(s["errors"] for s in r.verdict["steps"])]
    assert refused
    for r in refused:
        step = r.verdict["steps"][0]
        assert step["errors_naming_next_call_prose"] == step["errors"]
        assert step["errors_naming_next_call_structured"] == 0
        # every persona that sends the values as the user gave them reads the words and books;
        # a speller's "1. 6. 2026" or "9 AM" is read by no kind on this server, which books another
        # day or refuses every time: the server's reading, not its next step, fails it
        habits = SimulatedAgent(r.agent.split(":", 1)[1], r.seed).habits
        if "spell" not in habits:
            assert r.verdict["completed"], (r.agent, r.verdict["steps"])
    spellers = {"simulated:speller", "simulated:mixed"}
    assert all(r.verdict["completed"] for r in results if r.agent not in spellers)
    overall = run_document(
        results, target=target.describe(), agent="simulated", personas=[], trials=2, seed=0,
        seconds=0.0,
    )["summary"]["overall"]  # fmt: skip
    assert overall["errors_naming_next_call_prose"]["rate"] == 1.0
    assert overall["errors_naming_next_call_structured"]["k"] == 0
