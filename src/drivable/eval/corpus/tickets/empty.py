"""What an empty filtered search says: the fewest filters to leave out, and what their rows hold.

The rule: the next call leaves out the fewest filters that give any tickets (one, when one will
do) and, among the ways to leave out that many, the one that gives the fewest tickets; every
other filter the caller sent stays in it. The message names, for each filter left out, the values
the tickets it would list have ("status: in_review 3, closed 1"), so a model can tell the user
what is there instead of passing it off as the answer.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from drivable.contract import Call
from drivable.effects import Transaction
from drivable.eval.corpus.tickets.store import Filters, Tracker

_DATES = {
    "created_from": "created_at",
    "created_to": "created_at",
    "updated_from": "updated_at",
    "updated_to": "updated_at",
}
_SHOWN = 6


async def relaxation(
    tracker: Tracker, tx: Transaction, filters: Filters
) -> tuple[tuple[str, ...], int] | None:
    """The fewest filters whose removal gives tickets, the fewest tickets among such removals,
    and that count; None when even no filter at all gives any."""
    active = filters.active()
    for size in range(1, len(active) + 1):
        found: list[tuple[int, tuple[str, ...]]] = []
        for names in combinations(active, size):
            count = await tracker.count(tx, filters.without(*names))
            if count:
                found.append((count, names))
        if found:
            count, names = min(found, key=lambda f: f[0])  # ties: the first in the caller's order
            return names, count
    return None


async def what_it_holds(tracker: Tracker, tx: Transaction, filters: Filters, name: str) -> str:
    """The values of `name` among the tickets `filters` match, in words."""
    if name in _DATES:
        span = await tracker.span(tx, filters, _DATES[name])
        return f"{_DATES[name]} from {span[0]} to {span[1]}" if span else ""
    values = await tracker.values(tx, filters, name)
    if not values:
        return ""
    shown = ", ".join(f"{v} {n}" for v, n in values[:_SHOWN])
    more = f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else ""
    return f"{name}: {shown}{more}"


async def explain_empty(
    tracker: Tracker, tx: Transaction, call: Call, filters: Filters, asked: dict[str, Any]
) -> None:
    """Say why the page is empty and lead on without the fewest filters to blame."""
    found = await relaxation(tracker, tx, filters)
    if found is None:
        message = "No ticket matches, with these filters or without them."
        call.warn("no_hits_filtered", message)
        call.note(message)
        return
    names, count = found
    relaxed = filters.without(*names)
    holds = [h for n in names if (h := await what_it_holds(tracker, tx, relaxed, n))]
    sent = " and ".join(f"{n}={_shown(asked.get(n))}" for n in names)
    left_out = " and ".join(names)
    matched = f"{count} ticket matches" if count == 1 else f"{count} tickets match"
    message = (
        f"No ticket matches every filter together. Without {sent}, {matched}"
        + (f" ({'; '.join(holds)})" if holds else "")
        + "."
    )
    hint = (
        f"None of them has {sent}: tell the user so, or, if the request allows, call "
        f"search_tickets again without {left_out} (the call in next_call)."
    )
    for name in names:
        call.warn(
            "no_hits_filtered",
            f"No ticket has {name}={_shown(asked.get(name))} together with the other filters.",
            path=name,
        )
    call.follow(
        "search_tickets",
        {k: v for k, v in asked.items() if k not in names},
        message=message,
        hint=hint,
    )


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
