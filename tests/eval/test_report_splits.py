"""The run document reports tune and holdout apart, pass^k beside completion, and rejections
naming the next call structured and in prose; documents of earlier rounds still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.report import load_run, markdown_before_after, print_run, summarize
from drivable.eval.sidebyside import markdown, runs_of

RUNS = Path(__file__).resolve().parents[2] / "docs" / "runs"


@st.composite
def trials(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Trials of workflows in splits; each step's errors split into structured, prose, none."""
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=6, unique=True))
    out: list[dict[str, Any]] = []
    for name in names:
        split = draw(st.sampled_from(["tune", "holdout", None]))
        for trial in range(draw(st.integers(1, 4))):
            steps = []
            for step in range(draw(st.integers(1, 3))):
                structured, prose, unnamed = (draw(st.integers(0, 3)) for _ in range(3))
                passed = draw(st.booleans())
                steps.append(
                    {
                        "name": f"s{step}",
                        "passed": passed,
                        "attempt": draw(st.integers(1, 4)) if passed else None,
                        "errors": structured + prose + unnamed,
                        "errors_naming_next_call": structured + prose,
                        "errors_naming_next_call_structured": structured,
                        "errors_naming_next_call_prose": prose,
                        "resends": 0,
                        "first_call": draw(st.sampled_from([True, False, None])),
                        "first_repair": draw(st.sampled_from([True, False, None])),
                    }
                )
            out.append(
                {
                    "workflow": name,
                    "fixture": "other",
                    "split": split,
                    "agent": "a",
                    "trial": trial,
                    "steps": steps,
                    "completed": all(s["passed"] for s in steps),
                    "tool_calls": 1,
                    "tokens": 1,
                }
            )
    return out


@given(trials())
def test_pass_k_splits_and_naming_add_up(ts: list[dict[str, Any]]) -> None:
    summary = summarize(ts)
    by_wf: dict[str, list[bool]] = {}
    for t in ts:
        by_wf.setdefault(t["workflow"], []).append(t["completed"])
    overall = summary["overall"]
    # pass^k: the workflows every trial of which passed, beside completion over trials
    assert overall["pass_k"]["k"] == sum(all(v) for v in by_wf.values())
    assert overall["pass_k"]["n"] == len(by_wf)
    for name, flags in by_wf.items():
        assert summary["workflows"][name]["pass_k"] is all(flags)
    named = overall["errors_naming_next_call"]
    parts = [overall[f"errors_naming_next_call_{p}"] for p in ("structured", "prose")]
    assert named["k"] == parts[0]["k"] + parts[1]["k"]
    assert named["n"] == parts[0]["n"] == parts[1]["n"]
    # each split counts its own trials only; a trial without one counts only overall
    for split in ("tune", "holdout"):
        mine = [t for t in ts if t["split"] == split]
        if not mine:
            assert split not in summary["splits"]
            continue
        scope = summary["splits"][split]
        assert scope["completed"]["n"] == len(mine)
        assert scope["completed"]["k"] == sum(t["completed"] for t in mine)
        assert scope["pass_k"]["n"] == len({t["workflow"] for t in mine})
    assert overall["completed"]["n"] == len(ts)


def _sides(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [
        d for run in runs_of(doc).values() for s in run.get("sets", {}).values() for d in s.values()
    ]


EARLIER = sorted(p for p in RUNS.glob("eval-local-*.json") if "sets" in json.loads(p.read_text()))


@pytest.mark.parametrize("path", EARLIER, ids=[p.stem for p in EARLIER])
def test_documents_of_earlier_rounds_still_read(path: Path, tmp_path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert "| set | side |" in markdown(doc)
    sides = _sides(path)
    assert sides
    new = {"summary": summarize(sides[0]["trials"])}
    for side in sides:
        copy = tmp_path / "side.json"
        copy.write_text(json.dumps(side), encoding="utf-8")
        before = load_run(copy)  # a --baseline of an earlier round
        assert "Overall: completed" in markdown_before_after(before, new)
        assert "Overall: completed" in markdown_before_after(new, before)
        print_run(before)
