"""The eval as an HTML page, opened in headless Chromium: before and after per workflow and step,
per agent, tokens and calls per task, with the charts drawn to scale in the sides' colours; the
history of saved runs; nothing loaded, nothing run, and every name shown as text.

tests/eval/data/sidebyside-*.json are two saved side by sides of the billing set (the 1.5B model),
copied from docs/runs with their trials left out: the page reads summaries only."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drivable.cli import app
from drivable.eval.html import render_html
from drivable.eval.report import summarize
from drivable.pages import CHART_W, LABEL_W, PALETTE, VALUE_W, carriable
from tests.browser import (
    Browser,
    Page,
    assert_bars_show_their_colours,
    assert_not_blank,
    assert_self_contained,
    browser_or_fail,
)
from tests.markup import ATTRIBUTES, TAGS, parse

HERE = Path(__file__).parent
DATA = HERE / "data"
SAVED = [DATA / "sidebyside-billing-r5.json", DATA / "sidebyside-billing-r12-refund.json"]
EXAMPLE = HERE.parent / "contract" / "example_server.py"
NAIVE = HERE / "naive_notes_server.py"
FLOWS = HERE.parents[1] / "src" / "drivable" / "eval" / "workflows" / "example" / "tune"
PLOT_W = CHART_W - LABEL_W - VALUE_W  # the width of a chart's 100 %


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with browser_or_fail(tmp_path_factory.mktemp("chromium")) as opened:
        yield opened


def _eval(*args: str) -> str:
    result = CliRunner().invoke(app, ["eval", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _cell(r: dict[str, Any] | None) -> str:
    return "–" if not r or not r.get("n") else f"{r['rate'] * 100:.0f}% ({r['k']}/{r['n']})"


def _chart(page: Page, caption: str, within: str = "") -> dict[tuple[str, str], dict[str, Any]]:
    """A chart's categories and bars, found by its caption."""
    charts = page.evaluate(
        f"""Array.from(document.querySelectorAll({json.dumps(within + " figure.chart")}))
              .filter(f => f.querySelector('figcaption').textContent === {json.dumps(caption)})
              .map(f => Array.from(f.querySelectorAll('rect.bar')).map(r => ({{
                 series: r.dataset.series, category: r.dataset.category,
                 width: parseFloat(r.getAttribute('width')), fill: r.getAttribute('fill')}})))"""
    )
    assert len(charts) == 1, (caption, len(charts))
    return {(b["category"], b["series"]): b for b in charts[0]}


def _drawn_to_scale(bars: dict[Any, dict[str, Any]], rates: dict[Any, float | None]) -> None:
    assert set(bars) == {key for key, rate in rates.items() if rate is not None}
    for key, bar in bars.items():
        rate = rates[key]
        assert rate is not None and bar["width"] == pytest.approx(PLOT_W * rate, abs=0.06), key


