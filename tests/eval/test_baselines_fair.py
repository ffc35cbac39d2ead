"""The side by side is the same work: a step's done condition holds on the naive twin as on the
drivable server when each is sent the step's own done call.

A `result_contains` needle in one server's shape scores the other side's right call as a failure.
Two did: caselaw pagination wanted `"has_more":true`, which the naive twin never sends (it pages
by `next_cursor` alone), and the whole-result summary wanted `"by_court":[{"value":`, where the
twin tallies into an object. The real model's naive side could not have passed either step.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from drivable.eval.scorer import contains
from drivable.eval.sidebyside import runnable
from drivable.eval.surfaces import load
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import bundled_sets, workflow_set
from drivable.serve.mount import build_server
from drivable.target import Target, connect


def _literal(value: Any) -> bool:
    """A done argument the test can send as it is (no "*" wildcard, no "$tool.path" reference)."""
    if isinstance(value, str):
        return value != "*" and not value.startswith("$")
    if isinstance(value, dict):
        return all(_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(_literal(v) for v in value)
    return True


def _checks() -> list[tuple[str, str, str, str, dict[str, Any], str]]:
    found = []
    # the naive twins served in process; a set run by its command line (a wrapped third-party
    # server) is checked over the wire in test_command_sets.py
    for name in (n for n in bundled_sets() if not workflow_set(n).by_command):
        for workflow in runnable(name, []):
            for step in workflow.steps:
                done = step.done
                if done.result_contains is None or done.call is None:
                    continue
                # a two-step write's done call is only part of the confirming call (the token
                # comes from the dry run in `via`): not a call to send as it is
                if step.via or not _literal(done.call.arguments):
                    continue
                found.append(
                    (
                        name,
                        workflow.name,
                        step.name,
                        done.call.tool,
                        dict(done.call.arguments),
                        done.result_contains,
                    )
                )
    return found


CHECKS = _checks()


def test_the_steps_checked_here_include_the_two_once_unfair() -> None:
    steps = {(s, w, st) for s, w, st, *_ in CHECKS}
    assert ("caselaw", "pagination", "page-1") in steps
    assert ("caselaw", "whole-result-summary", "tallied") in steps


async def _answer(server: Any, tool: str, arguments: dict[str, Any]) -> Observation:
    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return Observation(
        ToolCall(tool, arguments), bool(result.is_error), result.structured_content, text
    )


@pytest.mark.parametrize(
    ("name", "workflow", "step", "tool", "arguments", "needle"),
    CHECKS,
    ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CHECKS],
)
async def test_a_done_call_meets_its_needle_on_both_sides(
    name: str,
    workflow: str,
    step: str,
    tool: str,
    arguments: dict[str, Any],
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DRIVABLE_BILLING_STORE", f"sqlite:///{tmp_path}/billing.sqlite")
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    twin = importlib.import_module(str(workflow_set(name).twin_module)).server
    contract = load(name)
    # a keyed tool takes the call with a key of the caller's own, as a model sends it; the naive
    # twin takes none, and the scorer judges both alike (solver.contract_normalizer)
    keyed = "idempotency_key" in contract.tools[tool].input_model.model_fields
    drivable_arguments = (
        {"idempotency_key": f"fair-{workflow}", **arguments} if keyed else arguments
    )
    for side, server, sent in (
        ("naive", twin, arguments),
        ("drivable", build_server(contract), drivable_arguments),
    ):
        seen = await _answer(server, tool, sent)
        assert not seen.is_error, (side, seen.text[:500])
        assert contains(seen, needle), (side, needle, json.dumps(seen.payload())[:500])


@pytest.mark.parametrize("court", ["Constitutional Court", "Ústavní soud"])
async def test_a_court_sent_as_the_query_is_judged_as_that_court(court: str) -> None:
    """The model wrote the court the user named into `query`; the server searched that court and
    said so in a note. The scorer judges the call as the server read it: the right date then
    completes caselaw's invalid-argument step, a wrong one does not."""
    from drivable.eval.scorer import satisfies
    from drivable.eval.solver import contract_normalizer
    from drivable.eval.workflow import bundled

    contract = load("caselaw")
    workflow = next(w for w in bundled("caselaw") if w.name == "invalid-argument")
    (step,) = workflow.steps
    assert step.done.call is not None and step.done.call.arguments["court"] == "Ústavní soud"
    server = build_server(contract)
    for date, meets in (("2021-02-01", True), ("2021-01-02", False)):
        seen = await _answer(
            server, "search_decisions", {"query": court, "date_from": date, "limit": 5}
        )
        assert not seen.is_error, seen.text[:300]
        assert satisfies(step.done, seen, contract_normalizer(contract)) is meets, (
            date,
            seen.text[:300],
        )
