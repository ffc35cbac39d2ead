"""The auditor holds billing to the checklist: no critical or major finding, and none on the
descriptions, the summary's negative scope, the prompt or the annotations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli import CLI


def test_the_auditor_finds_nothing_critical_or_major_in_billing(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    run = subprocess.run(
        [
            *CLI,
            "audit",
            "--format",
            "json",
            "--fail-on",
            "major",
            "--env",
            f"DRIVABLE_BILLING_STORE={store}",
            "--",
            sys.executable,
            "-m",
            "drivable.servers.billing",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    findings = json.loads(run.stdout)["findings"]
    severe = [(f["rule"], f["subject"]) for f in findings if f["severity"] in ("critical", "major")]
    assert severe == []
    clean = ("3.descriptions", "2.negative-scope", "5.when-to-use", "3.annotations", "2.summary")
    assert [(f["rule"], f["subject"]) for f in findings if f["rule"] in clean] == []
