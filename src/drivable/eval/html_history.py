"""The history section of the eval's HTML page: each comparison over the runs that have it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drivable.eval.html_cells import Comparison, comparisons, rate_cell, rate_of
from drivable.pages import PALETTE, Markup, Series, bar_chart, el, percent, table


def started_of(doc: dict[str, Any]) -> str:
    runs = list((doc.get("runs") or {}).values())
    return str(doc.get("started") or (runs[0].get("started") if runs else None) or "–")


def history(runs: Sequence[tuple[str, dict[str, Any]]]) -> Markup:
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
                [rate_of(overall(side, "completed", c)) for _, _, c in seen],
            )
            for i, side in enumerate(sides)
        ]
        rows = [
            [
                label,
                started_of(doc),
                side,
                *(
                    rate_cell(overall(side, key, c))
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
