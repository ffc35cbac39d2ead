"""Runs of one side-by-side made in parallel processes join into one run document."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.sidebyside import markdown, merge

SETS = ("example", "caselaw", "billing")
SIDES = ("naive", "drivable")


def _part(cells: list[tuple[str, str]], wall: float, trials: int) -> dict[str, Any]:
    sets: dict[str, dict[str, Any]] = {}
    for name, side in cells:
        sets.setdefault(name, {})[side] = {"label": f"{name}/{side}"}
    return {
        "started": f"2026-12-01 13:{int(wall) % 60:02d} UTC",
        "model": "m",
        "threads": 1,
        "trials": trials,
        "seed": 0,
        "wall_seconds": wall,
        "partial": None,
        "sets": sets,
    }


@given(
    st.lists(st.sampled_from([(n, s) for n in SETS for s in SIDES]), min_size=1, unique=True),
    st.data(),
)
def test_disjoint_parts_keep_every_cell_and_the_longest_wall(
    cells: list[tuple[str, str]], data: st.DataObject
) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(cells) - 1))) if len(cells) > 1 else [])
    bounds = [0, *cuts, len(cells)]
    walls = data.draw(
        st.lists(st.floats(1, 9000), min_size=len(bounds) - 1, max_size=len(bounds) - 1)
    )
    trials = data.draw(st.lists(st.integers(1, 5), min_size=len(walls), max_size=len(walls)))
    parts = [
        _part(cells[a:b], wall, t)
        for (a, b), wall, t in zip(itertools.pairwise(bounds), walls, trials, strict=True)
    ]
    run = merge(parts)
    assert sorted((n, s) for n, sides in run["sets"].items() for s in sides) == sorted(cells)
    for name, side in cells:
        assert run["sets"][name][side] == {"label": f"{name}/{side}"}
    assert run["wall_seconds"] == max(walls)
    assert run["trials"] == min(trials)
    assert run["processes"] == len(parts)


def test_a_cell_measured_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="measured twice"):
        merge([_part([("example", "naive")], 1, 1), _part([("example", "naive")], 2, 1)])


def test_a_partial_part_makes_the_run_partial() -> None:
    stopped = _part([("billing", "drivable")], 5, 1)
    stopped["partial"] = "stopped by the deadline"
    run = merge([_part([("example", "naive")], 1, 1), stopped])
    assert run["partial"] == "stopped by the deadline"
    assert "partial run" in markdown({**run, "sets": {}})
