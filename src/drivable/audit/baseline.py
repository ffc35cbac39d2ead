"""A baseline file: findings a maintainer accepted, left out of later reports and exit codes.

Findings are matched by rule, subject and the fingerprint SARIF uses (the summary with numbers
masked), so a count that changes does not bring an accepted finding back; a new tool or a new
kind of problem does.
"""

from __future__ import annotations

import json
from pathlib import Path

from drivable.audit.model import Finding
from drivable.audit.report.sarif import fingerprint

VERSION = 1


class BaselineError(ValueError):
    """The baseline file cannot be read (exit 2, one line)."""


def _key(f: Finding) -> str:
    return fingerprint(f.rule, f.subject, f.summary)


def write_baseline(path: Path, findings: list[Finding]) -> None:
    entries = sorted(
        ({"rule": f.rule, "subject": f.subject, "fingerprint": _key(f)} for f in findings),
        key=lambda e: (e["rule"], e["subject"], e["fingerprint"]),
    )
    path.write_text(json.dumps({"version": VERSION, "accepted": entries}, indent=2) + "\n")


def apply_baseline(path: Path, findings: list[Finding]) -> tuple[list[Finding], int]:
    """(the findings not in the baseline, how many were accepted by it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        accepted = {str(e["fingerprint"]) for e in data["accepted"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    kept = [f for f in findings if _key(f) not in accepted]
    return kept, len(findings) - len(kept)
