"""The eval as one HTML page: before and after side by side (a naive twin and the drivable server,
a baseline and this run, or the agents a run has), per workflow and per step, per agent, tokens and
calls per task, with bar charts; and the history of runs when given several."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drivable.eval.html_cells import (
    OVERALL,
    Comparison,
    agents_of,
    amount_cell,
    comparisons,
    pass_k_cell,
    per_workflow,
    rate_cell,
    rate_of,
    series_of,
    side_label,
    value_cell,
    workflow_names,
)
from drivable.eval.html_history import history
from drivable.eval.report import SPLIT_METRICS
from drivable.pages import Markup, bar_chart, el, page, percent, table

# -- sections ---------------------------------------------------------------------------------


COSTS = (
    ("turns", "model turns"),
    ("prompt_tokens", "prompt tokens"),
    ("completion_tokens", "completion tokens"),
    ("model_seconds", "model seconds"),
    ("tok_per_s", "tokens per second"),
)


def _figures(c: Comparison) -> Markup:
    """The overall rates per side, beside the model's cost when a side by side measured it; the
    splits below. A rate no side has (a run of before it) is left out."""
    head = ["overall", *(s.label for s in c.sides)]
    rows = [
        [label, *(rate_cell(r) for r in rates)]
        for key, label in OVERALL
        for rates in [[(s.summary.get("overall") or {}).get(key) for s in c.sides]]
        if any(r and r.get("n") for r in rates)
    ]
    parts = [table(head, rows, numeric=range(1, len(head)), class_="figures-table")]
    models: list[dict[str, Any]] = [
        dict(s.doc["model"]) if isinstance(s.doc.get("model"), dict) else {} for s in c.sides
    ]
    if any(models):
        parts.append(
            table(
                ["model cost", *(s.label for s in c.sides)],
                [[label, *(value_cell(m.get(key)) for m in models)] for key, label in COSTS],
                numeric=range(1, len(c.sides) + 1),
                class_="figures-table",
            )
        )
    splits = [
        (split, s)
        for s in c.sides
        for split in (s.summary.get("splits") or {})
        if (s.summary.get("splits") or {}).get(split)
    ]
    split_table = None
    if splits:
        split_table = table(
            ("split", "side", *(label for _, label in SPLIT_METRICS)),
            [
                [
                    split,
                    s.label,
                    *(rate_cell(s.summary["splits"][split].get(k)) for k, _ in SPLIT_METRICS),
                ]
                for split, s in sorted(splits, key=lambda p: p[0])
            ],
            numeric=range(2, 2 + len(SPLIT_METRICS)),
        )
    return Markup(el("div", parts, class_="charts") + (split_table or ""))


def _charts(c: Comparison) -> Markup:
    names = workflow_names(c.sides)
    agents = agents_of(c.sides)
    row1 = [
        bar_chart(
            "Completion per workflow",
            names,
            per_workflow(c.sides, "completed", rate=True),
            maximum=1.0,
            fmt=percent,
        )
    ]
    if agents:
        row1.append(
            bar_chart(
                "Completion per agent",
                agents,
                series_of(
                    c.sides,
                    lambda s: [
                        rate_of(((s.summary.get("by_agent") or {}).get(a) or {}).get("completed"))
                        for a in agents
                    ],
                ),
                maximum=1.0,
                fmt=percent,
            )
        )
    row2 = [
        bar_chart(
            "Tokens per completed task (exchange, o200k)",
            names,
            per_workflow(c.sides, "tokens_per_completed", rate=False),
        ),
        bar_chart(
            "Tool calls per completed task",
            names,
            per_workflow(c.sides, "tool_calls_per_completed", rate=False),
            whole=True,
        ),
    ]
    model_tokens = per_workflow(c.sides, "model_tokens_per_completed", rate=False)
    if any(v is not None for s in model_tokens for v in s.values):
        row2.append(bar_chart("Model tokens per completed task (as reported)", names, model_tokens))
    return Markup(el("div", row1, class_="charts") + el("div", row2, class_="charts"))


def _workflow_table(c: Comparison) -> Markup:
    labels = [s.label for s in c.sides]
    metrics = ("completed", "pass^k", "calls/task", "tokens/task", "tools/list tokens")
    head = ["workflow", "split", *(lb for _ in metrics for lb in labels)]
    rows = []
    for name in workflow_names(c.sides):
        wfs = [s.workflows.get(name) or {} for s in c.sides]
        split = next((w.get("split") for w in wfs if w.get("split")), None)
        rows.append(
            [
                el("a", name, href=f"#{_anchor(c, name)}"),
                split or "–",
                *(rate_cell(w.get("completed")) for w in wfs),
                *(pass_k_cell(w.get("pass_k")) for w in wfs),
                *(amount_cell(w.get("tool_calls_per_completed")) for w in wfs),
                *(amount_cell(w.get("tokens_per_completed")) for w in wfs),
                *(amount_cell((w.get("discovery") or {}).get("tokens")) for w in wfs),
            ]
        )
    groups = [("", 2), *((m, len(labels)) for m in metrics)]
    return table(head, rows, numeric=range(2, len(head)), groups=groups)


def _agent_table(c: Comparison) -> Markup | None:
    agents = agents_of(c.sides)
    if not agents:
        return None
    labels = [s.label for s in c.sides]
    metrics = (
        ("completed", "completed"),
        ("first_call", "first call"),
        ("first_repair", "first repair"),
    )
    head = ["agent", *(lb for _ in metrics for lb in labels)]
    rows = [
        [
            a,
            *(
                rate_cell(((s.summary.get("by_agent") or {}).get(a) or {}).get(key))
                for key, _ in metrics
                for s in c.sides
            ),
        ]
        for a in agents
    ]
    groups = [("", 1), *((m, len(labels)) for _, m in metrics)]
    return table(head, rows, numeric=range(1, len(head)), groups=groups)


def _anchor(c: Comparison, workflow: str) -> str:
    raw = f"{c.title}-{workflow}"
    return "wf-" + "".join(ch if ch.isalnum() else "-" for ch in raw).strip("-")


def _naming(step: dict[str, Any]) -> str:
    if "errors" not in step:
        return "–"
    named = f"{step['errors']} ({step.get('errors_naming_next_call', 0)} name the next call"
    if "errors_naming_next_call_prose" in step:
        named += (
            f": {step.get('errors_naming_next_call_structured', 0)} in structure, "
            f"{step['errors_naming_next_call_prose']} in prose"
        )
    return named + ")"


def _workflow(c: Comparison, name: str) -> Markup:
    wfs = [s.workflows.get(name) or {} for s in c.sides]
    labels = [s.label for s in c.sides]
    first = next((w for w in wfs if w), {})
    head_line = (
        f"{name} ({first.get('fixture') or '–'}"
        + (f", {first['split']}" if first.get("split") else "")
        + "): completed "
        + " → ".join(
            f"{percent(rate_of(w.get('completed')))} {lb}"
            for w, lb in zip(wfs, labels, strict=True)
        )
    )
    skipped = [
        el("p", f"{lb}: skipped ({w.get('skipped')})", class_="muted")
        for w, lb in zip(wfs, labels, strict=True)
        if w.get("skipped")
    ]
    refused = [
        el(
            "p",
            f"{lb}: {w['refused'].get('trials')} trial(s) never reached a tool: "
            f"{w['refused'].get('connect_error')}",
            class_="muted",
        )
        for w, lb in zip(wfs, labels, strict=True)
        if w.get("refused")
    ]
    steps = list(dict.fromkeys(st for w in wfs for st in (w.get("steps") or {})))
    body: list[Markup | None] = [*skipped, *refused]
    if steps:
        body.append(
            bar_chart(
                "Steps passed",
                steps,
                series_of(
                    c.sides,
                    lambda s: [
                        rate_of(
                            ((s.workflows.get(name) or {}).get("steps") or {})
                            .get(st, {})
                            .get("passed")
                        )
                        for st in steps
                    ],
                ),
                maximum=1.0,
                fmt=percent,
            )
        )
        metrics = (
            ("passed", "passed"),
            ("first_call", "first call"),
            ("first_repair", "first repair"),
        )
        head = ["step", *(lb for _ in range(len(metrics) + 2) for lb in labels)]
        groups = [
            ("", 1),
            *((m, len(labels)) for _, m in metrics),
            ("attempt mean/max", len(labels)),
            ("rejections", len(labels)),
        ]
        rows = []
        for st in steps:
            cells = [(w.get("steps") or {}).get(st) or {} for w in wfs]
            rows.append(
                [
                    st,
                    *(rate_cell(cell.get(key)) for key, _ in metrics for cell in cells),
                    *(
                        f"{value_cell(cell.get('mean_attempt'))}/{value_cell(cell.get('max_attempt'))}"
                        for cell in cells
                    ),
                    *(_naming(cell) for cell in cells),
                ]
            )
        body.append(
            table(head, rows, numeric=range(1, 1 + len(metrics) * len(labels)), groups=groups)
        )
    return el(
        "details",
        el("summary", head_line),
        body,
        open=True,
        id=_anchor(c, name),
        class_="workflow",
    )


def _comparison(i: int, c: Comparison) -> Markup:
    targets = [
        el(
            "li",
            el("strong", s.label),
            ": ",
            el("code", side_label(s.doc)),
            f" · {s.doc.get('agent', '–')}",
        )
        for s in c.sides
    ]
    notes = list(dict.fromkeys(str(s.doc["note"]) for s in c.sides if s.doc.get("note")))
    return el(
        "section",
        el("h2", c.title),
        el("p", c.meta, class_="meta") if c.meta else None,
        el("ul", targets, class_="meta"),
        [el("p", n, class_="note") for n in notes],
        _figures(c),
        _charts(c),
        el("h3", "Per workflow"),
        _workflow_table(c),
        el("h3", "Per agent") if agents_of(c.sides) else None,
        _agent_table(c),
        el("h3", "Per workflow and step"),
        [_workflow(c, name) for name in workflow_names(c.sides)],
        id=f"c{i}",
        class_="comparison",
    )


def render_html(
    runs: Sequence[tuple[str, dict[str, Any]]], baseline: dict[str, Any] | None = None
) -> str:
    """The page for the last of `runs` (label, document), compared with `baseline` when given,
    and the history of all of them when there are several."""
    if not runs:
        raise ValueError("no run to show")
    label, doc = runs[-1]
    shown = comparisons(doc, baseline)
    nav = [el("a", c.title, href=f"#c{i}") for i, c in enumerate(shown, 1)]
    if len(runs) > 1:
        nav.append(el("a", "History", href="#history"))
    body = [
        el(
            "header",
            el("h1", "drivable eval"),
            el(
                "p",
                f"run {label}" + (" against its baseline" if baseline is not None else ""),
                class_="meta",
            ),
            el("nav", nav),
            class_="page",
        ),
        [_comparison(i, c) for i, c in enumerate(shown, 1)],
        history(runs) if len(runs) > 1 else None,
    ]
    return page(f"drivable eval: {label}", body, css=CSS)


CSS = """
section.comparison { margin-bottom: 36px; }
details.workflow { border-top: 1px solid var(--line); padding-top: 4px; }
details.workflow > summary { font-weight: 600; }
table.figures-table td:first-child { color: var(--muted); }
"""
