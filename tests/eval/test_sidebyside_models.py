"""The side by side runs several models into one document, a section per model, and reports
each set and side's tune and holdout splits side by side."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.report import run_document, summarize
from drivable.eval.sidebyside import SETS, markdown, merge_runs, plan, runnable, runs_of

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("1.5b", "0.5b")
SIDES = ("naive", "drivable")


def _trial(workflow: str, split: str, completed: bool) -> dict[str, Any]:
    step = {
        "name": "s",
        "passed": completed,
        "attempt": 1 if completed else None,
        "errors": 1,
        "errors_naming_next_call": 1,
        "errors_naming_next_call_structured": 0,
        "errors_naming_next_call_prose": 1,
        "resends": 0,
        "first_call": False,
        "first_repair": completed,
    }
    return {
        "workflow": workflow,
        "fixture": "other",
        "split": split,
        "agent": "local",
        "trial": 0,
        "steps": [step],
        "completed": completed,
        "tool_calls": 2,
        "tokens": 10,
    }


def _side(tune: bool, holdout: bool) -> dict[str, Any]:
    trials = [_trial("a", "tune", tune), _trial("b", "holdout", holdout)]
    return {"summary": summarize(trials), "trials": trials, "model": {"turns": 3}}


def _part(model: str, cells: list[tuple[str, str]]) -> dict[str, Any]:
    sets: dict[str, dict[str, Any]] = {}
    for name, side in cells:
        sets.setdefault(name, {})[side] = _side(side == "drivable", False)
    run = {
        "started": "2026-12-05 10:00 UTC",
        "model": f"Qwen {model}",
        "threads": 1,
        "trials": 1,
        "seed": 0,
        "wall_seconds": 5.0,
        "partial": None,
        "sets": sets,
    }
    return {"format": 2, "runs": {model: run}}


@given(st.lists(st.sampled_from([(m, n, s) for m in MODELS for n in SETS for s in SIDES]),
                min_size=1, unique=True))  # fmt: skip
def test_parts_of_several_models_join_into_a_section_per_model(
    cells: list[tuple[str, str, str]],
) -> None:
    doc = merge_runs([_part(m, [(n, s)]) for m, n, s in cells])
    runs = runs_of(doc)
    assert sorted(runs) == sorted({m for m, _, _ in cells})
    for model, name, side in cells:
        assert side in runs[model]["sets"][name]
    text = markdown(doc)
    for model in runs:
        assert f"#### Qwen {model}" in text or len(runs) == 1


def test_the_markdown_puts_tune_and_holdout_side_by_side() -> None:
    doc = merge_runs([_part(m, [("example", s) for s in SIDES]) for m in MODELS])
    text = markdown(doc)
    assert "#### Qwen 1.5b" in text and "#### Qwen 0.5b" in text
    head = next(line for line in text.splitlines() if line.startswith("| set | side | completed"))
    assert "completed tune | completed holdout" in head
    assert "pass^k tune | pass^k holdout" in head
    row = next(line for line in text.splitlines() if line.startswith("| example | drivable | 100%"))
    # drivable completed its tune workflow and not its holdout one; prose named the next call
    assert "| 100% (1/1) | 0% (0/1) |" in row and "100% (1/1): 0 + 1" in row


def test_a_document_of_one_model_before_the_sections_reads_as_one_run() -> None:
    old = _part("1.5b", [("billing", "naive")])["runs"]["1.5b"]
    assert list(runs_of(old)) == ["Qwen 1.5b"]
    assert "####" not in markdown(old)


def test_each_cell_is_one_model_on_one_side_and_the_split_chooses_the_workflows() -> None:
    args = argparse.Namespace(sets=["example"], sides=None, workflow=[], split="tune")
    cells = plan(args, list(MODELS))
    assert cells == [(m, "example", s) for m in MODELS for s in SIDES]
    for split in ("tune", "holdout"):
        chosen = runnable("example", [], split)
        assert {w.split for w in chosen} <= {split}
        assert {w.name for w in chosen} == {
            w.name for w in runnable("example", []) if w.split == split
        }
    assert runnable("example", [], "tune")


def test_make_eval_local_takes_a_list_of_models() -> None:
    dry = subprocess.run(
        ["make", "-n", "eval-local", "EVAL_LOCAL_MODEL=1.5b 0.5b", "STAMP="],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "ensure-local-model.sh 1.5b 0.5b" in dry.stdout
    assert "--model 1.5b --model 0.5b" in dry.stdout


def test_a_run_document_of_a_single_run_says_its_splits() -> None:
    doc = run_document([], target={}, agent="simulated", personas=[], trials=1, seed=0, seconds=0)
    assert doc["summary"]["splits"] == {}


def test_a_workflow_file_reads_as_its_name_and_an_unknown_name_is_refused(
    capsys: Any,
) -> None:
    """`--workflow` takes a workflow's name or its file; a name no chosen set has ends the run
    with exit 2 before any server or model starts (a path used to run nothing, silently)."""
    from drivable.eval.sidebyside import main, unknown_workflows, workflow_names

    root = Path(__file__).resolve().parents[2] / "src" / "drivable" / "eval" / "workflows"
    for name in SETS:
        files = sorted(str(p) for p in (root / name).glob("*/*.yaml"))
        assert files
        names = workflow_names(files)
        assert not any(n.endswith(".yaml") for n in names)
        assert unknown_workflows(names, [name]) == []  # every file of a set names one of it
    assert workflow_names(["cold-start"]) == ["cold-start"]
    assert main(["--set", "git", "--workflow", "no-such-workflow"]) == 2
    assert "no-such-workflow" in capsys.readouterr().err
    assert main(["--set", "git", "--workflow", "cold-start"]) == 2  # another set's workflow
