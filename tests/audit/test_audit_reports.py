"""Reports a CI can gate on: SARIF code scanning accepts, a baseline, select/ignore in pyproject."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from drivable.audit.config import AuditConfig
from drivable.audit.report.sarif import fingerprint
from tests.audit.conftest import DATA, SERVERS, Run

ROOT = Path(__file__).resolve().parents[2]


def _drivable(cwd: Path, *args: str) -> Run:
    proc = subprocess.run(
        [sys.executable, "-c", "from drivable.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def _code_scanning_ready(sarif: dict[str, Any]) -> None:
    """What GitHub code scanning needs beyond the OASIS schema."""
    jsonschema.Draft4Validator(json.loads((DATA / "sarif-schema-2.1.0.json").read_text())).validate(
        sarif
    )
    run = sarif["runs"][0]
    assert not run["automationDetails"]["id"].startswith("/")
    assert (
        "/work/" not in run["automationDetails"]["id"]
        and "\\" not in run["automationDetails"]["id"]
    )
    for rule in run["tool"]["driver"]["rules"]:
        assert float(rule["properties"]["security-severity"]) >= 0
    for result in run["results"]:
        assert "security-severity" not in result.get("properties", {})
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri and not uri.startswith(("/", "file:")), uri
        assert physical["region"]["startLine"] >= 1


def test_sarif_of_a_live_stdio_server_points_into_the_snapshot_it_writes(tmp_path: Path) -> None:
    out = tmp_path / "audit.sarif"
    run = _drivable(
        tmp_path,
        "audit",
        "--format",
        "sarif",
        "--output",
        str(out),
        "--",
        sys.executable,
        str(SERVERS / "defects.py"),
    )
    assert run.code == 1, run.stderr
    sarif = json.loads(out.read_text())
    _code_scanning_ready(sarif)
    snapshot = tmp_path / "audit.surface.json"
    lines = snapshot.read_text().splitlines()
    results = sarif["runs"][0]["results"]
    on_tool = next(r for r in results if r["properties"]["subject"] == "tool:delete_note")
    line = on_tool["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert '"delete_note"' in lines[line - 1]
    assert sarif["runs"][0]["automationDetails"]["id"] == "drivable-audit/tools/"


@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_fingerprints_do_not_hash_counts(a: int, b: int) -> None:
    summary = "Error envelopes of {} tools carry no `request_id`."
    assert fingerprint("6.correlation", "server", summary.format(a)) == fingerprint(
        "6.correlation", "server", summary.format(b)
    )
    assert fingerprint("6.correlation", "server", "x") != fingerprint("6.presence", "server", "x")


def _dump(tmp_path: Path) -> Path:
    from tests.audit.servers.defects import TOOLS

    dump = tmp_path / "tools.json"
    dump.write_text(
        json.dumps(
            {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS]}
        )
    )
    return dump


def test_a_baseline_accepts_todays_findings_and_only_those(tmp_path: Path) -> None:
    dump = _dump(tmp_path)
    first = _drivable(
        tmp_path,
        "audit",
        "--from-file",
        str(dump),
        "--format",
        "json",
        "--write-baseline",
        "accepted.json",
    )
    assert first.code == 1 and first.report["findings"]
    again = _drivable(
        tmp_path,
        "audit",
        "--from-file",
        str(dump),
        "--format",
        "json",
        "--baseline",
        "accepted.json",
    )
    assert again.code == 0, again.stdout[-1500:]
    assert again.report["findings"] == []
    assert again.report["target"]["baseline"]["accepted"] == len(first.report["findings"])
    # One finding taken out of the baseline comes back.
    data = json.loads((tmp_path / "accepted.json").read_text())
    dropped = data["accepted"].pop(0)
    (tmp_path / "accepted.json").write_text(json.dumps(data))
    third = _drivable(
        tmp_path,
        "audit",
        "--from-file",
        str(dump),
        "--format",
        "json",
        "--baseline",
        "accepted.json",
    )
    assert {(f["rule"], f["subject"]) for f in third.report["findings"]} == {
        (dropped["rule"], dropped["subject"])
    }


def test_select_and_ignore_come_from_pyproject(tmp_path: Path) -> None:
    dump = _dump(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.drivable.audit]\nselect = ["3"]\nignore = ["3.dialect", "3.naming"]\nfail-on = "critical"\n'
    )
    run = _drivable(tmp_path, "audit", "--from-file", str(dump), "--format", "json")
    rules = {f["rule"] for f in run.report["findings"]}
    assert rules and all(r.startswith("3.") for r in rules)
    assert not rules & {"3.dialect", "3.naming"}
    severities = {f["severity"] for f in run.report["findings"]}
    assert run.code == (1 if "critical" in severities else 0)
    (tmp_path / "pyproject.toml").write_text('[tool.drivable.audit]\nselekt = ["3"]\n')
    bad = _drivable(tmp_path, "audit", "--from-file", str(dump))
    assert bad.code == 2 and "selekt" in bad.stderr and "Traceback" not in bad.stderr


@given(
    st.sampled_from(["3", "3.naming", "dv", "6.tool-errors"]),
    st.sampled_from(["3.naming", "3.naming-x", "30.x", "dv.substrate-leak", "6.tool-errors"]),
)
def test_a_prefix_matches_whole_ids_or_ids_below_it(prefix: str, rule: str) -> None:
    expected = rule == prefix or rule.startswith(prefix + ".")
    assert AuditConfig(select=[prefix]).wants(rule) is expected
    assert AuditConfig(ignore=[prefix]).wants(rule) is not expected
