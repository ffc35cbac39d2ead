"""The terminal report: rich tables of findings and coverage."""

from __future__ import annotations

import io
import textwrap

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drivable.audit.model import SECTION_TITLES, Report
from drivable.audit.report.groups import Group, group

MIN_WIDTH = 40
STYLE = {"critical": "bold red", "major": "red", "minor": "yellow", "nit": "dim"}


def _print_group(console: Console, i: int, g: Group, width: int) -> None:
    """One group as a block of wrapped lines: a table's narrow cells at 80 columns held "…" only.
    Every subject is named; a long name stays whole on its own line unless it is wider than the
    page."""
    f = g.first
    head = Text(f"G{i} ")
    head.append(f.severity, style=STYLE[f.severity])
    head.append(f" {f.rule}")
    many = len(g.subjects) > 1
    head.append(f", {len(g.subjects)} subjects:" if many else f", {f.subject}")
    console.print(head)
    parts = [("    ", ", ".join(g.subjects))] if many else []
    for first, body in (*parts, ("  ", f.summary), ("  fix: ", f.remediation)):
        lines = textwrap.wrap(
            body,
            width=width,
            initial_indent=first,
            subsequent_indent="    ",
            break_on_hyphens=False,
        ) or [first.rstrip()]
        for line in lines:
            console.print(line, soft_wrap=True)


def render_text(report: Report, *, color: bool = False, width: int = 120) -> str:
    width = max(MIN_WIDTH, width)
    buf = io.StringIO()
    # No markup or emoji codes: a summary quoting `[x]` or `:star:` is printed as written.
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
    )
    t = report.target
    where = " ".join(t.get("command", [])) or t.get("url") or t.get("path") or t.get("transport")
    console.print(Text(f"drivable audit: {where}", style="bold"))
    console.print(f"transport {t.get('transport')}, era {t.get('era')}")
    if t.get("env_passed") is not None:
        console.print("environment passed: " + (", ".join(t["env_passed"]) or "none"))
    surface = t.get("surface") or {}
    if surface:
        console.print(
            f"{surface.get('tools', 0)} tools, {surface.get('resources', 0)} resources, "
            f"{surface.get('prompts', 0)} prompts; tools/list {surface.get('tools_list_bytes', 0)} bytes, "
            f"{surface.get('tools_list_tokens', 0)} tokens ({surface.get('tokenizer')})"
        )
    probes = t.get("probes") or {}
    if probes:
        cold = probes.get("cold_start", {})
        console.print(
            f"probes: {probes.get('calls', 0)} calls; cold start {cold.get('tokens_before_first_call')} "
            f"tokens, first call {cold.get('first_call_tool')} -> {cold.get('first_call_outcome', 'n/a')}; "
            f"first repair: {probes.get('first_repair', {}).get('status')}"
        )
    findings = report.sorted_findings()
    groups = group(findings)
    if findings:
        console.print(Text(f"Findings ({len(findings)} in {len(groups)} groups)", style="bold"))
        for i, g in enumerate(groups, 1):
            _print_group(console, i, g, width)
    else:
        console.print("No findings.")
    cov = Table(title="Coverage", expand=True)
    cov.add_column("section")
    cov.add_column("status", no_wrap=True)
    cov.add_column("note", ratio=3)
    for row in report.coverage:
        cov.add_row(f"§{row.section} {SECTION_TITLES[row.section]}", row.status, row.note)
    console.print(cov)
    console.print("evidence: --format json or markdown")
    return buf.getvalue()
