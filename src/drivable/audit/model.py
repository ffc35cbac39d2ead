"""What an audit produces: findings with evidence, and a coverage row per checklist section."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["critical", "major", "minor", "nit"]
SEVERITIES: tuple[Severity, ...] = ("critical", "major", "minor", "nit")
SEVERITY_RANK: dict[str, int] = {s: i for i, s in enumerate(SEVERITIES)}

SECTION_TITLES: dict[int, str] = {
    1: "Server-Level",
    2: "Discovery Primitives",
    3: "Tools",
    4: "Resources",
    5: "Prompts",
    6: "Failure Recovery",
    7: "Long-Running Operations",
    8: "Token Efficiency",
    9: "Versioning and Compatibility",
}


def at_least(severity: str, threshold: str) -> bool:
    """True when `severity` is as bad as `threshold` or worse."""
    return SEVERITY_RANK[severity] <= SEVERITY_RANK[threshold]


@dataclass
class Finding:
    rule: str
    severity: Severity
    subject: str
    summary: str
    evidence: Any
    remediation: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "subject": self.subject,
            "summary": self.summary,
            "evidence": self.evidence,
            "remediation": self.remediation,
        }

    @property
    def section(self) -> int | None:
        head = self.rule.split(".", 1)[0]
        return int(head) if head.isdigit() else None


@dataclass
class CoverageRow:
    section: int
    status: Literal["findings", "ok", "not-checked"]
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"section": self.section, "status": self.status, "note": self.note}


@dataclass
class Report:
    target: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)
    coverage: list[CoverageRow] = field(default_factory=list)
    # The collected surface (not part of the pinned JSON): SARIF pins results to its snapshot.
    surface: dict[str, Any] | None = None
    # A file holding the surface (the --from-file input, or the snapshot the audit wrote).
    artifact: str | None = None

    def sorted_findings(self) -> list[Finding]:
        return sorted(
            self.findings,
            key=lambda f: (SEVERITY_RANK[f.severity], f.section or 99, f.rule, f.subject),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "findings": [f.to_dict() for f in self.sorted_findings()],
            "coverage": [c.to_dict() for c in self.coverage],
        }

    def worst(self) -> Severity | None:
        ranks = [SEVERITY_RANK[f.severity] for f in self.findings]
        return SEVERITIES[min(ranks)] if ranks else None
