"""SARIF 2.1.0 for code scanning: one run, the rule registry as the driver's rules."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from drivable import __version__ as _version
from drivable.audit.model import Report
from drivable.audit.rules import REGISTRY

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"critical": "error", "major": "error", "minor": "warning", "nit": "note"}
SECURITY = {"critical": "9.0", "major": "7.0", "minor": "4.0", "nit": "1.0"}


def _rule(rule_id: str) -> dict[str, Any]:
    rule = REGISTRY.get(rule_id)
    out: dict[str, Any] = {"id": rule_id, "name": rule_id.replace(".", "_").replace("-", "_")}
    if rule is None:
        out["shortDescription"] = {"text": rule_id}
        return out
    out["shortDescription"] = {"text": rule.requirement[:200]}
    out["defaultConfiguration"] = {"level": LEVEL[rule.severity]}
    out["properties"] = {"tags": ["mcp", "agent-friendly", f"check-{rule.check_key}"]}
    if rule.doc:
        out["fullDescription"] = {"text": rule.doc.what}
        out["help"] = {
            "text": f"{rule.doc.what}\nWhy: {rule.doc.why}\nExample: {rule.doc.example}\nFix: {rule.doc.fix}",
            "markdown": f"{rule.doc.what}\n\n**Why:** {rule.doc.why}\n\n**Example:** {rule.doc.example}\n\n**Fix:** {rule.doc.fix}",
        }
    return out


def _artifact(target: dict[str, Any]) -> str | None:
    """A file code scanning can pin results to: the server's script, or the audited dump."""
    candidates = [*target.get("command", [])[1:], target.get("path")]
    for arg in candidates:
        if not isinstance(arg, str) or arg.startswith("-"):
            continue
        path = Path(arg)
        if path.suffix in (".py", ".js", ".mjs", ".ts", ".json") and path.is_file():
            try:
                return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
            except ValueError:
                return path.resolve().as_uri()
    return None


def _location(subject: str, artifact: str | None) -> dict[str, Any]:
    location: dict[str, Any] = {
        "logicalLocations": [{"fullyQualifiedName": subject, "kind": subject.split(":", 1)[0]}]
    }
    if artifact is not None:
        location["physicalLocation"] = {
            "artifactLocation": {"uri": artifact},
            "region": {"startLine": 1},
        }
    return location


def render_sarif(report: Report) -> dict[str, Any]:
    findings = report.sorted_findings()
    rule_ids = sorted({f.rule for f in findings})
    index = {rid: i for i, rid in enumerate(rule_ids)}
    target = report.target
    label = (
        " ".join(target.get("command", []))
        or target.get("url")
        or target.get("path")
        or "mcp-server"
    )
    artifact = _artifact(target)
    results = []
    for f in findings:
        digest = hashlib.sha256(f"{f.rule}|{f.subject}|{f.summary}".encode()).hexdigest()[:32]
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": LEVEL[f.severity],
                "message": {"text": f"{f.summary} Fix: {f.remediation}"},
                "locations": [_location(f.subject, artifact)],
                "partialFingerprints": {"drivableFinding/v1": digest},
                "properties": {
                    "severity": f.severity,
                    "subject": f.subject,
                    "security-severity": SECURITY[f.severity],
                    "evidence": f.evidence,
                },
            }
        )
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "drivable-audit",
                        "version": _version,
                        "informationUri": "https://pypi.org/project/drivable/",
                        "rules": [_rule(rid) for rid in rule_ids],
                    }
                },
                "automationDetails": {"id": f"drivable-audit/{label}"[:200]},
                "results": results,
                "properties": {
                    "target": target,
                    "coverage": [c.to_dict() for c in report.coverage],
                },
            }
        ],
    }
