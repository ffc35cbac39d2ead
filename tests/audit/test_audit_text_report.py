"""The text report is read on a terminal: at any width every line fits, every summary and fix
is readable (never a lone "…"), and every subject of a group is named."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.audit.model import SEVERITIES, Finding, Report
from drivable.audit.report import render
from drivable.audit.report.groups import group
from tests.audit.conftest import drivable

# up to 30 characters: `tool:` and the name fit the narrowest page (40) with an indent
NAME = st.from_regex(r"[a-z][a-z0-9]{0,8}([_-][a-z0-9]{1,6}){0,3}", fullmatch=True)
WORDS = st.lists(
    st.from_regex(r"`?[A-Za-z0-9_.:/'-]{1,24}`?[.,;]?", fullmatch=True), min_size=1, max_size=40
).map(" ".join)
RULE = st.sampled_from(
    ["3.output-schema", "3.closed-schemas", "6.tool-errors", "dv.substrate-leak"]
)


@st.composite
def findings(draw: st.DrawFn) -> list[Finding]:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        rule, severity = draw(RULE), draw(st.sampled_from(SEVERITIES))
        summary, fix = draw(WORDS), draw(WORDS)
        tools = draw(st.lists(NAME, min_size=1, max_size=12, unique=True))
        # one finding per tool with the same summary: the group the report shows as one
        out += [Finding(rule, severity, f"tool:{t}", summary, {}, fix) for t in tools]
    return out


@settings(max_examples=200, deadline=None)
@given(findings(), st.integers(40, 160))
@example(
    [
        Finding(
            "6.tool-errors", "major", "tool:a", "Sent :star: and [bold]x[/bold].", {}, ":SA: [x]"
        )
    ],
    40,
)
def test_every_line_fits_every_summary_reads_and_every_tool_is_named(
    found: list[Finding], width: int
) -> None:
    report = Report({"transport": "file", "path": "tools.json"}, found)
    text = render(report, "text", width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert not [line for line in lines if line.strip() in ("…", "...")]
    flat = " ".join(line.strip() for line in lines)
    for g in group(report.sorted_findings()):  # a group shows its first summary and fix
        assert " ".join(g.first.summary.split()) in flat
        assert " ".join(g.first.remediation.split()) in flat
    for f in found:
        assert f.subject in flat, f.subject


def test_columns_sets_the_width_of_the_command(tmp_path: Path) -> None:
    tools = [
        {"name": f"get_{n}_record", "description": "Get.", "inputSchema": {"type": "object"}}
        for n in ("alpha", "beta", "gamma", "delta", "epsilon")
    ]
    dump = tmp_path / "tools.json"
    dump.write_text(json.dumps({"tools": tools}))
    for columns in (80, 60):
        run = drivable(
            "audit", "--from-file", str(dump), "--format", "text", env={"COLUMNS": str(columns)}
        )
        assert run.code == 1, run.stderr
        lines = run.stdout.splitlines()
        assert max(len(line) for line in lines) <= columns
        assert not [line for line in lines if line.strip() in ("…", "...")]
        for n in ("alpha", "beta", "gamma", "delta", "epsilon"):
            assert f"tool:get_{n}_record" in run.stdout
