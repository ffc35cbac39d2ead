"""An empty first page of a read-only paged tool leads on to its minimal relaxation even when its
author wrote nothing for it (docs/decisions/0046-every-empty-page-relaxes.md): properties over
generated rows and calls, through the real call pipeline."""

from __future__ import annotations

import datetime as dt
from itertools import combinations
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable import READ_ONLY, Contract, Effects, Output, Paged, Summary

contract = Contract(
    "items",
    version="1.0.0",
    summary=Summary("Items of owners.", does=["find items"], does_not=["change items"]),
)
Color = Literal["red", "blue", "green"]
ROWS: list[dict[str, Any]] = []
RUNS: list[dict[str, Any]] = []
FILTERS = ("color", "label", "day_from", "day_to")


class Item(Output):
    item_id: str
    color: str
    label: str
    day: dt.date
    size: int


def _matches(row: dict[str, Any], sent: dict[str, Any]) -> bool:
    return (
        row["owner"] == sent["owner"]
        and sent.get("color") in (None, row["color"])
        and sent.get("label") in (None, row["label"])
        and (sent.get("day_from") is None or row["day"] >= sent["day_from"])
        and (sent.get("day_to") is None or row["day"] <= sent["day_to"])
        and (sent.get("min_size") is None or row["size"] >= sent["min_size"])
        and (sent.get("query") is None or sent["query"] in row["label"])
    )


@contract.tool(effects=READ_ONLY)
def search_items(
    owner: str,
    color: Color | None = None,
    label: str | None = None,
    day_from: dt.date | None = None,
    day_to: dt.date | None = None,
    min_size: int | None = None,
    query: str | None = None,
) -> Paged[Item]:
    """Find an owner's items, oldest first. Example: {"owner": "<owner>"}."""
    sent: dict[str, Any] = dict(owner=owner, color=color, label=label, day_from=day_from)
    sent |= dict(day_to=day_to, min_size=min_size, query=query)
    RUNS.append(sent)
    rows = [r for r in ROWS if _matches(r, sent)]
    return Paged(results=[Item(**{k: v for k, v in r.items() if k != "owner"}) for r in rows])


@contract.tool(
    effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
)
def tag_items(owner: str, label: str | None = None) -> Paged[Item]:
    """Tag an owner's items; the page lists those tagged. Example: {"owner": "<owner>"}."""
    RUNS.append({"owner": owner})
    return Paged(results=[])


DAYS = st.dates(dt.date(2026, 1, 1), dt.date(2026, 1, 20))
rows = st.lists(
    st.fixed_dictionaries(
        {
            "owner": st.sampled_from(["ann", "bo"]),
            "color": st.sampled_from(["red", "blue", "green"]),
            "label": st.sampled_from(["alpha", "beta", "gamma"]),
            "day": DAYS,
            "size": st.integers(1, 9),
        }
    ),
    max_size=12,
).map(lambda rs: [{"item_id": f"it_{i}", **r} for i, r in enumerate(rs)])
calls = st.fixed_dictionaries(
    {"owner": st.sampled_from(["ann", "bo"])},
    optional={
        "color": st.sampled_from(["red", "blue", "green"]),
        "label": st.sampled_from(["alpha", "beta", "gamma"]),
        "day_from": DAYS,
        "day_to": DAYS,
        "min_size": st.integers(1, 9),
        "query": st.sampled_from(["al", "et", "zz"]),
    },
)


def _wire(sent: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in sent.items()}


def _count(sent: dict[str, Any]) -> int:
    return sum(
        _matches(r, {k: sent.get(k) for k in (*FILTERS, "owner", "min_size", "query")})
        for r in ROWS
    )


@settings(max_examples=150, deadline=None)
@given(data=rows, sent=calls)
async def test_an_empty_page_leads_to_the_fewest_rows_one_or_two_filters_away(
    data: list[dict[str, Any]], sent: dict[str, Any]
) -> None:
    ROWS[:] = data
    RUNS.clear()
    out = await contract.call("search_items", _wire(sent))
    assert not out.is_error
    if out.structured["results"]:
        assert "next_call" not in out.structured and len(RUNS) == 1  # nothing re-run
        return
    loose = [f for f in FILTERS if f in sent]
    following = out.structured.get("next_call")
    best = None
    for size in (1, 2):
        found = [
            (_count({k: v for k, v in sent.items() if k not in gone}), gone)
            for gone in combinations(loose, size)
        ]
        found = [(n, g) for n, g in found if n > 0]
        if found:
            best = min(n for n, _ in found)
            break
    if best is None:
        assert following is None  # no one or two filters bring rows back: no next call
        return
    assert following is not None and following["tool"] == "search_items"
    args = following["arguments"]
    dropped = [k for k in sent if k not in args]
    # every argument kept but one or two filters; a requirement (min_size) and the words stay
    assert 1 <= len(dropped) <= 2 and set(dropped) <= set(loose)
    assert {k: v for k, v in args.items()} == {
        k: v for k, v in _wire(sent).items() if k not in dropped
    }
    assert _count({k: v for k, v in sent.items() if k not in dropped}) == best
    again = await contract.call("search_items", args)
    assert again.structured["results"]  # it finds rows
    for name in dropped:
        warned = [w for w in out.structured["warnings"] if w.get("path") == name]
        assert warned and warned[0]["code"] == "no_hits_filtered"
    assert len(RUNS) <= 1 + len(loose) + len(loose) * (len(loose) - 1) // 2 + 1 + len(dropped)


async def test_a_write_is_never_run_again() -> None:
    RUNS.clear()
    out = await contract.call("tag_items", {"owner": "ann", "label": "x"})
    assert not out.is_error and len(RUNS) == 1 and "next_call" not in out.structured


async def test_a_requirement_alone_leaves_the_page_as_it_is() -> None:
    ROWS[:] = [
        {
            "item_id": "it_0",
            "owner": "ann",
            "color": "red",
            "label": "alpha",
            "day": dt.date(2026, 1, 2),
            "size": 2,
        }
    ]
    out = await contract.call("search_items", {"owner": "ann", "min_size": 5})
    assert out.structured["results"] == [] and "next_call" not in out.structured
