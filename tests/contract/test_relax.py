"""The minimal relaxation of an empty filtered page (`drivable.contract.relax`, `Call.relax`), over
generated tables and generated filter sets.

For every empty page under filters: the next call keeps every argument sent but the fewest filters
that bring rows back (one when one does, else two), and returns rows; no other filter (or pair) left
out returns fewer rows, and a tie goes to the filter declared last; every value named as one that
would have matched does match in the dropped filter's place. The table is plain data the test
counts itself, so each rule is checked against rows, not against the mechanism's own arithmetic.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Literal

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from drivable.contract import READ_ONLY, Call, Contract, Summary
from drivable.contract.relax import VALUES, Filter, Relaxation, relax
from drivable.kinds import KindModel
from tests.servers.relaxation import check_empty_page, read_as

START = datetime.date(2026, 1, 1)
WORDS = ("alpha", "beta", "gamma")
FILTERS = (
    Filter("a"),
    Filter("b"),
    Filter("c"),
    Filter("date_from", "lower"),
    Filter("date_to", "upper"),
)
FIELD = {"a": "a", "b": "b", "c": "c", "date_from": "day", "date_to": "day"}


def day(n: int) -> str:
    return (START + datetime.timedelta(days=n)).isoformat()


ROW = st.fixed_dictionaries(
    {
        "a": st.sampled_from(["x", "y", "z"]),
        "b": st.sampled_from(["p", "q"]),
        "c": st.sampled_from(["u", "v", "w"]),
        "day": st.integers(0, 40).map(day),
        "words": st.sets(st.sampled_from(WORDS), max_size=3),
    }
)
TABLES = st.lists(ROW, max_size=40)
# values drawn from wider sets than the rows use, so that empty pages are common
SENT = st.fixed_dictionaries(
    {},
    optional={
        "query": st.sampled_from(WORDS),
        "a": st.sampled_from(["x", "y", "z", "none"]),
        "b": st.sampled_from(["p", "q", "r"]),
        "c": st.sampled_from(["u", "v", "w", "t"]),
        "date_from": st.integers(-5, 45).map(day),
        "date_to": st.integers(-5, 45).map(day),
        "limit": st.integers(1, 20),
        "detail": st.sampled_from(["summary", "full"]),
    },
)


class Table:
    """Rows counted and faceted the plain way: what a domain supplies."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], query: str | None) -> None:
        self.rows, self.query = rows, query

    def matching(self, kept: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        out = []
        for row in self.rows:
            if self.query is not None and self.query not in row["words"]:
                continue
            if any(row[n] != kept[n] for n in ("a", "b", "c") if n in kept):
                continue
            if "date_from" in kept and row["day"] < kept["date_from"]:
                continue
            if "date_to" in kept and row["day"] > kept["date_to"]:
                continue
            out.append(row)
        return out

    def count(self, kept: Mapping[str, Any]) -> int:
        return len(self.matching(kept))

    async def facet(self, name: str, kept: Mapping[str, Any]) -> list[tuple[Any, int]]:
        return list(Counter(r[FIELD[name]] for r in self.matching(kept)).items())


def without(sent: Mapping[str, Any], dropped: Sequence[str]) -> dict[str, Any]:
    return {k: v for k, v in sent.items() if k not in dropped}


def check(
    rows: Sequence[Mapping[str, Any]],
    sent: dict[str, Any],
    found: Relaxation | None,
    declared: Sequence[Filter] = FILTERS,
) -> str:
    """Every rule of the relaxation, checked by counting rows; returns the case met. A
    requirement among `declared` is never left out: the rules run over the other filters."""
    table = Table(rows, sent.get("query"))
    active = [f.name for f in declared if f.name in sent]
    required = [f.name for f in declared if f.name in sent and f.requirement]
    filters = [n for n in active if n not in required]  # the ones that may be left out
    only = {k: sent[k] for k in active}
    if not filters:  # nothing sent that may be left out: the empty page is the answer
        assert found is None
        return "requirements only" if required else "no filter"
    assert found is not None and found.active == tuple(active)
    assert found.required == tuple(required)
    assert found.sent == sent
    if found.arguments is not None:  # (rule 5) every requirement sent is in the next call
        assert all(found.arguments[q] == sent[q] for q in required)

    def rows_without(dropped: Sequence[str]) -> int:
        return table.count(without(only, dropped))

    singles = {f: rows_without([f]) for f in filters}
    pairs = {p: rows_without(p) for p in combinations(filters, 2)}
    if any(singles.values()):
        # (a) all but exactly one filter, every other argument as sent, and rows come back
        (dropped,) = found.dropped
        assert found.arguments == without(sent, [dropped])
        assert found.matches == table.count(without(only, [dropped])) > 0
        # (b) no other filter left out brings back fewer rows; a tie goes to the one declared last
        for other, n in singles.items():
            if other != dropped and n:
                assert n > found.matches or filters.index(other) < filters.index(dropped)
        case = "one"
    elif any(pairs.values()):
        # no single filter brings rows back: the fewest rows of any pair, the later pair on a tie
        assert len(found.dropped) == 2 and found.dropped in pairs
        assert found.arguments == without(sent, found.dropped)
        assert found.matches == pairs[found.dropped] > 0
        late = sorted((filters.index(d) for d in found.dropped), reverse=True)
        for pair, n in pairs.items():
            if pair != found.dropped and n:
                mine = sorted((filters.index(d) for d in pair), reverse=True)
                assert n > found.matches or mine < late
        case = "two"
    else:
        # nothing brings rows back by leaving one or two out: no next call pretends otherwise
        assert found.dropped == () and found.arguments is None
        assert found.unfiltered == rows_without(filters)
        return "none" if found.unfiltered else "nothing at all"
    # (c) each value named for a dropped filter matches in its place, the rest as the next call
    # has it; at most VALUES of them, every one when fewer, in the stated order
    kept = without(only, found.dropped)
    for d in found.dropped:
        named = found.values[d]
        side = next(f.side for f in declared if f.name == d)
        present = Counter(r[FIELD[d]] for r in table.matching(kept))
        assert len(named) == min(VALUES, len(present))
        for value, n in named:
            assert present[value] == n
            matched = table.count({**kept, d: value})
            assert matched == n if side == "equal" else matched >= n > 0
        keys = [(-n, v) for v, n in named] if side == "equal" else [v for v, _ in named]
        assert keys == sorted(keys, reverse=side == "lower")
    return case


@given(rows=TABLES, sent=SENT)
@settings(max_examples=300, deadline=None)
def test_the_minimal_relaxation_over_generated_tables(
    rows: list[dict[str, Any]], sent: dict[str, Any]
) -> None:
    table = Table(rows, sent.get("query"))
    if table.count({k: sent[k] for k in FIELD if k in sent}):
        return  # the page is not empty: nothing to relax
    found = anyio.run(lambda: relax(sent, FILTERS, table.count, table.facet))
    check(rows, sent, found)


def test_every_case_is_met_by_the_generated_tables() -> None:
    """The generator reaches each case (so the property above cannot pass by never meeting one)."""
    seen: Counter[str] = Counter()

    @given(rows=TABLES, sent=SENT)
    @settings(max_examples=300, deadline=None, database=None)
    def tally(rows: list[dict[str, Any]], sent: dict[str, Any]) -> None:
        table = Table(rows, sent.get("query"))
        if not table.count({k: sent[k] for k in FIELD if k in sent}):
            seen[check(rows, sent, anyio.run(relax, sent, FILTERS, table.count, table.facet))] += 1

    tally()
    assert set(seen) == {"one", "two", "none", "nothing at all", "no filter"}, seen


def requiring(names: set[str]) -> tuple[Filter, ...]:
    return tuple(Filter(f.name, f.side, requirement=f.name in names) for f in FILTERS)


REQUIRED = st.sets(st.sampled_from([f.name for f in FILTERS]), min_size=1, max_size=3)


@given(rows=TABLES, sent=SENT, required=REQUIRED)
@settings(max_examples=300, deadline=None)
def test_a_requirement_is_never_left_out_over_generated_tables(
    rows: list[dict[str, Any]], sent: dict[str, Any], required: set[str]
) -> None:
    """Rule 5: whichever filters are declared requirements, the next call keeps each one sent,
    and the minimal relaxation (one filter, else a pair, else none) is the one over the others,
    counted on the rows."""
    table = Table(rows, sent.get("query"))
    if table.count({k: sent[k] for k in FIELD if k in sent}):
        return
    declared = requiring(required)
    found = anyio.run(lambda: relax(sent, declared, table.count, table.facet))
    check(rows, sent, found, declared)


def test_every_case_with_requirements_is_met_by_the_generated_tables() -> None:
    seen: Counter[str] = Counter()

    @given(rows=TABLES, sent=SENT, required=st.sets(st.sampled_from(["a", "c"]), min_size=1))
    @settings(max_examples=400, deadline=None, database=None, derandomize=True)
    def tally(rows: list[dict[str, Any]], sent: dict[str, Any], required: set[str]) -> None:
        table = Table(rows, sent.get("query"))
        if not table.count({k: sent[k] for k in FIELD if k in sent}):
            declared = requiring(required)
            found = anyio.run(relax, sent, declared, table.count, table.facet)
            seen[check(rows, sent, found, declared)] += 1

    tally()
    expected = {"one", "two", "none", "nothing at all", "no filter", "requirements only"}
    assert set(seen) == expected, seen


# -- through a contract: the page a model reads ------------------------------------------------


class In(KindModel):
    query: str | None = Field(None, description="A word the rows have.")
    a: Literal["x", "y", "z", "none"] | None = None
    b: Literal["p", "q", "r"] | None = None
    c: Literal["u", "v", "w", "t"] | None = None
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None
    cursor: str | None = Field(None, description="next_cursor of the previous page.")
    limit: int = Field(10, ge=1, le=20)
    detail: Literal["summary", "full"] = "summary"


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: str
    day: str


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    results: list[Row]
    total: int


ROWS: list[dict[str, Any]] = []
contract = Contract("t", version="1", summary=Summary(text="Test.", does=["test"], does_not=["x"]))


@contract.tool(
    name="find_rows",
    title="Find rows",
    description='Finds rows by a word and filters; use it first. Example: {"query": "<query>"}.',
    effects=READ_ONLY,
)
async def find_rows(args: In, call: Call) -> Out:
    sent = args.model_dump(mode="json", exclude_none=True)
    table = Table(ROWS, args.query)
    found = table.matching({k: sent[k] for k in FIELD if k in sent})
    if not found:
        # declared in another order than the model's: the tie rule reads the model's
        await call.relax(args, FILTERS[::-1], table.count, table.facet, noun="row")
    return Out(results=[Row(a=r["a"], day=r["day"]) for r in found[: args.limit]], total=len(found))


@contract.tool(
    name="find_needed_rows",
    title="Find rows that must have c",
    description=(
        "Finds rows by a word and filters, where c is a requirement the rows must meet; use it "
        'when c is needed. Example: {"query": "<query>", "c": "<c>"}.'
    ),
    effects=READ_ONLY,
)
async def find_needed_rows(args: In, call: Call) -> Out:
    sent = args.model_dump(mode="json", exclude_none=True)
    table = Table(ROWS, args.query)
    found = table.matching({k: sent[k] for k in FIELD if k in sent})
    if not found:
        await call.relax(args, requiring({"c"}), table.count, table.facet, noun="row")
    return Out(results=[Row(a=r["a"], day=r["day"]) for r in found[: args.limit]], total=len(found))


async def send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    out = await contract.call(tool, arguments)
    return dict(out.structured, is_error=out.is_error)


@given(rows=TABLES, sent=SENT, cursor=st.sampled_from([None, "0", " "]))
@settings(max_examples=150, deadline=None)
def test_the_empty_page_says_it_and_leads_on_through_call_relax(
    rows: list[dict[str, Any]], sent: dict[str, Any], cursor: str | None
) -> None:
    # an invented first-page cursor reads as none; the next call is a new search without it
    ROWS[:] = rows
    arguments = dict(sent, **({"cursor": cursor} if cursor is not None else {}))

    async def go() -> None:
        page = await send("find_rows", arguments)
        assert not page["is_error"], page
        read = read_as(In, arguments)
        assert read == sent
        sides = [(f.name, f.side) for f in FILTERS]
        await check_empty_page(send, "find_rows", read, sides, page)

    anyio.run(go)


@given(rows=TABLES, sent=SENT)
@settings(max_examples=150, deadline=None)
def test_a_requirement_stays_in_every_next_call_through_call_relax(
    rows: list[dict[str, Any]], sent: dict[str, Any]
) -> None:
    """From the outside a requirement is an argument that is not a filter: the checker of every
    empty page, told only of the others, finds each rule holds, and the page names it as kept."""
    ROWS[:] = rows

    async def go() -> None:
        page = await send("find_needed_rows", sent)
        assert not page["is_error"], page
        read = read_as(In, sent)
        assert read == sent
        sides = [(f.name, f.side) for f in FILTERS if f.name != "c"]
        case = await check_empty_page(send, "find_needed_rows", read, sides, page)
        if "c" in sent and not page["results"] and case != "no filter":
            assert f'c "{sent["c"]}" kept' in page["message"] or "It keeps c" in page["message"]

    anyio.run(go)