@pytest.fixture(scope="module")
def before_after(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A naive run, then the drivable server's run against it as a page: the real command, two
    personas, three workflows, over stdio."""
    tmp = tmp_path_factory.mktemp("runs")
    common = ["--persona", "speller", "--persona", "literal", "--trials", "1"]
    for name in ("01_cold_start.yaml", "03_invalid_argument.yaml", "07_unknown_id.yaml"):
        common += ["--workflow", str(FLOWS / name)]
    naive, drivable = tmp / "naive.json", tmp / "drivable.json"
    _eval(*common, "--out", str(naive), "--", sys.executable, str(NAIVE))
    page = _eval(
        *common,
        "--format",
        "html",
        "--baseline",
        str(naive),
        "--out",
        str(drivable),
        "--",
        sys.executable,
        str(EXAMPLE),
    )
    path = tmp / "eval.html"
    path.write_text(page, encoding="utf-8")
    runs = {"before": json.loads(naive.read_text()), "after": json.loads(drivable.read_text())}
    return path, runs


def test_before_and_after_per_workflow_step_and_agent_are_on_the_page_to_scale(
    browser: Browser, before_after: tuple[Path, dict[str, Any]]
) -> None:
    path, runs = before_after
    page = browser.page()
    page.open(path)
    assert_self_contained(page, path)
    summaries = {side: doc["summary"] for side, doc in runs.items()}
    workflows = list(summaries["after"]["workflows"])
    assert len(workflows) == 3
    completion = _chart(page, "Completion per workflow")
    _drawn_to_scale(
        completion,
        {
            (wf, side): s["workflows"][wf]["completed"]["rate"]
            for side, s in summaries.items()
            for wf in workflows
        },
    )
    # before is the first colour of the page, after the second, on every chart
    assert {(key[1], b["fill"]) for key, b in completion.items()} == {
        ("before", PALETTE[0]),
        ("after", PALETTE[1]),
    }
    agents = _chart(page, "Completion per agent")
    _drawn_to_scale(
        agents,
        {
            (agent, side): s["by_agent"][agent]["completed"]["rate"]
            for side, s in summaries.items()
            for agent in s["by_agent"]
        },
    )
    assert {a for a, _ in agents} == {"simulated:speller", "simulated:literal"}
    for caption, key in (
        ("Tokens per completed task (exchange, o200k)", "tokens_per_completed"),
        ("Tool calls per completed task", "tool_calls_per_completed"),
    ):
        bars = _chart(page, caption)
        drawn = {
            (wf, side): s["workflows"][wf][key]
            for side, s in summaries.items()
            for wf in workflows
            if s["workflows"][wf][key] is not None
        }
        assert set(bars) == set(drawn)
        longest = max(drawn.values())
        for k, bar in bars.items():  # one scale: the lengths keep the values' ratios
            widest = max(b["width"] for b in bars.values())
            assert bar["width"] / widest == pytest.approx(drawn[k] / longest, abs=0.01)
    # per step, both sides, as the Markdown table has them
    for wf in workflows:
        anchor = page.evaluate(
            f"""Array.from(document.querySelectorAll('details.workflow')).filter(d =>
                  d.querySelector('summary').textContent.startsWith({json.dumps(wf + " (")}))
                  .map(d => Array.from(d.querySelectorAll('tbody tr')).map(r =>
                     Array.from(r.cells).map(c => c.textContent)))"""
        )
        assert len(anchor) == 1
        rows = {row[0]: row for row in anchor[0]}
        for step in summaries["after"]["workflows"][wf]["steps"]:
            before = summaries["before"]["workflows"][wf]["steps"].get(step, {})
            after = summaries["after"]["workflows"][wf]["steps"][step]
            assert rows[step][1:3] == [_cell(before.get("passed")), _cell(after["passed"])]
            assert rows[step][3:5] == [_cell(before.get("first_call")), _cell(after["first_call"])]
    assert assert_bars_show_their_colours(page, "figure.chart svg") >= 12
    assert_not_blank(page, 1100, 900)


def test_saved_side_by_sides_show_naive_against_drivable_and_their_history(
    browser: Browser, tmp_path: Path
) -> None:
    args = [a for p in SAVED for a in ("--from-run", str(p))]
    path = tmp_path / "history.html"
    path.write_text(_eval(*args, "--format", "html"), encoding="utf-8")
    page = browser.page()
    page.open(path)
    assert_self_contained(page, path)
    docs = [json.loads(p.read_text()) for p in SAVED]
    last = docs[-1]["sets"]["billing"]
    title = "billing · Qwen2.5-Coder-1.5B-Instruct Q4_K_M"
    assert page.evaluate("document.querySelector('section.comparison h2').textContent") == title
    completion = _chart(page, "Completion per workflow", "section.comparison")
    _drawn_to_scale(
        completion,
        {
            (wf, side): last[side]["summary"]["workflows"][wf]["completed"]["rate"]
            for side in ("naive", "drivable")
            for wf in last[side]["summary"]["workflows"]
        },
    )
    # the model's cost per side, as the side by side measured it
    cost = page.evaluate(
        "Array.from(document.querySelectorAll('section.comparison table')).map(t => t.innerText)"
    )
    assert any(
        "model cost" in t and str(last["drivable"]["model"]["prompt_tokens"]) in t for t in cost
    )
    # the history: every run, oldest first, each side's overall completion
    history = _chart(page, f"Completion over runs: {title}", "#history")
    _drawn_to_scale(
        history,
        {
            (p.stem, side): d["sets"]["billing"][side]["summary"]["overall"]["completed"]["rate"]
            for p, d in zip(SAVED, docs, strict=True)
            for side in ("naive", "drivable")
        },
    )
    categories = page.evaluate(
        """Array.from(document.querySelectorAll('#history svg > text[text-anchor=end] > title'))
             .map(t => t.textContent)"""
    )
    assert categories == [p.stem for p in SAVED]
    assert assert_bars_show_their_colours(page, "#history svg") == 4
    assert_not_blank(page, 1100, 900)


# -- whatever a run's names hold --------------------------------------------------------------

NAME = st.text(st.characters(exclude_categories=()), min_size=1, max_size=20) | st.sampled_from(
    ["<script>window.__pwned = 1</script>", '"><img src=x onerror=alert(1)>', "https://x.example"]
)


@st.composite
def runs(draw: st.DrawFn) -> dict[str, Any]:
    trials = []
    for wf in draw(st.lists(NAME, min_size=1, max_size=3, unique=True)):
        steps = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
        for agent in draw(st.lists(NAME, min_size=1, max_size=2, unique=True)):
            passed = [draw(st.booleans()) for _ in steps]
            trials.append(
                {
                    "workflow": wf,
                    "fixture": draw(NAME),
                    "split": draw(st.sampled_from([None, "tune", "holdout"])),
                    "agent": agent,
                    "skipped": None,
                    "completed": all(passed),
                    "tool_calls": draw(st.integers(0, 9)),
                    "tokens": draw(st.integers(0, 9000)),
                    "steps": [
                        {
                            "name": s,
                            "passed": p,
                            "attempt": 1 if p else None,
                            "first_call": p,
                            "first_repair": None,
                            "errors": 0 if p else 1,
                            "resends": 0,
                        }
                        for s, p in zip(steps, passed, strict=True)
                    ],
                }
            )
    target = {"label": draw(NAME), "transport": "stdio"}
    return {"target": target, "agent": draw(NAME), "note": draw(NAME), "summary": summarize(trials)}


@settings(max_examples=60)
@given(runs(), runs())
def test_whatever_a_run_names_the_page_holds_only_its_own_markup(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    page = render_html([("before", before), ("<b>after</b>", after)], before)
    parsed = parse(page)
    assert set(parsed.tags) <= TAGS
    assert {name for _, name, _ in parsed.attributes} <= ATTRIBUTES
    assert all(url.startswith("#") for url in parsed.urls())
    for doc in (before, after):
        for wf, summary in doc["summary"]["workflows"].items():
            assert carriable(wf) in parsed.text
            for step in summary["steps"]:
                assert carriable(step) in parsed.text
        for agent in doc["summary"]["by_agent"]:
            assert carriable(agent) in parsed.text
    page.encode("utf-8")


def test_saved_runs_read_as_text_too_and_what_cannot_be_shown_is_one_line(
    tmp_path: Path, before_after: tuple[Path, dict[str, Any]]
) -> None:
    text = _eval("--from-run", str(SAVED[0]))
    assert "| billing | naive |" in text and "| billing | drivable |" in text

    def refused(*args: str) -> str:
        result = CliRunner().invoke(app, ["eval", *args], catch_exceptions=False)
        assert result.exit_code == 2, result.output
        return result.output.strip()

    before = before_after[0].parent / "naive.json"
    assert "holds its own before" in refused("--from-run", str(SAVED[0]), "--baseline", str(before))
    assert "takes no target" in refused("--from-run", str(SAVED[0]), "--contract", "caselaw")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"passed": True}))
    assert "not a drivable eval run" in refused("--from-run", str(other))
    assert "--format takes one of text, html" in refused("--from-run", str(SAVED[0]), "-f", "pdf")
    # a saved run gates as a fresh one does: the naive run after the drivable one regressed
    after = before_after[0].parent / "drivable.json"
    result = CliRunner().invoke(
        app, ["eval", "--from-run", str(before), "--baseline", str(after), "--gate"]
    )
    assert result.exit_code == 1 and "regressed" in result.output
