"""A large catalog for the eval: a set's tools among tools of other domains, on one server.

A server with a hundred tools lists them through the entry tools (`drivable.contract.catalog`);
the eval measures a model finding and calling the set's own tools there (issue 40). `among(contract,
size)` is a copy of the set's contract with read-only tools of other domains declared beside its
own until it has `size` tools. Each domain has the tools a real one would (search, get, list by
date, count, summarize, export), and its names and words are plausible neighbours of the sets'
(orders, payments, contracts, cases), so a search can find the wrong one. They answer with rows
made from their arguments: nothing they say is the set's. `through_entry` scores a call of
`call_tool` as the call of the tool it names.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import Field

from drivable.contract import Contract, Output, Summary
from drivable.contract.catalog import CALL_TOOL
from drivable.contract.tool import READ_ONLY
from drivable.eval.turns import Observation, ToolCall
from drivable.kinds.identifier import Id

# The limit the eval's large catalog is entered above (the runtime's own default is off).
ENTRY_ABOVE = 30


@dataclass(frozen=True)
class Domain:
    """A domain of distractor tools: its record's noun, plural, what it holds, and a field it is
    filtered by."""

    noun: str
    plural: str
    system: str
    holds: str
    by: str


DOMAINS: tuple[Domain, ...] = (
    Domain("order", "orders", "the web shop", "items, totals and delivery state", "status"),
    Domain("payment", "payments", "the payment gateway", "amounts, cards and state", "method"),
    Domain("contract", "contracts", "the contract register", "parties and terms", "party"),
    Domain("case", "cases", "the support desk", "customer cases and their state", "priority"),
    Domain("contact", "contacts", "the CRM", "people, companies and emails", "company"),
    Domain("shipment", "shipments", "the warehouse", "parcels, carriers and tracking", "carrier"),
    Domain("employee", "employees", "the HR system", "people, roles and teams", "team"),
    Domain("event", "events", "the team calendar", "meetings and their attendees", "room"),
    Domain("forecast", "forecasts", "the weather service", "temperature and rain", "city"),
    Domain("article", "articles", "the news archive", "headlines and authors", "section"),
    Domain("policy", "policies", "the insurance book", "holders and cover", "product"),
    Domain("vehicle", "vehicles", "the fleet register", "cars, mileage and service", "depot"),
    Domain("flight", "flights", "the travel desk", "routes, times and fares", "airline"),
    Domain("book", "books", "the library", "titles, authors and loans", "author"),
    Domain("repository", "repositories", "the code host", "projects and their owners", "owner"),
    Domain("reading", "readings", "the sensor network", "measurements by device", "device"),
    Domain("claim", "claims", "the claims office", "claims, amounts and decisions", "adjuster"),
    Domain("lead", "leads", "the sales pipeline", "prospects and their stage", "stage"),
)


class Row(Output):
    id: str
    name: str
    detail: str


class Rows(Output):
    results: list[Row]
    total: int


class Count(Output):
    total: int


def _rows(domain: Domain, seed: str, n: int = 3) -> list[Row]:
    digest = hashlib.sha256(f"{domain.noun}:{seed}".encode()).hexdigest()
    return [
        Row(
            id=f"{domain.noun[:3]}_{digest[i * 6 : i * 6 + 6]}",
            name=f"{domain.noun.title()} {digest[i * 6 : i * 6 + 4]}",
            detail=f"A {domain.noun} of {domain.system}.",
        )
        for i in range(n)
    ]


def _named(handler: Callable[..., Any], returns: type, **params: tuple[Any, Any]) -> Any:
    """`handler(**kw)` with a signature of its own: each parameter's annotation and default
    (`inspect.Parameter.empty` for a required one), so a domain's inputs carry its own names."""
    signature = inspect.Signature(
        [
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default
            )
            for name, (hint, default) in params.items()
        ],
        return_annotation=returns,
    )
    handler.__signature__ = signature  # type: ignore[attr-defined]
    handler.__annotations__ = {**{k: v[0] for k, v in params.items()}, "return": returns}
    return handler


