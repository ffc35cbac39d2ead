"""Every class of change, on a pair of real servers over stdio and on the same specs offline."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from drivable.surface.diff import diff
from drivable.surface.snapshot import canonical
from tests.surface.surface_cases import CASES, collected_from_spec, expected, specs
from tests.surface.surface_helpers import take


def _by_subject(changes: list[Any]) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for c in changes:
        out[c.subject].append((c.klass, c.subject, c.path))
    return out


def _check(changes: list[Any]) -> None:
    got = _by_subject(changes)
    want: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for entry in expected():
        want[entry[1]].append(entry)
    for subject in sorted(set(want) | {f"tool:{c.id}" for c in CASES}):
        if subject == "server":
            # the server subject also gets an order note when tools come and go
            assert set(want[subject]) <= set(got[subject]), subject
            continue
        assert sorted(got.get(subject, [])) == sorted(want.get(subject, [])), subject


@pytest.fixture(scope="module")
def live_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    import json
    import tempfile
    from pathlib import Path

    from tests.surface.surface_helpers import server_cmd

    v1, v2 = specs()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, spec in (("v1", v1), ("v2", v2)):
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(spec))
            paths.append(path)
        old = take(server_cmd("spec_server.py", str(paths[0])))
        new = take(server_cmd("spec_server.py", str(paths[1])))
    return old, new


def test_every_class_over_stdio(live_pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    old, new = live_pair
    _check(diff(old, new))


def test_every_class_offline() -> None:
    v1, v2 = specs()
    _check(diff(canonical(collected_from_spec(v1)), canonical(collected_from_spec(v2))))


def test_offline_equals_live(live_pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    v1, v2 = specs()
    assert canonical(collected_from_spec(v1)) == live_pair[0]
    assert canonical(collected_from_spec(v2)) == live_pair[1]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_case_alone(case: Any) -> None:
    """Each change on its own, in a server that has nothing else: exactly the expected entries."""
    old = canonical({"server": {"name": "s", "version": "1"}, "tools": case.v1_tools})
    new = canonical({"server": {"name": "s", "version": "1"}, "tools": case.v2_tools})
    got = sorted((c.klass, c.subject, c.path) for c in diff(old, new) if c.subject != "server")
    assert got == sorted(case.expected)
    assert any(c.klass == case.klass for c in diff(old, new)) or not case.expected


def test_each_class_is_covered() -> None:
    classes = {k for c in CASES for k, _, _ in c.expected}
    assert classes == {"breaking", "routing", "additive", "cosmetic"}


def test_rename_is_one_entry() -> None:
    case = next(c for c in CASES if c.id == "lookup_order")
    old = canonical({"tools": case.v1_tools})
    new = canonical({"tools": case.v2_tools})
    changes = diff(old, new)
    assert [(c.klass, c.subject) for c in changes if c.subject.startswith("tool:")] == [
        ("breaking", "tool:lookup_order")
    ]
    assert "renamed to `lookupOrder`" in changes[0].summary
