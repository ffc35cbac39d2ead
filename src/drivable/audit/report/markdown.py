"""Markdown for a PR comment: the review workflow's five labelled lines per finding, then coverage."""

from __future__ import annotations

import json
from typing import Any

from drivable.audit.model import SECTION_TITLES, Report
from drivable.audit.report.groups import group, subjects_line


def _section_label(rule: str) -> str:
    head = rule.split(".", 1)[0]
    return f"§{head}" if head.isdigit() else "drivable"


def _evidence(value: Any, limit: int = 900) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str).replace("`", "'")
    return text if len(text) <= limit else text[:limit] + " …"


def render_markdown(report: Report) -> str:
    t = report.target
    findings = report.sorted_findings()
    where = " ".join(t.get("command", [])) or t.get("url") or t.get("path") or t.get("transport")
    lines = [
        "# drivable audit",
        "",
        f"- Target: `{where}` ({t.get('transport')}, era `{t.get('era')}`)",
    ]
    if t.get("env_passed") is not None:
        passed = ", ".join(f"`{n}`" for n in t["env_passed"]) or "none"
        lines.append(f"- Environment passed explicitly: {passed}")
    surface = t.get("surface") or {}
    if surface:
        lines.append(
            f"- Surface: {surface.get('tools', 0)} tools, {surface.get('tools_list_bytes', 0)} bytes / "
            f"{surface.get('tools_list_tokens', 0)} tokens ({surface.get('tokenizer')}) in tools/list"
        )
    probes = t.get("probes") or {}
    if probes:
        cold = probes.get("cold_start", {})
        repair = probes.get("first_repair", {})
        lines.append(
            f"- Probes: {probes.get('calls', 0)} calls; cold start: "
            f"{cold.get('tokens_before_first_call')} tokens before the first call, first call "
            f"`{cold.get('first_call_tool')}` → {cold.get('first_call_outcome', 'n/a')}; "
            f"first repair: {repair.get('status')}"
        )
    groups = group(findings)
    lines += ["", f"## Findings ({len(findings)} in {len(groups)} groups)", ""]
    if not findings:
        lines.append("No findings.")
    for i, g in enumerate(groups, 1):
        f = g.first
        many = len(g.subjects) > 1
        lines += [
            f"### F{i} `{f.rule}` — " + (f"{len(g.subjects)} subjects" if many else f.subject),
            "",
            f"- **Severity:** {f.severity.capitalize()}",
            f"- **Section:** {_section_label(f.rule)}",
            f"- **Summary:** {f.summary}" + (f" (shown for {f.subject})" if many else ""),
            f"- **Evidence:** `{_evidence(f.evidence)}`",
            f"- **Remediation:** {f.remediation}",
        ]
        if many:
            lines.append(f"- **Subjects:** {subjects_line(g)}")
        lines.append("")
    numbers: dict[int, list[str]] = {}
    for i, g in enumerate(groups, 1):
        if g.first.section is not None:
            numbers.setdefault(g.first.section, []).append(f"F{i}")
    lines += ["## Coverage", "", "| Section | Status | Notes |", "|---|---|---|"]
    for row in report.coverage:
        status = {
            "findings": "finding(s) " + ", ".join(numbers.get(row.section, [])[:12]),
            "ok": "OK",
        }.get(row.status, "not-checked")
        note = row.note.replace("|", "\\|")
        lines.append(f"| §{row.section} {SECTION_TITLES[row.section]} | {status} | {note} |")
    severe = [f for f in findings if f.severity in ("critical", "major")]
    lines += ["", "## Assumptions and open questions", ""]
    lines.append(
        "- Naming, description and effect checks are heuristics (verb lists, cue words); a finding "
        "names its evidence so a reviewer can overrule it."
    )
    skipped = (probes or {}).get("skipped_tools") or {}
    if skipped:
        lines.append(
            f"- {len(skipped)} tools were not called (mutating, or over the probe limit): "
            + ", ".join(f"`{n}`" for n in list(skipped)[:10])
            + ". Re-run with `--allow-writes` against a disposable instance to probe them."
        )
    lines.append(
        "- Rules that need human judgement are not reported here; the coverage rows count them "
        "and `drivable rules ID` gives the question a reviewer answers for each."
    )
    if not severe:
        lines.append(
            "- No Critical or Major finding. Residual risks: the (c) rules above; §7 was not probed."
        )
    return "\n".join(lines) + "\n"
