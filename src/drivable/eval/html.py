"""The eval as one HTML page: before and after side by side (a naive twin and the drivable server,
a baseline and this run, or the agents a run has), per workflow and per step, per agent, tokens and
calls per task, with bar charts; and the history of runs when given several."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drivable.eval.report import SPLIT_METRICS, is_side_by_side
from drivable.pages import PALETTE, Markup, Series, bar_chart, el, page, percent, table

# before first, after second: the colours say which is which on every chart of the page
SIDE_ORDER = ("before", "naive", "after", "drivable")
OVERALL = (
    ("completed", "completed"),
    ("completed_within_two", "within 2 attempts a step"),
    ("first_call", "first call"),
    ("first_repair", "first repair"),
    ("errors_naming_next_call", "rejections naming the next call"),
    ("errors_naming_next_call_structured", "… in structure"),
    ("errors_naming_next_call_prose", "… in prose"),
    ("pass_k", "pass^k (every trial of a workflow)"),
)


@dataclass
class Side:
    label: str
    doc: dict[str, Any]

    @property
    def summary(self) -> dict[str, Any]:
        return dict(self.doc.get("summary") or {})

    @property
    def workflows(self) -> dict[str, Any]:
        return dict(self.summary.get("workflows") or {})


@dataclass
class Comparison:
    title: str
    sides: list[Side]
    meta: str = ""


def _ordered(sides: dict[str, Any]) -> list[Side]:
    rank = {name: i for i, name in enumerate(SIDE_ORDER)}
    names = sorted(sides, key=lambda n: (rank.get(n, len(rank)), list(sides).index(n)))
    return [Side(n, sides[n]) for n in names if sides[n]]


def _label(doc: dict[str, Any]) -> str:
    target = doc.get("target") or {}
    return str(target.get("label") or target.get("url") or " ".join(target.get("command") or []))


def comparisons(doc: dict[str, Any], baseline: dict[str, Any] | None = None) -> list[Comparison]:
    """What a run compares: each set of a side by side (naive and drivable) for each model, or
    a run against its baseline, or a run alone (its agents still compare on the agent chart)."""
    if is_side_by_side(doc):
        found: list[Comparison] = []
        for key, run in doc["runs"].items():
            model = str(run.get("model") or key)
            meta = (
                f"{model}; started {run.get('started', '–')}; trials per workflow "
                f"{run.get('trials', '–')}, seed {run.get('seed', '–')}; wall "
                f"{run.get('wall_seconds', '–')} s"
                + (f"; partial: {run['partial']}" if run.get("partial") else "")
            )
            for name, sides in (run.get("sets") or {}).items():
                found.append(Comparison(f"{name} · {model}", _ordered(sides or {}), meta))
        return found
    meta = (
        f"agent {doc.get('agent', '–')}; trials per workflow {doc.get('trials_per_workflow', '–')}, "
        f"seed {doc.get('seed', '–')}; {doc.get('seconds', '–')} s"
    )
    if baseline is not None:
        return [Comparison(_label(doc), [Side("before", baseline), Side("after", doc)], meta)]
    return [Comparison(_label(doc), [Side(str(doc.get("agent") or "run"), doc)], meta)]


# -- cells and charts -------------------------------------------------------------------------


def _rate(r: dict[str, Any] | None) -> Markup:
    if not r or not r.get("n"):
        return el("span", "–", class_="muted")
    lo, hi = (r.get("ci95") or [0.0, 1.0])[:2]
    return el(
        "span",
        f"{percent(r['rate'])} ({r['k']}/{r['n']})",
        title=f"95% interval {percent(lo)}–{percent(hi)}",
    )


def _value(x: Any) -> str:
    return "–" if x is None else str(x)


def _amount(x: Any) -> str:
    """A mean of calls or tokens: whole from 100 on, one decimal below."""
    if x is None:
        return "–"
    return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.1f}"


def _pass_k(flag: Any) -> str:
    return "–" if flag is None else ("yes" if flag else "no")


def _series(sides: Sequence[Side], value: Callable[[Side], list[float | None]]) -> list[Series]:
    return [
        Series(s.label, PALETTE[i] if len(sides) > 1 else PALETTE[1], value(s))
        for i, s in enumerate(sides)
    ]


def _names(sides: Sequence[Side]) -> list[str]:
    return list(dict.fromkeys(n for s in sides for n in s.workflows))


def _rate_of(r: Any) -> float | None:
    return r.get("rate") if isinstance(r, dict) and r.get("n") else None


def _per_workflow(sides: Sequence[Side], key: str, *, rate: bool) -> list[Series]:
    names = _names(sides)

    def values(s: Side) -> list[float | None]:
        wfs = s.workflows
        out: list[float | None] = []
        for n in names:
            got = (wfs.get(n) or {}).get(key)
            out.append(_rate_of(got) if rate else (float(got) if got is not None else None))
        return out

    return _series(sides, values)


def _agents(sides: Sequence[Side]) -> list[str]:
    return list(dict.fromkeys(a for s in sides for a in (s.summary.get("by_agent") or {})))


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
        [label, *(_rate(r) for r in rates)]
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
                [[label, *(_value(m.get(key)) for m in models)] for key, label in COSTS],
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
                    *(_rate(s.summary["splits"][split].get(k)) for k, _ in SPLIT_METRICS),
                ]
                for split, s in sorted(splits, key=lambda p: p[0])
            ],
            numeric=range(2, 2 + len(SPLIT_METRICS)),
        )
    return Markup(el("div", parts, class_="charts") + (split_table or ""))


def _charts(c: Comparison) -> Markup:
    names = _names(c.sides)
    agents = _agents(c.sides)
    row1 = [
        bar_chart(
            "Completion per workflow",
            names,
            _per_workflow(c.sides, "completed", rate=True),
            maximum=1.0,
            fmt=percent,
        )
    ]
    if agents:
        row1.append(
            bar_chart(
                "Completion per agent",
                agents,
                _series(
                    c.sides,
                    lambda s: [
                        _rate_of(((s.summary.get("by_agent") or {}).get(a) or {}).get("completed"))
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
            _per_workflow(c.sides, "tokens_per_completed", rate=False),
        ),
        bar_chart(
            "Tool calls per completed task",
            names,
            _per_workflow(c.sides, "tool_calls_per_completed", rate=False),
            whole=True,
        ),
    ]
    model_tokens = _per_workflow(c.sides, "model_tokens_per_completed", rate=False)
    if any(v is not None for s in model_tokens for v in s.values):
        row2.append(bar_chart("Model tokens per completed task (as reported)", names, model_tokens))
    return Markup(el("div", row1, class_="charts") + el("div", row2, class_="charts"))


def _workflow_table(c: Comparison) -> Markup:
    labels = [s.label for s in c.sides]
    metrics = ("completed", "pass^k", "calls/task", "tokens/task", "tools/list tokens")
    head = ["workflow", "split", *(lb for _ in metrics for lb in labels)]
    rows = []
    for name in _names(c.sides):
        wfs = [s.workflows.get(name) or {} for s in c.sides]
        split = next((w.get("split") for w in wfs if w.get("split")), None)
        rows.append(
            [
                el("a", name, href=f"#{_anchor(c, name)}"),
                split or "–",
                *(_rate(w.get("completed")) for w in wfs),
                *(_pass_k(w.get("pass_k")) for w in wfs),
                *(_amount(w.get("tool_calls_per_completed")) for w in wfs),
                *(_amount(w.get("tokens_per_completed")) for w in wfs),
                *(_amount((w.get("discovery") or {}).get("tokens")) for w in wfs),
            ]
        )
    groups = [("", 2), *((m, len(labels)) for m in metrics)]
    return table(head, rows, numeric=range(2, len(head)), groups=groups)


def _agent_table(c: Comparison) -> Markup | None:
    agents = _agents(c.sides)
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
                _rate(((s.summary.get("by_agent") or {}).get(a) or {}).get(key))
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
            f"{percent(_rate_of(w.get('completed')))} {lb}"
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
                _series(
                    c.sides,
                    lambda s: [
                        _rate_of(
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
                    *(_rate(cell.get(key)) for key, _ in metrics for cell in cells),
                    *(
                        f"{_value(cell.get('mean_attempt'))}/{_value(cell.get('max_attempt'))}"
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
            el("code", _label(s.doc)),
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
        el("h3", "Per agent") if _agents(c.sides) else None,
        _agent_table(c),
        el("h3", "Per workflow and step"),
        [_workflow(c, name) for name in _names(c.sides)],
        id=f"c{i}",
        class_="comparison",
    )


def _started(doc: dict[str, Any]) -> str:
    runs = list((doc.get("runs") or {}).values())
    return str(doc.get("started") or (runs[0].get("started") if runs else None) or "–")


def _history(runs: Sequence[tuple[str, dict[str, Any]]]) -> Markup:
    """Each comparison over the runs that have it, oldest first: overall completion per side."""
    by_title: dict[str, list[tuple[str, dict[str, Any], Comparison]]] = {}
    for label, doc in runs:
        for c in comparisons(doc):
            by_title.setdefault(c.title, []).append((label, doc, c))
    blocks: list[Markup] = []
    for title, seen in by_title.items():
        sides = list(dict.fromkeys(s.label for _, _, c in seen for s in c.sides))
        run_labels = [label for label, _, _ in seen]

        def overall(side: str, key: str, c: Comparison) -> dict[str, Any] | None:
            found = next((s for s in c.sides if s.label == side), None)
            return ((found.summary.get("overall") or {}).get(key)) if found else None

        series = [
            Series(
                side,
                PALETTE[i] if len(sides) > 1 else PALETTE[1],
                [_rate_of(overall(side, "completed", c)) for _, _, c in seen],
            )
            for i, side in enumerate(sides)
        ]
        rows = [
            [
                label,
                _started(doc),
                side,
                *(
                    _rate(overall(side, key, c))
                    for key in (
                        "completed",
                        "first_call",
                        "first_repair",
                        "errors_naming_next_call",
                    )
                ),
            ]
            for label, doc, c in seen
            for side in sides
            if any(s.label == side for s in c.sides)
        ]
        blocks.append(el("h3", title))
        blocks.append(
            bar_chart(
                f"Completion over runs: {title}", run_labels, series, maximum=1.0, fmt=percent
            )
        )
        blocks.append(
            table(
                (
                    "run",
                    "started",
                    "side",
                    "completed",
                    "first call",
                    "first repair",
                    "naming next call",
                ),
                rows,
                numeric=range(3, 7),
            )
        )
    return el(
        "section", el("h2", f"History ({len(runs)} runs, oldest first)"), blocks, id="history"
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
        _history(runs) if len(runs) > 1 else None,
    ]
    return page(f"drivable eval: {label}", body, css=CSS)


CSS = """
section.comparison { margin-bottom: 36px; }
details.workflow { border-top: 1px solid var(--line); padding-top: 4px; }
details.workflow > summary { font-weight: 600; }
table.figures-table td:first-child { color: var(--muted); }
"""
