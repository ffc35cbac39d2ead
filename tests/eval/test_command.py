"""`drivable eval` end to end: stdio targets, RUN.json, trace, baseline table and the gate."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from drivable.cli import app

HERE = Path(__file__).parent
EXAMPLE = HERE.parent / "contract" / "example_server.py"
NAIVE = HERE / "naive_notes_server.py"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["eval", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_eval_over_stdio_writes_run_and_trace_then_gates(tmp_path: Path) -> None:
    naive_run, drivable_run = tmp_path / "naive.json", tmp_path / "drivable.json"
    trace = tmp_path / "trace.jsonl"
    flows = (
        Path(__file__).parents[2] / "src" / "drivable" / "eval" / "workflows" / "example" / "tune"
    )
    common = ["--persona", "speller", "--persona", "literal", "--trials", "1"]
    for name in ("01_cold_start.yaml", "03_invalid_argument.yaml", "07_unknown_id.yaml"):
        common += ["--workflow", str(flows / name)]
    code, out = _run(*common, "--out", str(naive_run), "--", sys.executable, str(NAIVE))
    assert code == 0, out
    code, out = _run(
        *common,
        "--out",
        str(drivable_run),
        "--trace",
        str(trace),
        "--baseline",
        str(naive_run),
        "--gate",
        "--",
        sys.executable,
        str(EXAMPLE),
    )
    assert code == 0, out  # better than the baseline: the gate passes
    assert "| invalid-argument | searched |" in out
    assert "not proof that it works for a model" in out
    doc = json.loads(drivable_run.read_text())
    assert doc["target"]["transport"] == "stdio" and doc["tokenizer"] == "o200k_base"
    assert doc["summary"]["overall"]["completed"]["rate"] == 1.0
    assert any(json.loads(line)["rejected_by_schema"] for line in trace.read_text().splitlines())
    # swapped: naive after drivable regresses beyond noise on first repair, the gate says so
    code, out = _run(
        *common, "--baseline", str(drivable_run), "--gate", "--", sys.executable, str(NAIVE)
    )
    assert code == 1, out
    assert "regressed" in out


def test_the_destructive_two_step_over_stdio_deletes_once_after_the_preview(tmp_path: Path) -> None:
    # needs a fresh server per trial: stdio gives one. Not gated against the naive twin: its delete
    # deletes on the first call, so a persona skipping the preview scores a better first call
    # there; the price of the preview is real and the table shows it.
    flow = (
        Path(__file__).parents[2]
        / "src/drivable/eval/workflows/example/tune/09_destructive_two_step.yaml"
    )
    out_file = tmp_path / "run.json"
    common = ["--persona", "speller", "--persona", "literal", "--trials", "1"]
    code, out = _run(
        *common, "--workflow", str(flow), "--out", str(out_file), "--", sys.executable, str(EXAMPLE)
    )
    assert code == 0, out
    deleted = json.loads(out_file.read_text())["trials"]
    assert deleted and all(t["completed"] and t["state"][0]["passed"] for t in deleted)
    assert all(t["steps"][0]["attempt"] == 2 for t in deleted)  # the preview is the server's detour


def test_eval_refuses_an_ambiguous_target() -> None:
    code, out = _run("--set", "example", "--url", "http://127.0.0.1:9/mcp", "--", "true")
    assert code == 2 and "exactly one target" in out
