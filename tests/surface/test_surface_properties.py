"""Properties over generated surfaces: no change means no entry, one change means its one class."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from drivable.surface import fingerprint, snapshot
from drivable.surface.diff import CLASSES, diff

NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
TEXT = st.text(max_size=30)


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    scalar = st.one_of(
        st.builds(
            lambda enum, fmt, desc: {
                "type": "string",
                **({"enum": enum} if enum else {}),
                **({"format": fmt} if fmt else {}),
                **({"description": desc} if desc else {}),
            },
            st.lists(NAMES, max_size=4, unique=True),
            st.sampled_from([None, "date", "uuid", "email"]),
            st.one_of(st.none(), TEXT),
        ),
        st.builds(
            lambda t, lo, hi: {
                "type": t,
                **({"minimum": lo} if lo is not None else {}),
                **({"maximum": hi} if hi is not None else {}),
            },
            st.sampled_from(["integer", "number"]),
            st.one_of(st.none(), st.integers(-5, 5)),
            st.one_of(st.none(), st.integers(6, 100)),
        ),
        st.just({"type": "boolean"}),
        st.just({"anyOf": [{"type": "string"}, {"type": "null"}]}),
    )
    if depth == 0:
        return scalar
    return st.one_of(
        scalar,
        st.builds(lambda items: {"type": "array", "items": items}, schemas(depth - 1)),
        objects(depth - 1),
    )


def objects(depth: int = 1) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(NAMES, schemas(depth), max_size=4).flatmap(
        lambda props: st.builds(
            lambda req: {"type": "object", "properties": props, "required": req},
            st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
        )
    )


def tools() -> st.SearchStrategy[list[dict[str, Any]]]:
    one = st.builds(
        lambda inp, out, desc, ro, title: {
            "inputSchema": inp,
            **({"outputSchema": out} if out else {}),
            "description": desc,
            "annotations": {"readOnlyHint": ro},
            **({"title": title} if title else {}),
        },
        objects(),
        st.one_of(st.none(), objects()),
        TEXT,
        st.booleans(),
        st.one_of(st.none(), TEXT),
    )
    return st.dictionaries(NAMES, one, min_size=1, max_size=5).map(
        lambda d: [{"name": name, **body} for name, body in d.items()]
    )


def surface(ts: list[dict[str, Any]]) -> dict[str, Any]:
    return snapshot.canonical({"server": {"name": "gen", "version": "1"}, "tools": ts})


FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(tools())
def test_no_change_no_entry(ts: list[dict[str, Any]]) -> None:
    s = surface(ts)
    assert diff(s, copy.deepcopy(s)) == []
    # the same surface through a file is the same bytes and the same fingerprint
    again = json.loads(snapshot.dumps(s))
    assert snapshot.dumps(again) == snapshot.dumps(s)
    assert fingerprint.compute(again) == fingerprint.compute(s)


@FAST
@given(tools(), tools())
def test_any_pair_diffs_deterministically(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    first = diff(surface(a), surface(b))
    assert first == diff(surface(a), surface(b))
    assert all(c.klass in CLASSES for c in first)
    assert first == sorted(first, key=lambda c: c.sort_key())
    if surface(a)["fingerprint"] == surface(b)["fingerprint"]:
        assert first == []


@FAST
@given(tools())
def test_reordering_is_cosmetic_only(ts: list[dict[str, Any]]) -> None:
    changes = diff(surface(ts), surface(list(reversed(ts))))
    assert all(c.klass == "cosmetic" and c.path == "tools.order" for c in changes)


MUTATIONS = {
    "remove": "breaking",
    "add_tool": "additive",
    "describe": "routing",
    "add_required": "breaking",
    "add_optional": "additive",
    "less_safe": "breaking",
    "safer": "additive",
    "retitle_schema": "cosmetic",
    "rename_tool": "breaking",
    "rename_input": "breaking",
}


def mutate(ts: list[dict[str, Any]], kind: str, i: int) -> tuple[list[dict[str, Any]], str, str]:
    """Apply one mutation to tool i; return the new tools, the subject and the path expected."""
    new = copy.deepcopy(ts)
    t = new[i]
    name = t["name"]
    base = f"tools.{name}"
    props = t["inputSchema"]["properties"]
    fresh = "zz_" + "x" * (1 + max(len(p) for p in props)) if props else "zz_new"
    if kind == "remove":
        del new[i]
        return new, f"tool:{name}", base
    if kind == "add_tool":
        new.append(
            {"name": "zz_" + "y" * 20, "description": "new", "inputSchema": {"type": "object"}}
        )
        return new, "tool:zz_" + "y" * 20, "tools.zz_" + "y" * 20
    if kind == "describe":
        t["description"] = t["description"] + " (changed)"
        return new, f"tool:{name}", f"{base}.description"
    if kind in ("add_required", "add_optional"):
        props[fresh] = {"type": "string", "pattern": "^q+$"}
        if kind == "add_required":
            t["inputSchema"]["required"] = [*t["inputSchema"]["required"], fresh]
        return new, f"tool:{name}", f"{base}.inputSchema.{fresh}"
    if kind == "less_safe":
        ts[i]["annotations"]["readOnlyHint"] = True
        t["annotations"]["readOnlyHint"] = False
        return new, f"tool:{name}", f"{base}.annotations.readOnlyHint"
    if kind == "safer":
        ts[i]["annotations"]["readOnlyHint"] = False
        t["annotations"]["readOnlyHint"] = True
        return new, f"tool:{name}", f"{base}.annotations.readOnlyHint"
    if kind == "rename_tool":
        t["name"] = name.upper()
        return new, f"tool:{name}", base
    if kind == "rename_input":
        first = next(iter(props))
        props[first.upper()] = props.pop(first)
        t["inputSchema"]["required"] = [
            first.upper() if r == first else r for r in t["inputSchema"]["required"]
        ]
        return new, f"tool:{name}", f"{base}.inputSchema.{first}"
    t["inputSchema"]["title"] = "Renamed schema title"
    return new, f"tool:{name}", f"{base}.inputSchema.title"


@FAST
@given(tools(), st.sampled_from(sorted(MUTATIONS)), st.integers(0, 4))
def test_one_mutation_one_classified_entry(ts: list[dict[str, Any]], kind: str, i: int) -> None:
    i %= len(ts)
    props = ts[i]["inputSchema"]["properties"]
    assume(kind != "rename_tool" or ts[i]["name"].upper() != ts[i]["name"])
    assume(kind != "rename_input" or (props and next(iter(props)).upper() != next(iter(props))))
    new, subject, path = mutate(ts, kind, i)
    changes = [c for c in diff(surface(ts), surface(new)) if c.path != "tools.order"]
    assert [(c.klass, c.subject, c.path) for c in changes] == [(MUTATIONS[kind], subject, path)]
