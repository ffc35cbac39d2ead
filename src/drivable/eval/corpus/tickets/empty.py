"""What an empty filtered search says: the one filter to leave out, and what its rows hold.

The rule: among the searches that leave out exactly one of the filters sent, the one with the
fewest (but some) tickets is the next call; every other filter the caller sent stays in it. The
message names, for that filter, the values the tickets it would list have ("status in_review 3,
closed 1"), so a model can tell the user what is there instead of passing it off as the answer.
When no single filter is to blame, nothing is offered but the counts.
"""

from __future__ import annotations

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


async def relaxation(tracker: Tracker, tx: Transaction, filters: Filters) -> tuple[str, int] | None:
    """The filter whose removal gives the smallest non-empty result, with that count."""
    found: list[tuple[int, int, str]] = []
    for order, name in enumerate(filters.active()):
        count = await tracker.count(tx, filters.without(name))
        if count:
            found.append((count, order, name))
    if not found:
        return None
    count, _, name = min(found)
    return name, count


async def what_it_holds(tracker: Tracker, tx: Transaction, filters: Filters, name: str) -> str:
    """The values of `name` among the tickets `filters` (without `name`) match, in words."""
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
    """Say why the page is empty and, when one filter is to blame, lead on without it."""
    found = await relaxation(tracker, tx, filters)
    if found is None:
        message = (
            "No ticket matches these filters, and leaving out any one of them still matches none."
        )
        call.warn("no_hits_filtered", message)
        call.note(message + " Tell the user nothing matches, or search with fewer filters.")
        return
    name, count = found
    holds = await what_it_holds(tracker, tx, filters.without(name), name)
    sent = asked.get(name)
    matched = f"{count} ticket matches" if count == 1 else f"{count} tickets match"
    message = (
        f"No ticket matches every filter together. Without {name}={_shown(sent)}, {matched}"
        + (f" ({holds})" if holds else "")
        + "."
    )
    hint = (
        f"None of them has {name}={_shown(sent)}: tell the user so, or, if the request allows, "
        f"call search_tickets again without {name} (the call in next_call)."
    )
    call.warn(
        "no_hits_filtered",
        f"No ticket has {name}={_shown(sent)} together with the other filters.",
        path=name,
    )
    call.follow(
        "search_tickets",
        {k: v for k, v in asked.items() if k != name},
        message=message,
        hint=hint,
    )


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
