"""The labelled field corpus: real servers, precision and recall of what the audit reports.

Every server is a pinned package from PyPI or npm (tests/audit/audit_thirdparty.py), started on
fresh fixtures; the labels are in tests/audit/corpus.py. The numbers printed here are the ones in
docs/audit.md. Deselect with `-m 'not thirdparty'`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.audit.corpus import LABELS, WRITES_RUNS, score
from tests.audit.corpus_servers import CORPUS, start
from tests.cli import CLI

pytestmark = pytest.mark.thirdparty
ROOT = Path(__file__).resolve().parents[2]


def _audit(name: str, tmp: Path, *extra: str) -> dict[str, Any]:
    started = start(name, tmp)
    env_args = [a for k, v in started.env.items() for a in ("--env", f"{k}={v}")]
    proc = subprocess.run(
        [
            *CLI,
            "audit",
            "--format",
            "json",
            *env_args,
            *started.extra,
            *extra,
            "--",
            *started.command,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode in (0, 1), f"{name}: exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert "Traceback" not in proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    reports = {name: _audit(name, tmp_path_factory.mktemp(name)) for name in CORPUS}
    for name in WRITES_RUNS:
        reports[f"{name}+writes"] = _audit(
            name, tmp_path_factory.mktemp(f"{name}-writes"), "--allow-writes"
        )
    return reports


def _could_mutate(tool: dict[str, Any]) -> bool:
    """Independent of the audit's own judgement: anything not annotated read-only could."""
    return (tool.get("annotations") or {}).get("readOnlyHint") is not True


def test_precision_recall_and_no_false_critical(corpus: dict[str, dict[str, Any]]) -> None:
    result = score({k: v["findings"] for k, v in corpus.items()}, LABELS)
    default_runs = score({k: v["findings"] for k, v in corpus.items() if "+" not in k}, LABELS)
    summary = {
        "servers": len(corpus),
        "severe_reported": result.severe_reported,
        "severe_reported_default_runs": default_runs.severe_reported,
        "found_true": result.found_true,
        "precision_critical_major": round(result.precision, 3),
        "recall": round(result.recall, 3),
        "labelled_true": result.labelled_true,
        "false_critical": result.false_critical,
        "false_severe": result.false_severe,
        "false_any_severity": result.false_any,
        "missed": result.missed,
    }
    out = ROOT / "var" / "audit-corpus.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    assert result.false_critical == []
    assert result.precision >= 0.95, result.false_severe
    assert result.recall >= 0.9, result.missed


def test_nothing_that_could_mutate_or_reach_the_network_was_called(
    corpus: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    for name in CORPUS:
        probes = corpus[name]["target"]["probes"]
        called = set(probes["called_tools"])
        skipped = probes["skipped_tools"]
        assert not called & set(skipped), name
        # The snapshot of the surface tells the annotations of what was called.
        started = start(name, tmp_path / name)
        snapshot = tmp_path / f"{name}.surface.json"
        env_args = [a for k, v in started.env.items() for a in ("--env", f"{k}={v}")]
        subprocess.run(
            [
                *CLI,
                "audit",
                "--no-probes",
                "--format",
                "json",
                "--snapshot",
                str(snapshot),
                *env_args,
                "--",
                *started.command,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        tools = {t["name"]: t for t in json.loads(snapshot.read_text())["tools"]}
        mutating = sorted(n for n in called if _could_mutate(tools[n]))
        open_world = sorted(
            n for n in called if (tools[n].get("annotations") or {}).get("openWorldHint") is True
        )
        assert (mutating, open_world) == ([], []), name
    # The read-only tool with a verb that also names writes is still called.
    assert "open_nodes" in corpus["memory"]["target"]["probes"]["called_tools"]
    assert "fetch" in corpus["fetch"]["target"]["probes"]["skipped_tools"]


def test_retries_decide_idempotency_when_writes_are_allowed(
    corpus: dict[str, dict[str, Any]],
) -> None:
    memory = {(f["rule"], f["subject"]) for f in corpus["memory+writes"]["findings"]}
    assert ("3.idempotency-key", "tool:create_entities") not in memory
    filesystem = {(f["rule"], f["subject"]) for f in corpus["filesystem+writes"]["findings"]}
    assert ("3.honest-annotations", "tool:create_directory") not in filesystem


# From server-everything's source (dist/tools/*.js, registerConditionalTools): the tools each
# client capability makes it register; the two async ones need the capability and the client's
# tasks capability for that request (`tasks.requests.sampling.createMessage`, `...elicitation.create`).
EVERYTHING_BY_CAPABILITY = {
    "get-roots-list": ["roots"],
    "trigger-elicitation-request": ["elicitation"],
    "trigger-url-elicitation": ["elicitation"],
    "trigger-sampling-request": ["sampling"],
    "trigger-sampling-request-async": ["sampling", "tasks"],
    "trigger-elicitation-request-async": ["elicitation", "tasks"],
}


def test_tools_listed_only_under_a_client_capability_are_named_and_not_called(
    corpus: dict[str, dict[str, Any]],
) -> None:
    target = corpus["everything"]["target"]
    assert target["client_capabilities"]["only_when_declared"] == EVERYTHING_BY_CAPABILITY
    probes = target["probes"]
    assert not set(EVERYTHING_BY_CAPABILITY) & set(probes["called_tools"])
    for tool, capabilities in EVERYTHING_BY_CAPABILITY.items():
        assert all(c in probes["skipped_tools"][tool] for c in capabilities)
    # audited statically too
    subjects = {f["subject"] for f in corpus["everything"]["findings"]}
    assert {f"tool:{t}" for t in EVERYTHING_BY_CAPABILITY} <= subjects
    for name in ("time", "git", "filesystem", "memory"):
        assert corpus[name]["target"]["client_capabilities"]["same_tools"] is True, name
