"""The audit as an HTML page, opened in headless Chromium: every finding group under its section
and severity with its subjects, evidence and fix; the summary chart in the severities' colours;
nothing loaded, nothing run, and a server's strings shown as text."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.audit.model import SEVERITIES, SEVERITY_RANK, CoverageRow, Finding, Report
from drivable.audit.report import render
from drivable.audit.report.groups import group
from drivable.audit.report.html import EVIDENCE_CHARS, SEVERITY_COLOURS
from drivable.audit.runner import AuditOptions, audit_target
from drivable.pages import carriable
from drivable.target import Target
from tests.audit.conftest import SERVERS, drivable
from tests.browser import (
    Browser,
    assert_bars_show_their_colours,
    assert_not_blank,
    assert_self_contained,
    browser_or_fail,
    close_to,
    hex_rgb,
)
from tests.markup import ATTRIBUTES, TAGS, parse


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with browser_or_fail(tmp_path_factory.mktemp("chromium")) as opened:
        yield opened


@pytest.fixture(scope="module")
def defects() -> Report:
    target = Target.from_cli([sys.executable, str(SERVERS / "defects.py")])
    # a short timeout: one planted tool never answers
    return anyio.run(lambda: audit_target(target, AuditOptions(timeout=3)))


def _flat(text: str) -> str:
    return " ".join(text.split())


def _shown(prose: str) -> str:
    """What a summary or fix reads as on the page: its paired backticks set as code."""
    return _flat(carriable(prose.replace("`", "") if prose.count("`") % 2 == 0 else prose))


def _evidence(value: Any) -> str:
    return carriable(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def test_the_page_of_a_live_audit_shows_every_group_with_subjects_evidence_and_fix(
    browser: Browser, defects: Report, tmp_path: Path
) -> None:
    path = tmp_path / "audit.html"
    path.write_text(render(defects, "html"), encoding="utf-8")
    page = browser.page()
    page.open(path)
    assert_self_contained(page, path)
    groups = group(defects.sorted_findings())
    assert len(groups) >= 20  # the planted server has many kinds of defect
    articles = page.evaluate(
        """Array.from(document.querySelectorAll('article.finding')).map(a => ({
             id: a.id, cls: a.className, rule: a.querySelector('code.rule').textContent,
             section: a.closest('section.rule-section').id,
             text: a.innerText, evidence: a.querySelector('pre').textContent,
             subjects: Array.from(a.querySelectorAll('p.subjects code')).map(c => c.textContent)}))"""
    )
    assert len(articles) == len(groups)
    assert sorted(a["id"] for a in articles) == sorted(f"g{i}" for i in range(1, len(groups) + 1))
    for a in articles:
        g = groups[int(a["id"][1:]) - 1]
        assert a["rule"] == g.rule and a["subjects"] == g.subjects
        assert f"sev-{g.severity}" in a["cls"]
        text = _flat(a["text"])
        assert _shown(g.first.summary) in text
        assert _shown(g.first.remediation) in text
        evidence = _evidence(g.first.evidence)
        assert a["evidence"] == evidence or a["evidence"].startswith(evidence[:EVIDENCE_CHARS])
        section = g.first.section
        assert a["section"] == f"section-{section or 'dv'}"
    # by section (checklist order, then drivable's own), and by severity within each section
    order = [
        (int(a["section"].split("-")[1]) if a["section"][8:].isdigit() else 99) for a in articles
    ]
    assert order == sorted(order)
    for sec in set(order):
        ranks = [
            SEVERITY_RANK[next(s for s in SEVERITIES if f"sev-{s}" in a["cls"])]
            for a, o in zip(articles, order, strict=True)
            if o == sec
        ]
        assert ranks == sorted(ranks)
    rows = page.evaluate(
        "Array.from(document.querySelectorAll('#coverage tbody tr')).map(r => r.textContent)"
    )
    assert len(rows) == len(defects.coverage)
    for row, cov in zip(rows, defects.coverage, strict=True):
        assert row.startswith(f"§{cov.section} ") and cov.status in row
    # the tools the probes left alone are named, and why
    skipped = (defects.target.get("probes") or {}).get("skipped_tools") or {}
    body = page.evaluate("document.body.innerText")
    assert skipped and all(name in body for name in skipped)


def test_the_summary_chart_and_badges_show_the_severities_colours(
    browser: Browser, defects: Report, tmp_path: Path
) -> None:
    path = tmp_path / "audit.html"
    path.write_text(render(defects, "html"), encoding="utf-8")
    page = browser.page()
    page.open(path, width=1100, height=900)
    assert_not_blank(page, 1100, 900)
    bars = page.boxes("#summary svg rect.bar")
    # a bar per section and severity that has findings: the counts the chart was drawn from
    expected = {(f.section, f.severity) for f in defects.findings}
    assert len(bars) == len(expected)
    assert {b["attrs"]["fill"] for b in bars} == {SEVERITY_COLOURS[s] for _, s in expected}
    assert assert_bars_show_their_colours(page, "#summary svg") >= len(SEVERITIES)
    for badge in page.boxes("article.finding span.badge")[:12]:
        image = page.screenshot(badge["x"], badge["y"], badge["width"], badge["height"])
        severity = badge["text"]
        # the badge's left padding is its colour; the word on it is white
        assert close_to(
            image.pixel(2, int(badge["height"] / 2)), hex_rgb(SEVERITY_COLOURS[severity])
        )


HOSTILE = "<script>window.__pwned = 1</script>"


def test_a_hostile_server_s_strings_are_text_on_the_page_from_the_command_line(
    browser: Browser, tmp_path: Path
) -> None:
    dump = tmp_path / "tools.json"
    tools = [
        {
            "name": HOSTILE,
            "description": '<img src=x onerror="window.__pwned = 2"> see https://example.com/docs',
            "inputSchema": {
                "type": "object",
                "properties": {'q"><svg onload="window.__pwned = 3">': {"type": "string"}},
            },
        },
        {"name": "javascript:alert(1)", "description": "</style><a href=https://example.com>x</a>"},
    ]
    dump.write_text(json.dumps({"server": {"name": "<b>srv</b>"}, "tools": tools}))
    out = tmp_path / "audit.html"
    run = drivable(
        "audit", "--from-file", str(dump), "--format", "html", "-o", str(out), "--fail-on", "minor"
    )
    assert run.code == 1, run.stderr
    page = browser.page()
    page.open(out)
    assert_self_contained(page, out)
    assert page.evaluate("window.__pwned === undefined")
    text = page.evaluate("document.body.innerText")
    assert f"tool:{HOSTILE}" in text
    assert "https://example.com/docs" in text  # a web address in evidence is text, not a link
    assert page.evaluate("document.querySelectorAll('svg svg, a[href^=\"http\"], b').length") == 0


# -- over every string a server can send ------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=()), max_size=30) | st.sampled_from(
    [HOSTILE, "</pre><script>x</script>", "a`b`c", '"><img src=x>', "https://example.com"]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def reports(draw: st.DrawFn) -> Report:
    findings = [
        Finding(
            draw(
                st.sampled_from(["1.stdout", "3.closed-schemas", "dv.substrate-leak"])
                | st.builds(
                    lambda head, tail: f"{head}.{tail}", st.sampled_from(["3", "12", "dv"]), TEXT
                )
            ),
            draw(st.sampled_from(SEVERITIES)),
            "tool:" + draw(TEXT),
            draw(TEXT),
            draw(JSON),
            draw(TEXT),
        )
        for _ in range(draw(st.integers(0, 5)))
    ]
    target = {"transport": "stdio", "command": [draw(TEXT)], "era": draw(TEXT)}
    coverage = [CoverageRow(s, "findings", draw(TEXT)) for s in range(1, 10)]
    return Report(target, findings, coverage)


@settings(max_examples=150)
@given(reports())
def test_whatever_a_server_sends_the_page_holds_only_its_own_markup(report: Report) -> None:
    page = render(report, "html")
    parsed = parse(page)
    assert set(parsed.tags) <= TAGS
    assert {name for _, name, _ in parsed.attributes} <= ATTRIBUTES
    assert all(url.startswith("#") for url in parsed.urls())
    for f in report.findings:
        assert carriable(f.subject) in parsed.text
    for g in group(report.sorted_findings()):  # a group shows its first finding's evidence
        assert _evidence(g.first.evidence)[:200] in parsed.text
    page.encode("utf-8")
