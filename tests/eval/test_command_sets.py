"""Sets whose servers are named by their command line: a pinned third-party server run as it is
(the naive side) against the same command under `drivable wrap` (the drivable side), every trial
in a directory of its own with the set's fixture data (drivable.eval.commandsets)."""

from __future__ import annotations

import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from drivable.eval.agents.simulated import SimulatedAgent
from drivable.eval.commandsets import PerTrial
from drivable.eval.scorer import contains
from drivable.eval.sides import targets
from drivable.eval.solver import Job, run_jobs
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import (
    SPLITS,
    CommandSide,
    WorkflowSet,
    WrapSide,
    bundled,
    workflow_set,
)
from drivable.target import connect

WRAPPED = ("filesystem", "memory", "git", "time")


@pytest.mark.parametrize("name", WRAPPED)
def test_a_wrapped_set_runs_its_server_by_command_and_splits_its_workflows(name: str) -> None:
    spec = workflow_set(name)
    assert isinstance(spec.naive, CommandSide) and spec.naive.installed is not None
    assert isinstance(spec.drivable, WrapSide) and spec.by_command
    assert spec.twin_module is None  # nothing to import: benchmarks and distractors skip it
    for split in SPLITS:
        assert len(bundled(name, split)) >= 4, split


def test_a_side_is_an_import_path_or_one_command() -> None:
    with pytest.raises(ValidationError, match="needs a naive side given as a command"):
        WorkflowSet.model_validate(
            {"name": "x", "about": "x", "naive": "some.module", "drivable": {"wrap": "naive"}}
        )
    with pytest.raises(ValidationError, match="exactly one of"):
        CommandSide.model_validate({"command": ["node", "x.js"], "installed": "m:f name"})
    with pytest.raises(ValidationError, match="exactly one of"):
        CommandSide.model_validate({"args": ["."]})
    kept = workflow_set("example")  # the import-path form reads as before
    assert kept.naive == "drivable.eval.baselines.notes" and not kept.by_command


