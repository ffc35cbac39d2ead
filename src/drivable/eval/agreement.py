"""Do the personas and the model agree on the order? For every pair of servers both runs compared,
which one completed more under each, and whether they agree."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from drivable.eval.workflow import SPLITS

SIDES = ("naive", "drivable")


def _ran(doc: dict[str, Any], split: str | None = None) -> list[dict[str, Any]]:
    return [
        t
        for t in doc.get("trials") or []
        if not t.get("skipped") and (split is None or t.get("split") == split)
    ]


def _order(naive: Fraction, drivable: Fraction) -> str:
    return "drivable" if drivable > naive else "naive" if naive > drivable else "tie"


def order_agreement(
    personas: dict[str, dict[str, dict[str, Any]]], model: dict[str, dict[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """For every pair of servers both runs compared (naive and drivable of a set, per split),
    which one completed more under the personas and under the model, and whether they agree.

    `personas` and `model` map a set to its sides' run documents (`{"naive": doc, "drivable":
    doc}`, as a side by side's run has them). Only the workflows all four documents ran are
    compared, so both orders are over the same work; per split when every trial says its split
    (runs of before the splits are compared as one, "all"). A tie agrees only with a tie."""
    pairs: list[dict[str, Any]] = []
    for name in [n for n in personas if n in model]:
        found = [runs[name].get(side) for runs in (personas, model) for side in SIDES]
        docs = [d for d in found if d]
        if len(docs) < len(found):
            continue
        trials = [t for d in docs for t in _ran(d)]
        scopes: list[str | None] = (
            [s for s in SPLITS if all(_ran(d, s) for d in docs)]
            if all(t.get("split") for t in trials)
            else [None]
        )
        for split in scopes:
            common = set.intersection(*({t["workflow"] for t in _ran(d, split)} for d in docs))
            if not common:
                continue
            rates = []
            for d in docs:
                mine = [t for t in _ran(d, split) if t["workflow"] in common]
                rates.append(Fraction(sum(1 for t in mine if t["completed"]), len(mine)))
            pn, pd, mn, md = rates
            by_personas, by_model = _order(pn, pd), _order(mn, md)
            pairs.append(
                {
                    "set": name,
                    "split": split or "all",
                    "workflows": len(common),
                    "personas": {"naive": float(pn), "drivable": float(pd), "order": by_personas},
                    "model": {"naive": float(mn), "drivable": float(md), "order": by_model},
                    "agree": by_personas == by_model,
                }
            )
    return pairs


def markdown_agreement(pairs: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| set | split | workflows | personas naive | personas drivable | model naive "
        "| model drivable | personas' order | model's order | agree |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pairs:
        ps, ms = p["personas"], p["model"]
        lines.append(
            f"| {p['set']} | {p['split']} | {p['workflows']} | {ps['naive'] * 100:.0f}% | "
            f"{ps['drivable'] * 100:.0f}% | {ms['naive'] * 100:.0f}% | {ms['drivable'] * 100:.0f}% "
            f"| {ps['order']} | {ms['order']} | {'yes' if p['agree'] else '**no**'} |"
        )
    return "\n".join(lines)
