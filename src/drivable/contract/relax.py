"""The minimal relaxation of an empty filtered page: the next call that keeps every argument the
caller sent but the one filter whose removal brings back the fewest rows, and the values of that
filter that would have matched.

The rule (docs/runtime.md; why: docs/decisions/0006-minimal-relaxation.md):

1. The candidates are the filters the caller sent (a filter is an argument the domain names as
   one; the query, a page size, a detail level are not). Each is left out alone, and the domain
   counts the rows matching everything else. The next call leaves out the filter whose removal
   gives the fewest rows, more than none. Equal counts: the filter declared last in the tool's
   input goes (the author's order, never a guess from the values' wording).
2. When no single filter left out brings rows back, two filters contradict the rest each on its
   own; the same rule over pairs gives the smallest superset one step further. Never more than
   two: beyond that the relaxation would drop most of what was asked, and no next call is made.
3. Nothing matches even without any filter: the filters did not empty the page; no next call.
4. The next call keeps every other argument as sent (a cursor aside: it belonged to the emptied
   search). For each filter it leaves out, the values that would have matched are named: that
   filter's values among the rows the next call returns, at most `VALUES`, most rows first (a
   bound's nearest first: a lower bound's highest, an upper bound's lowest). Each, sent in place of
   the value that emptied the page with everything else as the next call has it, matches.
5. A filter the author declares a requirement (`Filter(name, side, requirement=True)`: what a row
   must meet to be of any use for the call, such as the seats a meeting needs) is never left out.
   It is kept like an argument that is not a filter, and rules 1-4 run over the other filters
   (why: docs/decisions/0021-a-requirement-is-never-relaxed.md).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel

Side = Literal["equal", "lower", "upper"]
Kept = Mapping[str, Any]
Value = tuple[Any, int]
# The domain's counting and faceting over its own data, sync or async: rows matching every
# non-filter argument (the query, a day) and the `kept` filters; and, for one filter's name,
# (value, rows) for each value of its field among those rows.
Count = Callable[[Kept], "int | Awaitable[int]"]
Facet = Callable[[str, Kept], "Iterable[Value] | Awaitable[Iterable[Value]]"]

VALUES = 5  # values named per dropped filter
MOST_DROPPED = 2


@dataclass(frozen=True)
class Filter:
    """One filtering argument: `equal` keeps rows whose field is the value, `lower` rows at or
    above it (date_from), `upper` rows at or below it (date_to). A `requirement` is never left out
    (rule 5): a row that fails it is of no use whatever else matches (a room with too few seats)."""

    name: str
    side: Side = "equal"
    requirement: bool = False


@dataclass(frozen=True)
class Relaxation:
    """What an empty filtered page leads on to (`relax`)."""

    sent: dict[str, Any]  # every argument the caller sent, canonical JSON
    active: tuple[str, ...]  # the filters among them, in declaration order
    dropped: tuple[str, ...] = ()  # the filters the next call leaves out; () when none does
    matches: int = 0  # rows the next call returns
    unfiltered: int | None = None  # rows without any filter, when nothing smaller brought rows
    values: dict[str, tuple[Value, ...]] = field(default_factory=dict)  # per dropped filter
    required: tuple[str, ...] = ()  # the requirements among `active`: never left out

    @property
    def loose(self) -> tuple[str, ...]:
        """The filters sent that may be left out (every one but the requirements)."""
        return tuple(n for n in self.active if n not in self.required)

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The next call's arguments: everything sent but the dropped filters; None without one."""
        if not self.dropped:
            return None
        return {k: v for k, v in self.sent.items() if k not in self.dropped}


def sent_arguments(args: BaseModel, cursor: str | None = None) -> dict[str, Any]:
    """The arguments the caller sent, as the tool read them (canonical JSON), without `cursor`:
    what a next call must keep. Absent values (null, a placeholder) were not sent."""
    sent = args.model_dump(mode="json", include=set(args.model_fields_set), exclude_none=True)
    sent.pop(cursor or "", None)
    return sent


def declared(model: type[BaseModel], filters: Sequence[Filter]) -> list[Filter]:
    """`filters` in the order the input model declares them (the tie rule's order)."""
    order = list(model.model_fields)
    return sorted(filters, key=lambda f: order.index(f.name) if f.name in order else len(order))


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def relax(
    sent: Mapping[str, Any],
    filters: Sequence[Filter],
    count: Count,
    facet: Facet,
    *,
    limit: int = VALUES,
) -> Relaxation | None:
    """The minimal relaxation of a search that found nothing under `sent` (module docstring);
    None when no filter was sent but requirements. `filters` in declaration order."""
    active = [f for f in filters if f.name in sent]
    loose = [i for i, f in enumerate(active) if not f.requirement]
    if not loose:  # no filter sent that may be left out: the empty page is the answer
        return None
    names = tuple(f.name for f in active)
    required = tuple(f.name for f in active if f.requirement)
    counted: dict[frozenset[str], int] = {}

    async def rows_without(dropped: tuple[str, ...]) -> int:
        key = frozenset(dropped)
        if key not in counted:
            kept = {n: sent[n] for n in names if n not in key}
            counted[key] = int(await _settle(count(kept)))
        return counted[key]

    for size in range(1, min(MOST_DROPPED, len(loose)) + 1):
        best: tuple[int, tuple[int, ...], tuple[str, ...]] | None = None
        for chosen in combinations(loose, size):
            dropped = tuple(names[i] for i in chosen)
            n = await rows_without(dropped)
            if n <= 0:
                continue
            # fewest rows; on a tie the one declared last (the larger indices, latest first)
            rank = (n, tuple(-i for i in sorted(chosen, reverse=True)), dropped)
            if best is None or rank < best:
                best = rank
        if best is not None:
            n, _, dropped = best
            kept = {k: sent[k] for k in names if k not in dropped}
            values = {}
            for f in active:
                if f.name in dropped:
                    found = await _settle(facet(f.name, kept))
                    values[f.name] = ordered(found, f.side, limit)
            return Relaxation(dict(sent), names, dropped, n, values=values, required=required)
    unfiltered = await rows_without(tuple(names[i] for i in loose))
    return Relaxation(dict(sent), names, unfiltered=unfiltered, required=required)