def test_every_trial_starts_from_its_own_copy_of_the_fixture(tmp_path: Path) -> None:
    # the git set's setup script, under a literal command: each trial directory gets the same
    # repository, the placeholders filled with that directory, and a change in one stays there
    spec = WorkflowSet.model_validate(
        {
            "name": "git",
            "about": "x",
            "naive": {
                "command": ["{python}", "-c", "pass", "{trial}/shop"],
                "env": {"REPO": "{trial}/shop"},
                "setup": [["sh", "{set}/make_repo.sh"]],
            },
            "drivable": {"wrap": "naive", "config": "wrap.toml"},
        }
    )
    made = {side: PerTrial(spec, side) for side in ("naive", "drivable")}
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    naive = made["naive"](first)
    wrapped = made["drivable"](second)
    assert naive.cwd == str(first) and naive.command[-1] == f"{first}/shop"
    assert naive.env == {"REPO": f"{first}/shop"}
    # the wrapped command: the same upstream after `--`, its variables handed on with --env,
    # its receipts and the set's config file in the trial's directory and the set's folder
    assert wrapped.cwd == str(second) and wrapped.command[-1] == f"{second}/shop"
    words = list(wrapped.command)
    assert words[words.index("--store") + 1] == f"sqlite:///{second}/wrap.sqlite"
    assert words[words.index("--env") + 1] == f"REPO={second}/shop"
    assert words[words.index("--config") + 1] == str(spec.folder() / "wrap.toml")
    assert "{trial}" in " ".join(made["naive"].described().command)  # a report shows the shape

    def log(where: Path) -> list[str]:
        out = subprocess.run(
            ["git", "-C", str(where / "shop"), "log", "--format=%H"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.split()

    assert log(first) == log(second) and len(log(first)) == 5  # fixed names and dates
    (first / "shop" / "README.md").write_text("changed in one trial\n", encoding="utf-8")
    assert "Opening hours" in (second / "shop" / "README.md").read_text(encoding="utf-8")


def test_a_copied_fixture_folder_lands_in_the_trial(tmp_path: Path) -> None:
    spec = workflow_set("filesystem")
    side = CommandSide(command=["node", "server.js"], args=["."], fixture="data")
    spec = spec.model_copy(update={"naive": side})
    target = PerTrial(spec, "naive")(tmp_path)
    assert target.command == ("node", "server.js", ".")
    assert (tmp_path / "notes" / "meeting-2026-03-09.md").is_file()
    assert "Call the plumber" in (tmp_path / "todo.txt").read_text(encoding="utf-8")


# One tune workflow of each set over the real wire, both sides, the no-habit persona (the best
# case: an agent that does what each answer says): the wrapped side completes it.
ONE_EACH = [
    ("filesystem", "save-shopping-list"),  # a destructive write: dry run, then the token back
    ("memory", "petra-moved"),  # a name read from a wrapped answer, a keyed write
    ("git", "commit-vat-rate"),  # a keyed commit: the repair mints the key, the message kept
    ("time", "mum-in-mumbai-from-phoenix"),  # two reads, a time and two zones as the user said
]


@pytest.mark.thirdparty
@pytest.mark.parametrize(("name", "workflow"), ONE_EACH, ids=[n for n, _ in ONE_EACH])
async def test_one_workflow_of_each_wrapped_set_over_the_wire(
    name: str, workflow: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the installer lives in tests/
    wf = next(w for w in bundled(name, "tune") if w.name == workflow)
    verdicts = {}
    for side, target in targets(name, tmp_path).items():
        job = Job(wf, "simulated:literal", partial(SimulatedAgent, "literal"), 0, 0)
        (result,) = await run_jobs(target, [job], concurrency=1)
        verdicts[side] = result.verdict
    wrapped = verdicts["drivable"]
    assert wrapped["completed"], wrapped
    assert all(check["passed"] for check in wrapped["state"]), wrapped["state"]
    assert verdicts["naive"]["steps"], verdicts["naive"]  # the naive side ran the same steps


def _filled_in(value: Any) -> bool:
    """A draft's argument that the agent fills: a fact (`{repo}`) or an earlier answer (`$x`)."""
    return isinstance(value, str) and ("{" in value or value.startswith("$"))


def _done_calls() -> list[tuple[str, str, str, dict[str, Any], str]]:
    """Each step of the wrapped sets whose done condition is a whole call and a needle: the call
    names every property it needs and is not the confirming half of a two-step (`via`). A done
    condition that names only the tool is met by the step's draft, when it calls that tool and
    is written out in full."""
    found = []
    for name in WRAPPED:
        for workflow in bundled(name):
            for step in workflow.steps:
                done = step.done
                call = done.call
                draft = step.draft
                # a draft written out in full (no fact to fill in, no earlier answer to quote)
                if (
                    call is None
                    and draft is not None
                    and draft.tool == done.tool
                    and not any(_filled_in(v) for v in draft.arguments.values())
                ):
                    call = draft
                if call is None or done.result_contains is None or step.via:
                    continue
                found.append(
                    (name, workflow.name, call.tool, dict(call.arguments), done.result_contains)
                )
    return found


@pytest.mark.thirdparty
@pytest.mark.parametrize(
    ("name", "workflow", "tool", "arguments", "needle"),
    _done_calls(),
    ids=[f"{c[0]}-{c[1]}" for c in _done_calls()],
)
async def test_a_done_call_meets_its_needle_wrapped_and_unwrapped(
    name: str,
    workflow: str,
    tool: str,
    arguments: dict[str, Any],
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the same work on both sides: a needle in one side's shape would fail the other's right call
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    for side, target in targets(name, tmp_path).items():
        assert target.per_trial is not None
        trial = tmp_path / side
        trial.mkdir()
        async with connect(target.per_trial(trial), read_timeout_seconds=60) as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            required = set(listed[tool].get("required") or [])
            whole = required - {"idempotency_key"} <= set(arguments)
            sent = dict(arguments)
            if "idempotency_key" in required:  # the wrapped write takes a key of the caller's
                sent["idempotency_key"] = f"fair-{workflow}-key"
            result = await client.call_tool(tool, sent) if whole else None
        if result is None:
            pytest.skip(f"the done call of {workflow} is part of a call, not a whole one")
        text = "".join(getattr(block, "text", "") for block in result.content)
        seen = Observation(
            ToolCall(tool, sent), bool(result.is_error), result.structured_content, text
        )
        assert not seen.is_error and contains(seen, needle), (side, text[:300])
