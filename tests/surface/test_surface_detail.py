"""A tool published whole in server/discover beside an abridged listing: the diff reads the whole.

docs/decisions/0041-a-field-the-detail-describes.md. The compact listing of `drivable.contract.listing`
spells a result's objects one level deep and drops prose; the detail still describes every field.
An upgrade to it breaks nothing an agent relied on, and a field the results really lost is still
breaking, whichever side has the detail.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.contract.listing import listed_input_schema, listed_output_schema
from drivable.surface import fingerprint, snapshot
from drivable.surface.diff import diff
from tests.surface.surface_helpers import take
from tests.surface.test_surface_properties import FAST, objects, surface, tools

NS = "dev.drivable"


def compact(ts: list[dict[str, Any]]) -> dict[str, Any]:
    """The surface of `ts` listed compact, with every tool whole in server/discover's detail."""
    listed = []
    for t in ts:
        item = dict(t, inputSchema=listed_input_schema(t["inputSchema"], frozenset()))
        if "outputSchema" in t:
            item["outputSchema"] = listed_output_schema(t["outputSchema"])
        listed.append(item)
    detail = {
        t["name"]: {
            "description": t["description"],
            "inputSchema": t["inputSchema"],
            **({"outputSchema": t["outputSchema"]} if "outputSchema" in t else {}),
        }
        for t in ts
    }
    return snapshot.canonical(
        {
            "server": {"name": "gen", "version": "1"},
            "discover": {"_meta": {f"{NS}/tools": detail}},
            "tools": listed,
        }
    )


def nested_outputs() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Tools whose first one returns an object holding an object with at least one field."""
    inner = objects(0).filter(lambda o: bool(o["properties"]))
    return st.tuples(tools(), inner).map(
        lambda pair: [
            dict(
                pair[0][0],
                outputSchema={
                    "type": "object",
                    "properties": {"record": pair[1]},
                    "required": ["record"],
                },
            ),
            *pair[0][1:],
        ]
    )


def without_first_field(ts: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """`ts` with the first field of the first tool's `record` gone; the path the diff names."""
    new = copy.deepcopy(ts)
    record = new[0]["outputSchema"]["properties"]["record"]
    field = next(iter(record["properties"]))
    del record["properties"][field]
    record["required"] = [r for r in record["required"] if r != field]
    return new, f"tools.{ts[0]['name']}.outputSchema.record.{field}"


@FAST
@given(tools())
def test_an_upgrade_to_the_compact_listing_breaks_nothing(ts: list[dict[str, Any]]) -> None:
    changes = diff(surface(ts), compact(ts))
    assert [c for c in changes if c.klass == "breaking"] == []
    # what changed is an agent's first view: at most one routing change per schema and tool
    for c in changes:
        assert c.klass == "routing", c
        assert c.path.rsplit(".", 1)[-1] in ("inputSchema", "outputSchema"), c
        assert "server/discover" in c.summary
    assert len({c.path for c in changes}) == len(changes)
    assert diff(compact(ts), compact(ts)) == []


@FAST
@given(nested_outputs())
def test_the_listing_abridged_a_nested_field_the_detail_keeps(ts: list[dict[str, Any]]) -> None:
    old, new = surface(ts), compact(ts)
    name = ts[0]["name"]
    # the listing no longer spells `record`'s fields, so a diff of the listings alone breaks
    listings_only = copy.deepcopy(new)
    for t in listings_only["tools"]:
        del t["detail"]
    assert any(c.klass == "breaking" for c in diff(old, listings_only))
    changes = diff(old, new)
    assert [c for c in changes if c.klass == "breaking"] == []
    assert any(c.path == f"tools.{name}.outputSchema" for c in changes)


@FAST
@given(nested_outputs(), st.booleans())
def test_a_field_the_results_lost_is_breaking_with_or_without_an_old_detail(
    ts: list[dict[str, Any]], old_detailed: bool
) -> None:
    lost, path = without_first_field(ts)
    old = compact(ts) if old_detailed else surface(ts)
    changes = diff(old, compact(lost))
    assert ("breaking", path) in {(c.klass, c.path) for c in changes}, changes


@FAST
@given(tools())
def test_the_detail_does_not_move_the_fingerprint(ts: list[dict[str, Any]]) -> None:
    detailed = compact(ts)
    assert all("detail" in t for t in detailed["tools"])
    bare = copy.deepcopy(detailed)
    for t in bare["tools"]:
        del t["detail"]
    assert fingerprint.compute(bare) == fingerprint.compute(detailed)
    assume(any("outputSchema" in t for t in ts))
    changed = copy.deepcopy(detailed)
    for t in changed["tools"]:
        t["detail"]["description"] = "another whole description"
    assert fingerprint.compute(changed) == fingerprint.compute(detailed)


def test_a_drivable_servers_tools_are_the_same_in_both_eras_but_for_their_detail() -> None:
    cmd = [sys.executable, "-m", "drivable", "serve", "caselaw"]
    modern, legacy = take(cmd), take(cmd, mode="legacy")
    assert all(isinstance(t.get("detail"), dict) for t in modern["tools"])
    assert all("detail" not in t for t in legacy["tools"])
    # a snapshot of one server in the two eras: no tool changed, the detail or not
    assert [c for c in diff(legacy, modern) if c.subject.startswith("tool:")] == []
    assert [c for c in diff(modern, legacy) if c.subject.startswith("tool:")] == []
    for t in modern["tools"]:
        del t["detail"]
    assert modern["tools"] == legacy["tools"]
