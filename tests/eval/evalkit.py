"""Helpers for the eval tests: the two targets and a run of every persona over a workflow set."""

from __future__ import annotations

from functools import partial
from typing import Any

from drivable.eval.agents.simulated import PERSONAS, SimulatedAgent
from drivable.eval.report import run_document
from drivable.eval.solver import EvalTarget, Job, TrialResult, run_jobs
from drivable.eval.trace import TraceWriter
from drivable.eval.workflow import Workflow, bundled
from drivable.serve.mount import build_server
from drivable.target import Mode, Target
from tests.contract.example_server import contract
from tests.eval.naive_notes_server import server as naive_server


def drivable_target() -> EvalTarget:
    """The example server, in process and serialized (JSON-RPC over memory streams)."""
    return EvalTarget(
        Target(server=build_server(contract), mode="legacy"), contract=contract, mode="legacy"
    )


def caselaw_target(mode: Mode = "legacy") -> EvalTarget:
    """caselaw in process; `auto` speaks the 2026-07-28 wire (where the tasks extension lives)."""
    from drivable.serve.http import load_contract
    from drivable.servers import import_path

    caselaw = load_contract(import_path("caselaw"))
    return EvalTarget(Target(server=build_server(caselaw), mode=mode), contract=caselaw, mode=mode)


def naive_target() -> EvalTarget:
    return EvalTarget(Target(server=naive_server, mode="legacy"), mode="legacy")


def jobs(workflows: list[Workflow], trials: int = 2, seed: int = 0) -> list[Job]:
    return [
        Job(wf, f"simulated:{p}", partial(SimulatedAgent, p), t, seed + t)
        for wf in workflows
        for p in PERSONAS
        for t in range(trials)
    ]


async def run_all(
    target: EvalTarget,
    trials: int = 2,
    seed: int = 0,
    trace: TraceWriter | None = None,
    workflow_set: str = "example",
) -> tuple[list[TrialResult], dict[str, Any]]:
    results = await run_jobs(
        target, jobs(bundled(workflow_set, "tune"), trials, seed), concurrency=8, trace=trace
    )
    doc = run_document(
        results,
        target=target.describe(),
        agent="simulated",
        personas=list(PERSONAS),
        trials=trials,
        seed=seed,
        seconds=0.0,
    )
    return results, doc
