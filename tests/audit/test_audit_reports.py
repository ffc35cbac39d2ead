"""Reports a CI can gate on: SARIF code scanning accepts, a baseline, select/ignore in pyproject."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.audit.config import AuditConfig
from drivable.audit.report.sarif import fingerprint
from tests.audit.conftest import SERVERS, Run
from tests.cli import CLI

ROOT = Path(__file__).resolve().parents[2]


def _drivable(cwd: Path, *args: str) -> Run:
    proc = subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@settings(deadline=None)
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


@settings(deadline=None)
@given(
    st.sampled_from(["3", "3.naming", "dv", "6.tool-errors"]),
    st.sampled_from(["3.naming", "3.naming-x", "30.x", "dv.substrate-leak", "6.tool-errors"]),
)
def test_a_prefix_matches_whole_ids_or_ids_below_it(prefix: str, rule: str) -> None:
    expected = rule == prefix or rule.startswith(prefix + ".")
    assert AuditConfig(select=[prefix]).wants(rule) is expected
    assert AuditConfig(ignore=[prefix]).wants(rule) is not expected


def test_remediation_is_spelled_in_the_servers_framework() -> None:
    from drivable.audit.ecosystem import adapt, detect
    from drivable.audit.model import Finding

    assert detect({"command": ["node", "dist/index.js"]}) == "typescript"
    assert detect({"command": ["npx", "-y", "@x/server"]}) == "typescript"
    assert detect({"command": [sys.executable, "-m", "drivable.servers.caselaw"]}) == "drivable"
    assert detect({"command": [sys.executable, str(SERVERS / "fastmcp_notes.py")]}) == "fastmcp"
    assert detect({"command": [sys.executable, str(SERVERS / "defects.py")]}) == "python-sdk"
    open_schema = Finding(
        "3.closed-schemas",
        "major",
        "tool:x",
        "open",
        {},
        'Add `additionalProperties: false` at `/` (pydantic: `model_config = ConfigDict(extra="forbid")`).',
    )
    (ts,) = adapt([open_schema], "typescript")
    assert "pydantic" not in ts.remediation and ".strict()" in ts.remediation
    (py,) = adapt([open_schema], "fastmcp")
    assert "extra=" in py.remediation


def test_text_and_markdown_group_findings_of_one_kind() -> None:
    from drivable.audit.model import Finding, Report
    from drivable.audit.report import render

    findings = [
        Finding(
            "3.output-schema",
            "major",
            f"tool:t{i}",
            "No outputSchema: the result shape is undeclared.",
            {},
            f"Declare an `outputSchema` for `t{i}`.",
        )
        for i in range(30)
    ] + [
        Finding(
            "3.naming", "minor", "tool:getX", "`getX` is not snake_case verb_noun.", {}, "Rename."
        )
    ]
    report = Report({"transport": "file"}, findings)
    markdown = render(report, "markdown")
    assert markdown.count("\n### F") == 2 and "30 subjects" in markdown
    assert "tool:t0, tool:t1" in markdown and "and 18 more" in markdown
    text = render(report, "text", width=200)
    assert "31 in 2 groups" in text
