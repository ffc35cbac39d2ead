"""SARIF 2.1.0 that GitHub code scanning accepts, for every kind of target.

Code scanning drops results without a physical location, so every result points into a file: for a
Python server (a drivable contract, FastMCP, the SDK) whose source is in the checkout, a result on
a tool, prompt or resource points at its `def` and a result on the server at the line creating it
(`drivable.audit.report.source`); every other result at the `--from-file` dump, or the surface
snapshot the audit writes beside the report (one line per name, so a result lands on its item). `security-severity` sits on the rules, automation ids name the
server and not a path on this machine, and fingerprints hash what identifies a finding (rule,
subject, the summary with its numbers masked), never counts that change from run to run.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from drivable import __version__ as _version
from drivable.audit.model import Report
from drivable.audit.report.source import declarations
from drivable.audit.rules import REGISTRY

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"critical": "error", "major": "error", "minor": "warning", "nit": "note"}
SECURITY = {"critical": "9.0", "major": "7.0", "minor": "4.0", "nit": "1.0"}
NUMBER = re.compile(r"\d+")


def _rule(rule_id: str) -> dict[str, Any]:
    rule = REGISTRY.get(rule_id)
    out: dict[str, Any] = {"id": rule_id, "name": rule_id.replace(".", "_").replace("-", "_")}
    if rule is None:
        out["shortDescription"] = {"text": rule_id}
        return out
    out["shortDescription"] = {"text": rule.requirement[:200]}
    out["defaultConfiguration"] = {"level": LEVEL[rule.severity]}
    out["properties"] = {
        "tags": ["mcp", "agent-friendly", f"check-{rule.check_key}"],
        "security-severity": SECURITY[rule.severity],
        "precision": "high" if rule.how != "static" else "medium",
    }
    if rule.doc:
        out["fullDescription"] = {"text": rule.doc.what}
        out["help"] = {
            "text": f"{rule.doc.what}\nWhy: {rule.doc.why}\nExample: {rule.doc.example}\nFix: {rule.doc.fix}",
            "markdown": f"{rule.doc.what}\n\n**Why:** {rule.doc.why}\n\n**Example:** {rule.doc.example}\n\n**Fix:** {rule.doc.fix}",
        }
    return out


def write_snapshot(report: Report, path: Path) -> None:
    """The surface as pretty JSON, so each tool's name sits on a line of its own."""
    surface = {k: v for k, v in (report.surface or {}).items() if k != "list_results"}
    path.write_text(json.dumps(surface, indent=2, ensure_ascii=False, default=str) + "\n")
    report.artifact = str(path)


def _relative(path: str) -> str:
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.name  # outside the checkout: the name alone, never this machine's path


def _lines(artifact: str | None) -> dict[str, int]:
    """subject -> line of its name in the artifact (tools, prompts, resources by uri)."""
    if artifact is None:
        return {}
    try:
        text = Path(artifact).read_text(encoding="utf-8")
    except OSError:
        return {}
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        m = re.search(r'"(name|uri|uriTemplate)"\s*:\s*"([^"]+)"', line)
        if m:
            for kind in ("tool", "prompt", "resource"):
                found.setdefault(f"{kind}:{m.group(2)}", number)
    return found


def _in_checkout(path: Path) -> str | None:
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return None


def _declarations(report: Report) -> dict[str, tuple[str, int]]:
    """subject -> (file in the checkout, line of its declaration)."""
    out: dict[str, tuple[str, int]] = {}
    for subject, (path, line) in declarations(list(report.target.get("command") or [])).items():
        where = _in_checkout(path)
        if where is not None:
            out[subject] = (where, line)
    return out


def _location(subject: str, artifact: str, lines: dict[str, int]) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact},
            "region": {"startLine": lines.get(subject, 1)},
        },
        "logicalLocations": [{"fullyQualifiedName": subject, "kind": subject.split(":", 1)[0]}],
    }


def fingerprint(rule: str, subject: str, summary: str) -> str:
    return hashlib.sha256(f"{rule}|{subject}|{NUMBER.sub('#', summary)}".encode()).hexdigest()[:32]


def server_label(report: Report) -> str:
    server = report.target.get("surface", {}).get("server") or {}
    name = server.get("name") if isinstance(server, dict) else None
    if isinstance(name, str) and name:
        return re.sub(r"[^A-Za-z0-9._-]+", "-", name)
    command = report.target.get("command") or []
    if command:
        return re.sub(r"[^A-Za-z0-9._-]+", "-", Path(str(command[-1])).name) or "mcp-server"
    return "mcp-server"


def render_sarif(report: Report) -> dict[str, Any]:
    findings = report.sorted_findings()
    rule_ids = sorted({f.rule for f in findings})
    index = {rid: i for i, rid in enumerate(rule_ids)}
    artifact = _relative(report.artifact) if report.artifact else "mcp-server.surface.json"
    lines = _lines(report.artifact)
    declared = _declarations(report)
    results = []
    used: set[str] = set()
    for f in findings:
        source, line = declared.get(f.subject, (artifact, 0))
        used.add(source)
        where = _location(f.subject, source, {f.subject: line} if line else lines)
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": LEVEL[f.severity],
                "message": {"text": f"{f.summary} Fix: {f.remediation}"},
                "locations": [where],
                "partialFingerprints": {
                    "drivableFinding/v2": fingerprint(f.rule, f.subject, f.summary)
                },
                "properties": {
                    "severity": f.severity,
                    "subject": f.subject,
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
                "automationDetails": {"id": f"drivable-audit/{server_label(report)}/"},
                "artifacts": [{"location": {"uri": uri}} for uri in sorted(used)],
                "results": results,
                "properties": {
                    "target": report.target,
                    "coverage": [c.to_dict() for c in report.coverage],
                },
            }
        ],
    }
