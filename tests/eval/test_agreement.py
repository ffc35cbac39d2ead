"""Do the personas agree with the model on the order of every pair of servers they compare?

A property of `report.order_agreement` over generated runs, and the check on recorded runs: the
personas' side by side at this commit against the model's last full side by side."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.report import order_agreement
from drivable.eval.sidebyside import merge_runs, runs_of

RUNS = Path(__file__).resolve().parents[2] / "docs" / "runs"
PERSONAS_RUN = RUNS / "personas-r14-2026-12-05.json"
MODEL_RUN = RUNS / "eval-local-r13-2026-12-04.json"
# the held-out split: the personas as decision 0038 has them, against round 15's naive and after
PERSONAS_HOLDOUT = RUNS / "personas-holdout-0038-2026-12-05.json"
MODEL_HOLDOUT = [
    RUNS / "eval-local-holdout-naive-r15-2026-12-05.json",
    RUNS / "eval-local-holdout-after-r15-2026-12-05.json",
]
SIDES = ("naive", "drivable")


def _doc(trials: list[dict[str, Any]]) -> dict[str, Any]:
    return {"trials": trials}


@st.composite
def side_by_side(draw: st.DrawFn, splits: bool) -> dict[str, dict[str, dict[str, Any]]]:
    """Sets of two sides, each trial of a workflow completed or not; some workflows only here."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in draw(st.sets(st.sampled_from(["example", "caselaw", "billing"]), min_size=1)):
        out[name] = {}
        for side in SIDES:
            trials = []
            for wf in draw(st.sets(st.sampled_from("abcdef"), min_size=1)):
                split = ("tune" if wf in "abc" else "holdout") if splits else None
                for _ in range(draw(st.integers(1, 3))):
                    trial = {"workflow": wf, "completed": draw(st.booleans())}
                    if split:
                        trial["split"] = split
                    trials.append(trial)
            out[name][side] = _doc(trials)
    return out


def _rate(doc: dict[str, Any], common: set[str], split: str) -> Fraction:
    mine = [
        t for t in doc["trials"] if t["workflow"] in common and split in ("all", t.get("split"))
    ]
    return Fraction(sum(t["completed"] for t in mine), len(mine))


@given(side_by_side(splits=True), side_by_side(splits=True), st.booleans())
def test_agreement_is_the_same_order_over_the_same_workflows(
    personas: dict[str, Any], model: dict[str, Any], model_has_splits: bool
) -> None:
    if not model_has_splits:  # a run of before the splits: compared whole
        for sides in model.values():
            for doc in sides.values():
                for t in doc["trials"]:
                    t.pop("split", None)
    pairs = order_agreement(personas, model)
    for pair in pairs:
        name, split = pair["set"], pair["split"]
        assert split == "all" or model_has_splits
        docs = [runs[name][side] for runs in (personas, model) for side in SIDES]
        common = set.intersection(
            *(
                {t["workflow"] for t in d["trials"] if split in ("all", t.get("split"))}
                for d in docs
            )
        )
        assert pair["workflows"] == len(common) > 0
        pn, pd, mn, md = (_rate(d, common, split) for d in docs)
        # a tie agrees only with a tie; otherwise the same server is ahead in both runs
        same = (pd > pn) == (md > mn) and (pd < pn) == (md < mn)
        assert pair["agree"] is same
    # every set both runs measured on both sides is compared
    assert {p["set"] for p in pairs} <= set(personas) & set(model)


def test_a_tie_agrees_only_with_a_tie() -> None:
    def run(naive: list[bool], drivable: list[bool]) -> dict[str, Any]:
        return {
            "s": {
                "naive": _doc([{"workflow": "w", "completed": c} for c in naive]),
                "drivable": _doc([{"workflow": "w", "completed": c} for c in drivable]),
            }
        }

    tie, ahead = run([True], [True]), run([False, True], [True, True])
    assert [p["agree"] for p in order_agreement(tie, tie)] == [True]
    assert [p["agree"] for p in order_agreement(tie, ahead)] == [False]
    assert [p["agree"] for p in order_agreement(ahead, ahead)] == [True]
    assert [p["agree"] for p in order_agreement(ahead, run([True, True], [False, True]))] == [False]


def test_the_personas_agree_with_the_model_on_every_pair_of_recorded_runs() -> None:
    personas = runs_of(json.loads(PERSONAS_RUN.read_text(encoding="utf-8")))["personas"]["sets"]
    for key, run in runs_of(json.loads(MODEL_RUN.read_text(encoding="utf-8"))).items():
        pairs = order_agreement(personas, run["sets"])
        assert {p["set"] for p in pairs} == set(personas) & set(run["sets"]), key
        disagreements = [p for p in pairs if not p["agree"]]
        assert not disagreements, (key, disagreements)


def test_the_personas_agree_with_the_model_on_every_held_out_set() -> None:
    """Round 15's model runs on the held-out split, naive and drivable: every set ordered alike
    (round 15's personas put the naive bookings twin above drivable; decision 0038)."""
    personas = runs_of(json.loads(PERSONAS_HOLDOUT.read_text(encoding="utf-8")))["personas"]
    model = merge_runs([json.loads(p.read_text(encoding="utf-8")) for p in MODEL_HOLDOUT])
    for key, run in runs_of(model).items():
        pairs = order_agreement(personas["sets"], run["sets"])
        assert {(p["set"], p["split"]) for p in pairs} == {(s, "holdout") for s in personas["sets"]}
        assert len(pairs) == 6, key
        assert not [p for p in pairs if not p["agree"]], key
