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


def test_the_time_kinds_and_their_options_from_the_command_line() -> None:
    def run(*args: str) -> dict[str, object]:
        out = RUNNER.invoke(app, ["read", *args])
        assert out.exit_code == 0, out.stderr
        reading: dict[str, object] = json.loads(out.stdout)
        return reading

    assert run("time", "2pm")["value"] == "14:00"
    assert (
        run("start_time", "21:00", "--minimum", "08:00", "--maximum", "20:00")["outcome"]
        == "invalid"
    )
    assert run("time_range", "from 9 to 5")["readings"] == ["09:00/17:00"]
    assert run("email", "Jana <jana@FIRMA.cz>")["value"] == "jana@firma.cz"
    assert run("datetime", "2026-10-01 14:00")["outcome"] == "ask"
    assert run("starts_at", "2026-10-01 14:00", "--zone", "Europe/Prague")["value"] == (
        "2026-10-01T14:00:00+02:00"
    )
    tomorrow = run(
        "datetime", "tomorrow at 9", "--now", "2026-12-02T10:00:00+01:00", "--zone", "Europe/Prague"
    )
    assert tomorrow["value"] == "2026-12-03T09:00:00+01:00"
    assert run("integer", "4000", "--maximum", "50")["outcome"] == "invalid"  # numbers stay numbers
    refused = RUNNER.invoke(app, ["read", "datetime", "tomorrow", "--now", "soon"])
    assert refused.exit_code == 2 and "Traceback" not in refused.stderr
