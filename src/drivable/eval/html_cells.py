"""What the eval's HTML page compares (the sides of each comparison a run or a baseline holds)
and the cells and chart series it draws them with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drivable.eval.report import is_side_by_side
from drivable.pages import PALETTE, Markup, Series, el, percent

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


def ordered(sides: dict[str, Any]) -> list[Side]:
    rank = {name: i for i, name in enumerate(SIDE_ORDER)}
    names = sorted(sides, key=lambda n: (rank.get(n, len(rank)), list(sides).index(n)))
    return [Side(n, sides[n]) for n in names if sides[n]]


def side_label(doc: dict[str, Any]) -> str:
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
                found.append(Comparison(f"{name} · {model}", ordered(sides or {}), meta))
        return found
    meta = (
        f"agent {doc.get('agent', '–')}; trials per workflow {doc.get('trials_per_workflow', '–')}, "
        f"seed {doc.get('seed', '–')}; {doc.get('seconds', '–')} s"
    )
    if baseline is not None:
        return [Comparison(side_label(doc), [Side("before", baseline), Side("after", doc)], meta)]
    return [Comparison(side_label(doc), [Side(str(doc.get("agent") or "run"), doc)], meta)]


# -- cells and charts -------------------------------------------------------------------------


def rate_cell(r: dict[str, Any] | None) -> Markup:
    if not r or not r.get("n"):
        return el("span", "–", class_="muted")
    lo, hi = (r.get("ci95") or [0.0, 1.0])[:2]
    return el(
        "span",
        f"{percent(r['rate'])} ({r['k']}/{r['n']})",
        title=f"95% interval {percent(lo)}–{percent(hi)}",
    )


def value_cell(x: Any) -> str:
    return "–" if x is None else str(x)


def amount_cell(x: Any) -> str:
    """A mean of calls or tokens: whole from 100 on, one decimal below."""
    if x is None:
        return "–"
    return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.1f}"


def pass_k_cell(flag: Any) -> str:
    return "–" if flag is None else ("yes" if flag else "no")


def series_of(sides: Sequence[Side], value: Callable[[Side], list[float | None]]) -> list[Series]:
    return [
        Series(s.label, PALETTE[i] if len(sides) > 1 else PALETTE[1], value(s))
        for i, s in enumerate(sides)
    ]


def workflow_names(sides: Sequence[Side]) -> list[str]:
    return list(dict.fromkeys(n for s in sides for n in s.workflows))


def rate_of(r: Any) -> float | None:
    return r.get("rate") if isinstance(r, dict) and r.get("n") else None


def per_workflow(sides: Sequence[Side], key: str, *, rate: bool) -> list[Series]:
    names = workflow_names(sides)

    def values(s: Side) -> list[float | None]:
        wfs = s.workflows
        out: list[float | None] = []
        for n in names:
            got = (wfs.get(n) or {}).get(key)
            out.append(rate_of(got) if rate else (float(got) if got is not None else None))
        return out

    return series_of(sides, values)


def agents_of(sides: Sequence[Side]) -> list[str]:
    return list(dict.fromkeys(a for s in sides for a in (s.summary.get("by_agent") or {})))
