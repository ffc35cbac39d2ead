"""The bundled billing workflows: the refund two-step, a wrong tool, user spellings, a customer
named by name, paging, a retry after a timeout, an id that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivable.eval.agents.simulated import PERSONAS
from drivable.eval.solver import EvalTarget
from drivable.serve.mount import build_server
from drivable.target import Target
from tests.eval.evalkit import run_all


@pytest.fixture
def billing_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EvalTarget:
    monkeypatch.setenv("DRIVABLE_BILLING_STORE", f"sqlite:///{tmp_path / 'billing.sqlite'}")
    from drivable.serve.http import load_contract
    from drivable.servers import import_path

    billing = load_contract(import_path("billing"))
    return EvalTarget(
        Target(server=build_server(billing), mode="legacy"), contract=billing, mode="legacy"
    )


async def test_every_persona_completes_every_billing_workflow(billing_target: EvalTarget) -> None:
    results, doc = await run_all(billing_target, trials=2, workflow_set="billing")
    assert len(results) == 10 * len(PERSONAS) * 2
    for r in results:
        assert r.verdict["completed"], (r.workflow, r.agent, r.verdict["steps"])
        for step in r.verdict["steps"]:
            assert step["attempt"] in (1, 2), (r.workflow, r.agent, step)
    overall = doc["summary"]["overall"]
    assert overall["errors_naming_next_call"]["rate"] == 1.0
    refund = doc["summary"]["workflows"]["refund-two-step"]["steps"]["refunded"]
    # nobody refunds on the first call: the server insists on the preview, and says how
    assert refund["first_call"]["k"] == 0 and refund["passed"]["rate"] == 1.0
