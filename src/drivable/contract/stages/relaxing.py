"""Stage: an empty first page of a read-only paged tool whose author said nothing about it leads on
to its minimal relaxation, counted by running the tool again (docs/decisions/0046-every-empty-page-relaxes.md).

The rule is `drivable.contract.relax`'s, over the filters a call sent: an optional argument sent
with a value other than its default, that is not the page's size or cursor and not the search's words (a
`query`, `search`, `text`: what was asked stays as sent). A quantity or a time of day is a requirement, kept like the
requirements an author declares (decision 0021). The domain's `count` is the tool itself: each candidate call runs
the handler, read-only, on a scratch context, and its rows are counted (a page that has more
counts one over its length: enough to order "fewest rows" among small answers). `facet` names the
values of a filter that the rows carry under the filter's own name; a bound (`date_from`) has no
such field, and its warning names no values. A tool that relaxes, follows or says anything
itself, a later page, more than `MOST_FILTERS` filters, or a handler that fails on a candidate:
nothing is added.
"""

from __future__ import annotations

import dataclasses
import logging
import typing
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from drivable.contract.client import NO_CLIENT
from drivable.contract.relax import Filter, Side, Value, relax, sent_arguments
from drivable.contract.relax_said import words
from drivable.contract.stages.base import Attempt
from drivable.contract.stages.handler import invoke_with
from drivable.contract.tool import cursor_field, field_kinds
from drivable.contract.validation import BOUND_WORDS, name_key

log = logging.getLogger("drivable.contract")

MOST_FILTERS = 6  # pairs of six are 21 runs of the handler: the bound on one empty page's cost
_QUERIES = frozenset(name_key(n) for n in ("query", "search", "text", "keywords", "terms"))
_PAGE_SIZES = frozenset(name_key(n) for n in ("limit", "page_size"))
# A quantity or a time of day a call asks is what a row must meet to be of any use (the seats a
# meeting needs, the hour it starts): a requirement, never left out (decision 0021).
_NEEDS = frozenset({"integer", "number", "money", "time", "time_range"})
# the side of a bound, its words folded by the range words repairs read (`BOUND_WORDS`)
_LOWER = frozenset({"from", "min", "after"})
_UPPER = frozenset({"to", "max", "before"})


def rows_of(result: Any) -> tuple[list[Any], bool] | None:
    """A page's rows and whether it has more, or None when `result` is no page."""
    rows, more = _field(result, "results"), _field(result, "has_more")
    return (list(rows), bool(more)) if isinstance(rows, list) else None


def filters_sent(attempt: Attempt, sent: Mapping[str, Any]) -> list[Filter]:
    """The filters among the arguments sent, in declaration order."""
    model = type(attempt.args)
    out = []
    for name, info in model.model_fields.items():
        if name not in sent or info.is_required() or name_key(name) in _PAGE_SIZES:
            continue
        if getattr(attempt.args, name) == info.default:
            continue
        if name_key(name) in _QUERIES:
            continue  # the words asked stay as sent
        words_ = {BOUND_WORDS.get(w, w) for w in name.lower().split("_")}
        side: Side = "lower" if words_ & _LOWER else "upper" if words_ & _UPPER else "equal"
        needed = any(k.name in _NEEDS for k in field_kinds(info)) or _numeric(info.annotation)
        out.append(Filter(name, side, requirement=needed))
    return out


async def relax_empty(attempt: Attempt, result: Any) -> None:
    """Lead an empty first page on to its minimal relaxation, as the author's `call.relax` would."""
    spec, call = attempt.tool, attempt.context
    if not spec.effects.read_only or call.relaxed or call.following or call.message:
        return
    cursor = cursor_field(type(attempt.args))
    if cursor is None or getattr(attempt.args, cursor) is not None:
        return
    page = rows_of(result)
    if page is None or page[0]:
        return
    sent = sent_arguments(attempt.args, cursor)
    filters = filters_sent(attempt, sent)
    if not filters or len(filters) > MOST_FILTERS:
        return
    model = type(attempt.args)
    rows: dict[frozenset[str], tuple[list[Any], bool]] = {}

    async def run(kept: Mapping[str, Any]) -> tuple[list[Any], bool]:
        key = frozenset(kept)
        if key not in rows:
            dropped = {f.name: model.model_fields[f.name].default for f in filters}
            args = attempt.args.model_copy(
                update={n: v for n, v in dropped.items() if n not in key}
            )
            scratch = dataclasses.replace(
                call,
                notes=[],
                warnings=[],
                attachments=[],
                rejected=[],
                progress=None,
                client=NO_CLIENT,
                following=None,
                message=None,
                hint=None,
            )
            got = rows_of(await invoke_with(attempt, args, scratch))
            rows[key] = got if got is not None else ([], False)
        return rows[key]

    async def count(kept: Mapping[str, Any]) -> int:
        found, more = await run(kept)
        return len(found) + (1 if more else 0)

    async def facet(name: str, kept: Mapping[str, Any]) -> Iterable[Value]:
        found, _ = await run(kept)
        values = Counter(_field(r, name) for r in found)
        return [(v, n) for v, n in values.items() if isinstance(v, str | int | float)]

    try:
        relaxed = await relax(sent, filters, count, facet)
    except Exception as failure:  # the empty page stands as the handler gave it
        log.warning(
            "tool %s: relaxing an empty page failed (%s)", spec.name, type(failure).__name__
        )
        return
    if relaxed is None or relaxed.arguments is None:
        return
    for name in [n for n, v in relaxed.values.items() if not v]:
        del relaxed.values[name]  # rows without that field: no values to name
    said = words(relaxed, spec.name, "result")
    call.follow(spec.name, relaxed.arguments, message=said.message, hint=said.hint)
    if call.following is None:
        return
    for path, text in said.warnings:
        call.warn("no_hits_filtered", text, path)


def _numeric(annotation: Any) -> bool:
    """`int`, `float` or either `| None` (bool aside)."""
    options = typing.get_args(annotation) if typing.get_origin(annotation) else (annotation,)
    kinds = [a for a in options if a is not type(None)]
    return bool(kinds) and all(a in (int, float) for a in kinds)


def _field(row: Any, name: str) -> Any:
    # a model's own fields from its __dict__: getattr of a missing one costs pydantic a raise
    return row.get(name) if isinstance(row, Mapping) else getattr(row, "__dict__", {}).get(name)
