"""The bundled caselaw workflows: every persona, first or second attempt, every rejection names
the next call (courts in English, day-first dates, a remembered older surface, cursors, a
long-running tally of a whole result set)."""

from __future__ import annotations

from drivable.eval.agents.simulated import PERSONAS
from tests.eval.evalkit import caselaw_target, run_all


async def test_every_persona_completes_every_caselaw_workflow() -> None:
    results, doc = await run_all(caselaw_target(), trials=2, workflow_set="caselaw")
    ran = [r for r in results if r.skipped is None]
    # 14 workflows: auth-failure skipped, and the two long-running ones (the legacy wire carries
    # no tasks extension; tests/eval/test_caselaw_tasks.py runs them on 2026-07-28)
    assert len(ran) == 11 * len(PERSONAS) * 2
    for r in ran:
        assert r.verdict["completed"], (r.workflow, r.agent, r.verdict["steps"])
        for step in r.verdict["steps"]:
            assert step["attempt"] in (1, 2), (r.workflow, r.agent, step)
    overall = doc["summary"]["overall"]
    assert overall["errors_naming_next_call"]["rate"] == 1.0
    assert overall["errors_naming_next_call"]["n"] > 10
    skipped = {r.workflow for r in results if r.skipped}
    assert skipped == {"auth-failure", "long-running-task", "cancel-and-restart"}