def ordered(found: Iterable[Value], side: Side, limit: int) -> tuple[Value, ...]:
    """At most `limit` values with rows: most rows first (then by value), or a bound's nearest
    first (a lower bound's highest values, an upper bound's lowest)."""
    values = [(v, int(n)) for v, n in found if v is not None and int(n) > 0]
    if side == "lower":
        values.sort(key=lambda vn: _key(vn[0]), reverse=True)
    elif side == "upper":
        values.sort(key=lambda vn: _key(vn[0]))
    else:
        values.sort(key=lambda vn: (-vn[1], _key(vn[0])))
    return tuple(values[:limit])


def _key(value: Any) -> tuple[int, Any]:
    # numbers by size, anything else by its text: one total order over mixed values
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value))


# -- in words ----------------------------------------------------------------------------------


def spelled(value: Any) -> str:
    """A value as JSON, so a reader (a model, a test) sees exactly what to send."""
    return json.dumps(value, ensure_ascii=False)


def listing(values: Sequence[Value]) -> str:
    return ", ".join(f"{spelled(v)} ({n})" for v, n in values)


def _either(names: Sequence[str], word: str = "and") -> str:
    return f" {word} ".join(names) if len(names) < 3 else ", ".join(names)


@dataclass(frozen=True)
class Words:
    """What an empty filtered page says: `message` and `hint` in a refusal's words, and the
    no_hits_filtered warnings as (path or None, message)."""

    message: str
    hint: str
    warnings: tuple[tuple[str | None, str], ...]


def words(relaxation: Relaxation, tool: str, noun: str) -> Words:
    r = relaxation
    needs = _either([f"{q} {spelled(r.sent[q])}" for q in r.required])
    never = "a requirement is" if len(r.required) == 1 else "requirements are"
    kept = f" ({needs} kept: {never} never left out)" if r.required else ""
    if r.dropped:
        left_out = _either([f"{d} {spelled(r.sent[d])}" for d in r.dropped])
        values = "; ".join(
            f"values of {d} that would match: {listing(r.values[d])}"
            for d in r.dropped
            if r.values.get(d)
        )
        single = len(r.dropped) == 1
        message = (
            f"No {noun} matches every filter together"
            + ("" if single else ", nor with any one of them left out")
            + f"; without {left_out}, {r.matches} {'does' if r.matches == 1 else 'do'}"
            + (
                f" (no other {'filter' if single else 'pair'} left out finds fewer)."
                if len(r.loose) > len(r.dropped)
                else "."
            )
            + (f" {values[0].upper()}{values[1:]}." if values else "")
            + (f" It keeps {needs}: {never} never left out." if r.required else "")
        )
        hint = (
            f"Call {tool} again without {_either(list(r.dropped))} (the call in next_call keeps "
            "every other argument as sent), or with "
            f"{_either(list(r.dropped), 'or')} set to a value that would match. The {noun}s it "
            f"finds are not limited to "
            f"{_either([f'{d} {spelled(r.sent[d])}' for d in r.dropped], 'or')}."
        )
        warned = []
        for d in r.dropped:
            others = [o for o in r.dropped if o != d]
            with_ = f" (with {others[0]} left out too)" if others else ""
            named = r.values.get(d)
            if named:
                then = f"Values of {d} that would match{with_}: {listing(named)}."
            else:  # rows that lack the field (a decision that applies no statute)
                then = f"No {noun} found without it{with_} has a value of {d}."
            warned.append(
                (d, f"No {noun} matches {d} {spelled(r.sent[d])} with the other filters. {then}")
            )
        return Words(message, hint, tuple(warned))
    names = list(r.loose)
    if not r.unfiltered:
        return Words(
            f"No {noun} matches, even without the filters ({', '.join(names)}){kept}: the "
            "other arguments match none.",
            f"Leaving filters out of {tool} finds no {noun}; change the other arguments instead.",
            (),
        )
    return Words(
        f"No {noun} matches every filter together, nor with any one or two of them left out; "
        f"without any filter{kept}, {r.unfiltered} {'does' if r.unfiltered == 1 else 'do'}.",
        f"Call {tool} again with fewer of its filters ({', '.join(names)}); which to keep is the "
        "user's choice.",
        ((None, f"No {noun} matches these filters together: {', '.join(r.active)}."),),
    )


__all__ = [
    "Count",
    "Facet",
    "Filter",
    "Relaxation",
    "Words",
    "declared",
    "listing",
    "ordered",
    "relax",
    "sent_arguments",
    "spelled",
    "words",
]
