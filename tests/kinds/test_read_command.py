"""`drivable read`: what it prints for a value, and how it refuses what it cannot read."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drivable.cli import app

RUNNER = CliRunner()


def test_a_reading_is_printed_as_the_pinned_json() -> None:
    out = RUNNER.invoke(app, ["read", "integer", "4 000"])
    assert out.exit_code == 0
    reading = json.loads(out.stdout)
    assert reading["outcome"] == "value" and reading["value"] == 4000


@settings(max_examples=20, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=12))
def test_an_unknown_kind_is_refused_with_the_commands_prefix_and_the_kinds_it_has(
    name: str,
) -> None:
    out = RUNNER.invoke(app, ["read", f"no{name}", "5"])
    if out.exit_code == 0:  # a property name that binds a kind is read, not refused
        return
    assert out.exit_code == 2
    assert out.stderr.startswith("drivable read: ")
    assert "number" in out.stderr and "date" in out.stderr
    assert "Traceback" not in out.stderr
