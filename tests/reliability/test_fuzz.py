"""Fuzzing over the wire: schema-generated and hostile calls keep every promise of the envelope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import jsonschema
import pytest

from drivable.reliability.campaign import PROFILES, fuzz_server, reference_servers
from drivable.reliability.checks import check_result, leaks
from drivable.reliability.fuzz import fuzz, with_canary
from drivable.reliability.processes import Served, stop
from drivable.reliability.schema import draw_many, hostile_arguments, strategy_for
from drivable.target import Target
from tests.contract import example_server
from tests.reliability.reliability_support import (
    EXAMPLE_LIVENESS,
    EXAMPLE_SLOW_OR_PLANTED,
    EXAMPLE_TOKEN,
    SHORT_FUZZ_CALLS,
    SLOW_FUZZ_CALLS,
    assert_clean,
    serve_example,
)

BOUND_S = 300.0


def test_generated_arguments_fit_the_advertised_schemas() -> None:
    for name, spec in example_server.contract.tools.items():
        validator = jsonschema.Draft202012Validator(spec.input_schema)
        for args in draw_many(strategy_for(spec.input_schema), 60, seed=3):
            errors = list(validator.iter_errors(args))
            assert not errors, (name, args, errors[0].message)


def test_hostile_arguments_are_varied_and_mostly_off_schema() -> None:
    schema = example_server.contract.tools["search_notes"].input_schema
    drawn = draw_many(hostile_arguments(schema), 200, seed=4)
    validator = jsonschema.Draft202012Validator(schema)
    off = sum(1 for a in drawn if not validator.is_valid(a))
    assert off > 120  # most (over 60 %) fall outside the schema
    assert len({repr(a)[:200] for a in drawn}) > 150


def test_the_checks_catch_planted_leaks_and_internal_errors() -> None:
    envelope = {
        "code": "internal_error",
        "message": 'Traceback (most recent call last):\n  File "/srv/app/db.py", line 3',
        "hint": "sqlite3.OperationalError: no such table: notes",
        "issues": [],
        "temporary": True,
        "retry_after_ms": 1000,
        "request_id": "r1",
    }
    kinds = {f.kind for f in check_result("t", {}, envelope, [], True)}
    assert kinds == {"internal_error", "leak"}
    unnamed = {**envelope, "code": "invalid_arguments", "message": "bad", "hint": "fix it"}
    assert {f.kind for f in check_result("t", {}, unnamed, [], True)} == {"unnamed_field"}
    # What the caller sent and the server echoes back is not a leak.
    assert leaks("received '../../x.py' and KeyError", ["../../x.py", "KeyError"]) == []
    assert leaks("psycopg.errors.UndefinedTable at /home/app", []) != []


def test_the_canary_reaches_every_string() -> None:
    out = with_canary({"a": "x", "b": [1, {"c": "y"}], "d": True}, "CAN")
    assert out == {"a": "xCAN", "b": [1, {"c": "yCAN"}], "d": True}
    assert with_canary({"n": 1}, "CAN") == {"n": 1, "note": "CAN"}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = serve_example(tmp_path_factory.mktemp("example"))
    try:
        yield served
    finally:
        stop(served)


async def test_example_server_keeps_every_promise_under_fuzzing(example: Served) -> None:
    with anyio.fail_after(BOUND_S):
        report = await fuzz(
            Target(url=example.url, bearer_token=EXAMPLE_TOKEN),
            server="example",
            calls=SHORT_FUZZ_CALLS,
            liveness=EXAMPLE_LIVENESS,
            exclude=EXAMPLE_SLOW_OR_PLANTED,
        )
    data = report.to_dict()
    assert_clean(data)
    assert data["raw"] > 0 and data["hostile"] > 0 and data["generated"] > 0
    assert data["accepted"] > 0 and data["rejected"] > 0
    assert data["codes"].get("HTTP 413 / payload_too_large", 0) > 0


async def test_the_fuzzer_sees_a_planted_internal_error(example: Served) -> None:
    """The control: check_failure raises on purpose, so the checker must count internal errors
    (and no leak: the runtime keeps the exception's text, a database path, to itself)."""
    others = tuple(n for n in example_server.contract.tools if n != "check_failure")
    with anyio.fail_after(BOUND_S):
        report = await fuzz(
            Target(url=example.url, bearer_token=EXAMPLE_TOKEN),
            server="example",
            calls=60,
            liveness=EXAMPLE_LIVENESS,
            exclude=(*others, "count_slowly", "archive_note", "list_count_events"),
        )
    assert report.tools == ["check_failure"]
    assert report.internal_errors > 0
    assert report.leaks == 0


@pytest.mark.parametrize("name", [*[s for s in reference_servers() if s in PROFILES], "probe"])
async def test_server_keeps_every_promise_under_fuzzing(name: str, tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        data = await fuzz_server(name, SHORT_FUZZ_CALLS, tmp_path)
    assert_clean(data)
    assert data["calls"] >= SHORT_FUZZ_CALLS


@pytest.mark.slow
@pytest.mark.parametrize("name", [*[s for s in reference_servers() if s in PROFILES], "probe"])
async def test_server_keeps_every_promise_under_ten_thousand_calls(
    name: str, tmp_path: Path
) -> None:
    with anyio.fail_after(3600):
        data = await fuzz_server(name, SLOW_FUZZ_CALLS, tmp_path)
    assert_clean(data)
    assert data["calls"] >= SLOW_FUZZ_CALLS


def test_every_reference_server_has_a_profile() -> None:
    missing = [s for s in reference_servers() if s not in PROFILES]
    assert not missing, (
        f"add a reliability profile for {missing} in reliability/profiles.py (PROFILES)"
    )
