"""The same workflows against the naive server score measurably worse, and the table shows where."""

from __future__ import annotations

from drivable.eval.agents.simulated import PERSONAS
from drivable.eval.report import markdown_before_after, regressions, z_drop
from tests.eval.evalkit import drivable_target, naive_target, run_all


async def test_naive_scores_worse_and_the_table_shows_where() -> None:
    _, naive = await run_all(naive_target(), trials=2)
    _, drivable = await run_all(drivable_target(), trials=2)
    n, d = naive["summary"]["overall"], drivable["summary"]["overall"]
    # beyond noise, not just lower: a one-sided two-proportion z-test at 95 %
    assert (z := z_drop(n["completed"], d["completed"])) is not None and z > 1.645
    assert (z := z_drop(n["first_repair"], d["first_repair"])) is not None and z > 1.645
    assert d["completed"]["rate"] == 1.0 and n["completed"]["rate"] < 0.8
    # a naive error names no next call; every drivable rejection does
    assert n["errors_naming_next_call"]["k"] == 0
    assert d["errors_naming_next_call"]["rate"] == 1.0
    wf_n, wf_d = naive["summary"]["workflows"], drivable["summary"]["workflows"]
    # where: the ambiguous date (guessed month-first there, asked here) and the unknown id
    assert wf_n["invalid-argument"]["completed"]["k"] == 0
    assert wf_d["invalid-argument"]["completed"]["rate"] == 1.0
    assert wf_n["unknown-id"]["completed"]["k"] == 0
    # and where it costs: the drivable tools/list is several times larger (counted, not estimated)
    assert wf_d["cold-start"]["discovery"]["tokens"] > 3 * wf_n["cold-start"]["discovery"]["tokens"]
    table = markdown_before_after(naive, drivable)
    runs = 2 * len(PERSONAS)
    assert f"| invalid-argument | searched | 0% (0/{runs}) | 100% ({runs}/{runs}) |" in table
    assert "Overall: completed" in table and "not proof that it works for a model" in table
    # the gate: naive after drivable is a regression beyond noise; drivable after naive is not
    assert regressions(drivable, naive)
    assert not regressions(naive, drivable)
    print(table)  # visible with -s: the before/after table of this proof
