"""The audit as one HTML page: the summary, findings by section and severity (each with its
subjects, evidence and fix), the coverage, and what was not probed."""

from __future__ import annotations

import json
from typing import Any

from drivable.audit.model import SECTION_TITLES, SEVERITIES, Report
from drivable.audit.report.groups import Group, group
from drivable.audit.rules import get
from drivable.pages import Markup, Series, bar_chart, el, page, prose, table

SEVERITY_COLOURS = {"critical": "#b00020", "major": "#e0562a", "minor": "#d4a000", "nit": "#8a939b"}
STATUS_COLOURS = {"findings": "#e0562a", "ok": "#2a9d5c", "not-checked": "#8a939b"}
EVIDENCE_CHARS = 6000  # a bounded page; --format json keeps every byte

CSS = (
    "".join(f".sev-{s} {{ --sev: {c}; }}\n" for s, c in SEVERITY_COLOURS.items())
    + "".join(f".status-{s} {{ --sev: {c}; }}\n" for s, c in STATUS_COLOURS.items())
    + """
.badge { display: inline-block; background: var(--sev); color: #fff; border-radius: 3px;
  padding: 0 6px; font-size: 12px; font-weight: 600; text-transform: uppercase; }
article.finding { border-left: 4px solid var(--sev); background: var(--soft); padding: 8px 12px;
  margin: 8px 0; }
article.finding > header { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
article.finding p { margin: 4px 0; }
.fix { border-top: 1px dashed var(--line); padding-top: 4px; }
.figure.sev { border-top: 4px solid var(--sev); }
h4[class^="sev-"] { color: var(--sev); }
"""
)


def _where(t: dict[str, Any]) -> str:
    return str(
        " ".join(t.get("command", [])) or t.get("url") or t.get("path") or t.get("transport") or ""
    )


def _section_key(rule: str) -> int | None:
    head = rule.split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _section_title(section: int | None) -> str:
    return (
        f"§{section} {SECTION_TITLES.get(section, '')}".rstrip() if section else "drivable (dv.*)"
    )


def _evidence(value: Any) -> str:
    shown = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(shown) <= EVIDENCE_CHARS:
        return shown
    more = len(shown) - EVIDENCE_CHARS
    return shown[:EVIDENCE_CHARS] + f"\n… {more} more characters (--format json has them all)"


def _figure(label: str, value: str | int, *, class_: str = "figure") -> Markup:
    return el(
        "div", el("div", value, class_="value"), el("div", label, class_="label"), class_=class_
    )


def _subjects(g: Group) -> Markup:
    names = [el("code", s) for s in g.subjects]
    joined: list[Markup | str] = []
    for i, name in enumerate(names):
        joined += [", "] if i else []
        joined.append(name)
    label = "Subjects" if len(g.subjects) > 1 else "Subject"
    return el("p", el("strong", f"{label} ({len(g.subjects)}): "), joined, class_="subjects")


def _finding(i: int, g: Group) -> Markup:
    f = g.first
    rule = get(f.rule)
    many = len(g.subjects) > 1
    return el(
        "article",
        el(
            "header",
            el("span", f.severity, class_="badge"),
            el("code", f.rule, class_="rule"),
            el("span", f"G{i}", class_="muted"),
        ),
        el("p", rule.requirement, class_="muted requirement") if rule else None,
        el(
            "p",
            prose(f.summary),
            el("span", f" (shown for {f.subject})", class_="muted") if many else None,
        ),
        _subjects(g),
        el("details", el("summary", "Evidence"), el("pre", _evidence(f.evidence)), open=True),
        el("p", el("strong", "Fix: "), prose(f.remediation), class_="fix"),
        class_=f"finding sev-{f.severity}",
        id=f"g{i}",
    )


def _summary(report: Report, groups: list[Group]) -> Markup:
    findings = report.findings
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    statuses = [row.status for row in report.coverage]
    worst = report.worst()
    figures = [
        _figure(
            "worst severity",
            worst or "none",
            class_=f"figure sev sev-{worst}" if worst else "figure sev status-ok",
        ),
        _figure("findings", len(findings)),
        _figure("groups", len(groups)),
        *[_figure(s, counts[s], class_=f"figure sev sev-{s}") for s in SEVERITIES],
        _figure("sections OK", statuses.count("ok"), class_="figure sev status-ok"),
        _figure(
            "sections with findings",
            statuses.count("findings"),
            class_="figure sev status-findings",
        ),
        _figure(
            "sections not checked",
            statuses.count("not-checked"),
            class_="figure sev status-not-checked",
        ),
    ]
    sections = sorted({_section_key(f.rule) for f in findings}, key=lambda s: (s is None, s or 0))
    chart = (
        bar_chart(
            "Findings per section, by severity",
            [_section_title(s) for s in sections],
            [
                Series(
                    sev,
                    SEVERITY_COLOURS[sev],
                    [
                        float(
                            sum(
                                1
                                for f in findings
                                if f.severity == sev and _section_key(f.rule) == s
                            )
                        )
                        for s in sections
                    ],
                )
                for sev in SEVERITIES
            ],
            stacked=True,
            whole=True,
            width=640,
        )
        if findings
        else None
    )
    return el(
        "section",
        el("h2", "Summary"),
        el("div", figures, class_="figures"),
        chart,
        id="summary",
    )