def _declare(on: Contract, d: Domain) -> list[str]:
    """Declare one domain's tools on `on`; their names, in order."""
    query = Annotated[str, Field(description=f"Words of the {d.noun}: {d.holds}.")]
    limit = Annotated[int, Field(ge=1, le=50, description=f"{d.plural.title()} to return.")]
    an_id = Annotated[
        str,
        Id(f"{d.noun[:3]}_"),
        Field(description=f"The {d.noun}'s id, as search_{d.plural} returns it."),
    ]
    value = Annotated[str, Field(description=f"The {d.by} to keep.")]
    required = inspect.Parameter.empty

    def rows(seed: str, n: int = 3, keep: int = 10) -> Rows:
        found = _rows(d, seed, n)[:keep]
        return Rows(results=found, total=len(found))

    def search(**kw: Any) -> Rows:
        return rows(kw["query"], keep=kw["limit"])

    def get(**kw: Any) -> Row:
        key = kw[f"{d.noun}_id"]
        return Row(id=key, name=f"{d.noun.title()} {key}", detail=f"A {d.noun} of {d.system}.")

    def by_date(**kw: Any) -> Rows:
        return rows(f"{kw['date_from']}..{kw['date_to']}", keep=kw["limit"])

    def by_field(**kw: Any) -> Rows:
        return rows(kw[d.by], keep=kw["limit"])

    def count(**kw: Any) -> Count:
        return Count(total=len(_rows(d, kw["query"])))

    def export(**kw: Any) -> Rows:
        return rows(f"export:{kw['query']}", n=5)

    p, n = d.plural, d.noun
    tools: list[tuple[str, Any, str]] = [
        (
            f"search_{p}",
            _named(search, Rows, query=(query, required), limit=(limit, 10)),
            f"Search the {p} of {d.system} ({d.holds}) by words.",
        ),
        (
            f"get_{n}",
            _named(get, Row, **{f"{n}_id": (an_id, required)}),
            f"Read one {n} of {d.system} by its id, as search_{p} returns it.",
        ),
        (
            f"list_{p}_by_date",
            _named(
                by_date,
                Rows,
                date_from=(dt.date, required),
                date_to=(dt.date, required),
                limit=(limit, 10),
            ),
            f"List the {p} of {d.system} dated in a range.",
        ),
        (
            f"list_{p}_by_{d.by}",
            _named(by_field, Rows, **{d.by: (value, required)}, limit=(limit, 10)),
            f"List the {p} of {d.system} of one {d.by}, newest first.",
        ),
        (
            f"count_{p}",
            _named(count, Count, query=(query, "")),
            f"Count the {p} of {d.system} whose words match the query.",
        ),
        (
            f"export_{p}",
            _named(export, Rows, query=(query, "")),
            f"Export the {p} of {d.system} that match words, as rows.",
        ),
    ]
    for name, handler, doc in tools:
        handler.__doc__ = doc
        handler.__name__ = handler.__qualname__ = name
        on.tool(effects=READ_ONLY)(handler)
    return [name for name, _, _ in tools]


def among(contract: Contract, size: int, limit: int | None = ENTRY_ABOVE) -> Contract:
    """A copy of `contract` with tools of other domains beside its own, `size` tools in all (at
    least its own): the set's tools first, in their order, then the domains'; listed through the
    entry tools above `limit` tools (None: listed whole)."""
    others = Contract(
        "others", version="1", summary=Summary("Tools of other domains.", does=[], does_not=[])
    )
    names: list[str] = []
    for domain in DOMAINS:
        if len(contract.tools) + len(names) >= size:
            break
        names.extend(_declare(others, domain))
    wide = copy.copy(contract)
    wide.catalog_limit = limit
    wide.tools = dict(contract.tools)
    for name in names[: max(0, size - len(contract.tools))]:
        wide.tools[name] = others.tools[name]
    return wide


def through_entry(obs: Observation) -> Observation:
    """A call of a large catalog's call_tool (`drivable.contract.catalog`) is scored as the call
    of the tool it names, with the arguments it carries: the step asked for that tool."""
    inner = obs.call.arguments.get("name")
    if obs.call.tool != CALL_TOOL or not isinstance(inner, str):
        return obs
    arguments = obs.call.arguments.get("arguments")
    call = ToolCall(inner, dict(arguments) if isinstance(arguments, Mapping) else {})
    return replace(obs, call=call)
