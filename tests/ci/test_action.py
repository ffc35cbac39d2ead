"""The repository's GitHub Action, run by its steps on this machine as a runner would run them.

action.yml is read as data: each `run:` step gets the environment its `env:` block names (inputs and
earlier steps' outputs substituted, as the runner does), a runner's files (GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_ENV), and runs under `bash --noprofile --norc -eo pipefail`. The steps
that `uses:` another action (setup-python, upload-sarif) are GitHub's; the test stands in for the
first with this interpreter and checks the SARIF the second would upload. The server is the
runtime's example contract, copied into a scratch checkout; the pull request's comment goes to
GitHub's comment API on loopback (tests/ci/github_api.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from drivable.ci.summary import marker
from tests.audit.github_sarif import assert_github_accepts
from tests.ci.github_api import Api, serving

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PINNED = {"actions/setup-python@v6", "github/codeql-action/upload-sarif@v4"}
TUNE = ROOT / "src" / "drivable" / "eval" / "workflows" / "example" / "tune"
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]


def _step(step_id: str) -> dict[str, Any]:
    return next(s for s in STEPS if s.get("id") == step_id or s.get("name") == step_id)


def test_every_input_reaches_a_step_through_the_environment_only() -> None:
    inputs = set(ACTION["inputs"])
    used: set[str] = set()
    seen_ids: set[str] = set()
    for step in STEPS:
        if "run" in step:
            assert step["shell"] == "bash", step["name"]
            assert "${{" not in step["run"], f"{step['name']}: an expression inside a script"
            check = subprocess.run(
                ["bash", "-n", "-c", step["run"]], capture_output=True, text=True
            )
            assert check.returncode == 0, (step["name"], check.stderr)
        else:
            assert step["uses"] in PINNED, step["uses"]
        texts = [*(step.get("env") or {}).values(), *(step.get("with") or {}).values()]
        for text in [*map(str, texts), str(step.get("if", ""))]:
            for expression in EXPRESSION.findall(text) or ([text] if text else []):
                for ref in re.findall(r"\b(inputs|steps|github)\.([\w.-]+)", expression):
                    if ref[0] == "inputs":
                        assert ref[1] in inputs, ref
                        used.add(ref[1])
                    elif ref[0] == "steps":
                        assert ref[1].split(".")[0] in seen_ids, f"{ref} before its step ran"
        # INPUT_X_Y carries input x-y, as drivable.ci.action reads it
        for name, value in (step.get("env") or {}).items():
            if name.startswith("INPUT_"):
                assert EXPRESSION.findall(str(value)) == ["inputs." + _input(name)], name
        seen_ids.add(step.get("id", ""))
    assert inputs - used == set(), f"inputs no step reads: {inputs - used}"
    for name, output in ACTION["outputs"].items():
        assert EXPRESSION.findall(output["value"]) == [f"steps.ci.outputs.{name}"]


def _input(variable: str) -> str:
    return variable.removeprefix("INPUT_").lower().replace("_", "-")


def test_drivable_ci_action_reads_every_input_the_audit_step_passes() -> None:
    from drivable.ci.action import options

    samples = {"comment": "true", "eval-trials": "2", "eval-min-completion": "0.5"}
    passed = [n for n in _step("ci")["env"] if n.startswith("INPUT_")]
    assert passed, "the audit step passes no input"
    for variable in passed:
        value = samples.get(_input(variable), "x")
        assert options({variable: value}) != options({}), f"{variable} is passed and never read"


def _substitute(
    value: Any, inputs: Mapping[str, str], outputs: Mapping[str, Mapping[str, str]]
) -> str:
    """An `env:` value as the runner hands it to the step (the expression forms action.yml uses)."""

    def one(expression: str) -> str:
        if m := re.fullmatch(r"inputs\.([\w-]+)", expression):
            return inputs.get(m.group(1), str(ACTION["inputs"][m.group(1)].get("default", "")))
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        if m := re.fullmatch(
            r"inputs\.comment == 'true' && inputs\.github-token \|\| ''", expression
        ):
            return inputs.get("github-token", "") if one("inputs.comment") == "true" else ""
        raise AssertionError(f"an expression this test cannot evaluate: {expression}")

    return EXPRESSION.sub(lambda m: one(m.group(1)), str(value))


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


class Runner:
    """The parts of a GitHub runner a composite action's `run:` steps see."""

    def __init__(self, workspace: Path, temp: Path, extra: Mapping[str, str]) -> None:
        self.workspace, self.temp, self.extra = workspace, temp, dict(extra)
        self.summary = temp / "step_summary.md"
        self.summary.touch()

    def run(
        self, step_id: str, inputs: Mapping[str, str], outputs: dict[str, dict[str, str]]
    ) -> subprocess.CompletedProcess[str]:
        step = _step(step_id)
        out = self.temp / f"output-{step_id}-{len(outputs)}"
        out.touch()
        env = {
            "PATH": os.environ["PATH"],
            "HOME": os.environ.get("HOME", str(self.temp)),
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.temp),
            **self.extra,
            **{k: _substitute(v, inputs, outputs) for k, v in (step.get("env") or {}).items()},
        }
        done = subprocess.run(
            [*BASH, step["run"]],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        outputs[step.get("id") or step_id] = _outputs(out)
        return done


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    workspace = tmp_path / "checkout"
    workspace.mkdir()
    shutil.copy(ROOT / "tests" / "contract" / "example_server.py", workspace / "notes_server.py")
    return workspace


def test_the_install_step_installs_drivable_from_the_actions_own_path(tmp_path: Path) -> None:
    """Builds and installs this checkout into a fresh venv, as a runner does (pip, PyPI)."""
    runner = Runner(tmp_path, tmp_path, {})
    outputs = {"python": {"python-path": sys.executable}}
    done = runner.run("install", {}, outputs)
    assert done.returncode == 0, done.stderr[-3000:]
    python = outputs["install"]["python"]
    assert Path(python).is_relative_to(tmp_path)
    found = subprocess.run(
        [python, "-c", "import drivable, drivable.ci.action; print(drivable.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(found.stdout.strip()).is_relative_to(tmp_path), "not the venv's own copy"


def test_the_audit_and_gate_steps_run_for_real(checkout: Path, tmp_path: Path) -> None:
    """Twice on one pull request: an audit with an eval that passes, then a stricter fail-on that
    fails. Outputs, the job summary, the SARIF and the one comment are checked after each."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 12}}))
    with serving(Api(token="job-token")) as api:
        runner = Runner(
            checkout,
            tmp_path,
            {
                "GITHUB_EVENT_PATH": str(event),
                "GITHUB_REPOSITORY": "owner/repo",
                "GITHUB_API_URL": api.url,
                "GITHUB_SERVER_URL": "https://github.example",
                "GITHUB_RUN_ID": "99",
            },
        )
        inputs = {
            "contract": "notes_server.py:contract",
            "eval-workflows": str(TUNE),
            "eval-personas": "literal copier",
            "eval-trials": "1",
            "eval-min-completion": "0.5",
            "github-token": "job-token",
        }
        outputs: dict[str, dict[str, str]] = {"install": {"python": sys.executable}}
        first = runner.run("ci", inputs, outputs)
        assert first.returncode == 0, first.stderr[-3000:]
        said = dict(outputs["ci"])
        gate = runner.run("Gate", inputs, outputs)
        summary_after_first = runner.summary.read_text()
        comment_after_first = [c["body"] for c in api.comments]
        markdown_of_first = (checkout / said["markdown"]).read_text()

        strict = runner.run(
            "ci",
            {**inputs, "fail-on": "minor", "eval-workflows": "", "eval-min-completion": ""},
            outputs,
        )
        assert strict.returncode == 0, strict.stderr[
            -3000:
        ]  # the gate step fails the job, not this
        said_strict = dict(outputs["ci"])
        gate_strict = runner.run("Gate", inputs, outputs)

    assert set(ACTION["outputs"]) <= set(said), set(ACTION["outputs"]) - set(said)
    report = json.loads((checkout / said["report"]).read_text())
    run = json.loads((checkout / said["eval"]).read_text())
    done = run["summary"]["overall"]["completed"]
    # outputs say what the reports say
    assert said["findings"] == str(len(report["findings"])) and said["failing"] == "0"
    assert float(said["completion"]) == pytest.approx(done["k"] / done["n"], abs=1e-4)
    assert said["passed"] == ("true" if done["k"] / done["n"] >= 0.5 else "false")
    assert gate.returncode == (0 if said["passed"] == "true" else 1)
    minor = sum(1 for f in report["findings"] if f["severity"] in ("critical", "major", "minor"))
    assert minor > 0, "the example server has minor findings; the strict run must see them"
    assert said_strict["passed"] == "false" and said_strict["failing"] == str(minor)
    assert said_strict["eval"] == "" and said_strict["completion"] == ""
    assert gate_strict.returncode == 1
    assert (
        "::error title=drivable::" in gate_strict.stdout
        and said_strict["reason"] in gate_strict.stdout
    )

    # the job summary: one section per run, the verdict, counts, each workflow of the eval
    first_summary = summary_after_first
    assert first_summary.startswith(marker("notes-example"))
    assert f"Completed {done['k']} of {done['n']} trials" in first_summary
    for workflow in run["summary"]["workflows"]:
        assert f"| {workflow} |" in first_summary
    assert "/actions/runs/99" in first_summary
    whole = runner.summary.read_text()
    assert whole.count(marker("notes-example")) == 2 and "**Gate failed**" in whole

    # one comment on the pull request, edited by the second run
    assert len(comment_after_first) == 1 and comment_after_first[0] == markdown_of_first
    assert len(api.comments) == 1
    assert api.comments[0]["body"] == (checkout / said_strict["markdown"]).read_text()
    assert [m for m, _ in api.requests].count("POST") == 1

    # the SARIF upload-sarif would send: accepted, every location a file of this checkout
    sarif = json.loads((checkout / said_strict["sarif"]).read_text())
    assert_github_accepts(sarif, checkout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert "notes_server.py" in uris


def test_the_sarif_of_a_ci_run_is_the_sarif_of_the_audit(checkout: Path, tmp_path: Path) -> None:
    """ci renders SARIF from the audit's JSON report: nothing is lost on the way."""
    env = {**os.environ, "GITHUB_OUTPUT": str(tmp_path / "out")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    serve = [sys.executable, "-m", "drivable", "serve", "notes_server.py:contract"]
    common: dict[str, Any] = {
        "cwd": checkout,
        "env": env,
        "capture_output": True,
        "text": True,
        "timeout": 300,
    }
    ci = subprocess.run(
        [sys.executable, "-m", "drivable", "ci", "--fail-on", "none", "--", *serve], **common
    )
    assert ci.returncode == 0, ci.stderr[-2000:]
    audit = subprocess.run(
        [
            sys.executable,
            "-m",
            "drivable",
            "audit",
            "--format",
            "sarif",
            "-o",
            "direct.sarif",
            "--snapshot",
            ".drivable/audit.surface.json",
            "--",
            *serve,
        ],
        **common,
    )
    assert audit.returncode in (0, 1), audit.stderr[-2000:]
    through_ci = json.loads((checkout / ".drivable" / "audit.sarif").read_text())
    direct = json.loads((checkout / "direct.sarif").read_text())
    for sarif in (through_ci, direct):
        sarif["runs"][0]["properties"]["target"].pop("probes", None)  # timings differ by run
        for result in sarif["runs"][0]["results"]:
            result["properties"].pop("evidence")
    assert through_ci == direct
