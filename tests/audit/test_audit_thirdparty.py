"""The auditor on real third-party servers, installed by the test setup into var/thirdparty.

Installs are cached across runs (a stamp file per server); the first run needs PyPI and npm.
Deselect with `-m 'not thirdparty'`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from drivable.audit.rules import REGISTRY
from tests.audit.audit_thirdparty import npm_everything, python_server, python_server_command
from tests.audit.conftest import SERVERS, Run, audit_json

pytestmark = pytest.mark.thirdparty


def never_crashed(run: Run) -> dict[str, Any]:
    assert run.code in (0, 1), f"exit {run.code}: {run.stderr[-2000:]}"
    assert "Traceback" not in run.stderr
    report = run.report
    assert [c["section"] for c in report["coverage"]] == list(range(1, 10))
    for f in report["findings"]:
        assert f["rule"] in REGISTRY and REGISTRY[f["rule"]].doc is not None, f["rule"]
        assert f["remediation"] and f["summary"]
    return report


def test_mcp_server_time() -> None:
    report = never_crashed(audit_json("--", *python_server_command("time")))
    rules = {(f["rule"], f["subject"]) for f in report["findings"]}
    # Its tools take free-form objects and answer validation failures with framework text.
    assert ("3.closed-schemas", "tool:get_current_time") in rules
    assert ("6.symbolic-codes", "tool:get_current_time") in rules
    # The timezone example in the description is what a model would send: the first call works.
    assert report["target"]["probes"]["cold_start"]["first_call_outcome"] == "success"
    assert report["target"]["eras"]["spoken"] in ("2026-07-28", "handshake")


def test_mcp_server_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    report = never_crashed(
        audit_json("--", *python_server_command("git"), "--repository", str(repo))
    )
    skipped = report["target"]["probes"]["skipped_tools"]
    # Without --allow-writes nothing that commits, resets or checks out is ever called.
    assert {"git_commit", "git_reset", "git_checkout"} & set(skipped)
    assert "git_status" not in skipped
    assert report["target"]["probes"]["calls"] > 0
    # The repository given on its command line is what a model would be told: the first call
    # with it works, and the server echoing it back is configuration, not a leak.
    assert report["target"]["probes"]["cold_start"]["first_call_outcome"] == "success"
    assert not [
        f
        for f in report["findings"]
        if f["rule"] == "dv.substrate-leak" and str(repo) in f["summary"]
    ]


def test_server_everything_from_npm() -> None:
    report = never_crashed(
        audit_json("--", *npm_everything(), extra=("--allow-writes", "--timeout", "5"))
    )
    surface = report["target"]["surface"]
    assert surface["tools"] >= 5 and surface["resources"] >= 1 and surface["prompts"] >= 1
    rules = {f["rule"] for f in report["findings"]}
    assert "3.naming" in rules  # kebab-case tool names
    assert "5.when-to-use" in rules


def test_fastmcp_built_server() -> None:
    venv = python_server("fastmcp")
    report = never_crashed(
        audit_json("--", str(venv / "bin" / "python"), str(SERVERS / "fastmcp_notes.py"))
    )
    rules = {(f["rule"], f["subject"]) for f in report["findings"]}
    assert ("3.sec-confirmation", "tool:delete_note") in rules
    assert ("3.descriptions", "tool:delete_note") in rules
    assert "delete_note" in report["target"]["probes"]["skipped_tools"]