def _target(t: dict[str, Any]) -> Markup:
    lines: list[Markup] = [
        el("p", f"transport {t.get('transport')}, era {t.get('era')}", class_="meta")
    ]
    if t.get("env_passed") is not None:
        lines.append(
            el("p", "environment passed: " + (", ".join(t["env_passed"]) or "none"), class_="meta")
        )
    surface = t.get("surface") or {}
    if surface:
        server = surface.get("server") or {}
        lines.append(
            el(
                "p",
                f"server {server.get('name', '')} {server.get('version', '')}".rstrip() + "; "
                f"{surface.get('tools', 0)} tools, {surface.get('resources', 0)} resources, "
                f"{surface.get('prompts', 0)} prompts; tools/list "
                f"{surface.get('tools_list_bytes', 0)} bytes, "
                f"{surface.get('tools_list_tokens', 0)} tokens ({surface.get('tokenizer')})",
                class_="meta",
            )
        )
    probes = t.get("probes") or {}
    if probes:
        cold = probes.get("cold_start") or {}
        repair = probes.get("first_repair") or {}
        lines.append(
            el(
                "p",
                f"probes: {probes.get('calls', 0)} calls; cold start "
                f"{cold.get('tokens_before_first_call')} tokens before the first call, first call "
                f"{cold.get('first_call_tool')} → {cold.get('first_call_outcome', 'n/a')}; "
                f"first repair: {repair.get('status')}",
                class_="meta",
            )
        )
    baseline = t.get("baseline") or {}
    if baseline:
        lines.append(
            el(
                "p",
                f"baseline {baseline.get('path')}: {baseline.get('accepted')} accepted findings "
                "left out",
                class_="meta",
            )
        )
    return Markup("".join(lines))


def _findings(groups: list[Group]) -> Markup:
    numbered = list(enumerate(groups, 1))
    sections = sorted({_section_key(g.rule) for g in groups}, key=lambda s: (s is None, s or 0))
    blocks: list[Markup] = []
    for section in sections:
        mine = [(i, g) for i, g in numbered if _section_key(g.rule) == section]
        parts: list[Markup] = [el("h3", _section_title(section))]
        for sev in SEVERITIES:
            these = [(i, g) for i, g in mine if g.severity == sev]
            if these:
                parts.append(el("h4", f"{sev} ({len(these)})", class_=f"sev-{sev}"))
                parts += [_finding(i, g) for i, g in these]
        blocks.append(el("section", parts, id=f"section-{section or 'dv'}", class_="rule-section"))
    return Markup("".join(blocks))


def _coverage(report: Report) -> Markup:
    rows = [
        [
            f"§{row.section} {SECTION_TITLES[row.section]}",
            el("span", row.status, class_=f"badge status-{row.status}"),
            row.note,
        ]
        for row in report.coverage
    ]
    return el(
        "section",
        el("h2", "Coverage"),
        table(("section", "status", "note"), rows),
        id="coverage",
    )


def _open_questions(report: Report) -> Markup:
    skipped = ((report.target.get("probes") or {}).get("skipped_tools")) or {}
    items = [
        el(
            "li",
            "Naming, description and effect checks are heuristics (verb lists, cue words); a "
            "finding names its evidence so a reviewer can overrule it.",
        ),
        el(
            "li",
            "Rules that need human judgement are not reported here; the coverage rows count them "
            "and ",
            el("code", "drivable rules ID"),
            " gives the question a reviewer answers for each.",
        ),
    ]
    if skipped:
        items.append(
            el(
                "li",
                f"{len(skipped)} tools were not called (mutating, or over the probe limit); re-run "
                "with ",
                el("code", "--allow-writes"),
                " against a disposable instance to probe them:",
                el(
                    "ul",
                    [
                        el("li", el("code", name), " — ", prose(str(why)))
                        for name, why in skipped.items()
                    ],
                ),
            )
        )
    return el("section", el("h2", "Not probed, and open questions"), el("ul", items), id="open")


def render_html(report: Report) -> str:
    findings = report.sorted_findings()
    groups = group(findings)
    where = _where(report.target)
    body = [
        el(
            "header",
            el("h1", "drivable audit"),
            el("p", el("code", where)),
            _target(report.target),
            el(
                "nav",
                el("a", "Summary", href="#summary"),
                el("a", "Findings", href="#findings"),
                el("a", "Coverage", href="#coverage"),
                el("a", "Not probed", href="#open"),
            ),
            class_="page",
        ),
        _summary(report, groups),
        el(
            "section",
            el("h2", f"Findings ({len(findings)} in {len(groups)} groups)"),
            _findings(groups) if groups else el("p", "No findings."),
            id="findings",
        ),
        _coverage(report),
        _open_questions(report),
    ]
    return page(f"drivable audit: {where}", body, css=CSS)
