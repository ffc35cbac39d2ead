"""Load on loopback and faults during it, against real served processes and real stores."""

from __future__ import annotations

import math
from pathlib import Path

import anyio
import pytest

from drivable.reliability import faults
from drivable.reliability.campaign import FULL, SHORT, load_server
from drivable.reliability.processes import PostgresUnavailable
from tests.reliability.reliability_support import ensure_postgres_binaries

BOUND_S = 300.0


def _assert_load(data: dict[str, object]) -> None:
    assert data["failures"] == 0, data["failure_kinds"]
    assert isinstance(data["calls"], int) and data["calls"] > 0
    for key in ("p50_ms", "p95_ms", "p99_ms"):
        value = data[key]
        assert isinstance(value, float) and math.isfinite(value) and value > 0
    assert data["p50_ms"] <= data["p95_ms"] <= data["p99_ms"]  # type: ignore[operator]
    assert data["memory_flat"], (data["memory_start_mb"], data["memory_end_mb"])


async def test_short_load_has_no_failed_call_and_flat_memory(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        data = await load_server(
            "caselaw", SHORT.load_clients, SHORT.load_seconds, SHORT.load_workers, tmp_path
        )
    _assert_load(data)
    assert data["workers"] == 2


@pytest.mark.slow
async def test_sixty_four_clients_for_sixty_seconds_on_two_workers(tmp_path: Path) -> None:
    with anyio.fail_after(FULL.load_seconds + BOUND_S):
        data = await load_server(
            "caselaw", FULL.load_clients, FULL.load_seconds, FULL.load_workers, tmp_path
        )
    _assert_load(data)


async def test_postgresql_restart_fails_temporary_then_recovers_without_duplicates(
    tmp_path: Path,
) -> None:
    ensure_postgres_binaries()
    try:
        with anyio.fail_after(BOUND_S):
            report = await faults.postgres_restart(tmp_path, clients=8, seconds=6.0)
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL is needed: {exc}")
    assert report.temporary_errors > 0, report
    assert report.temporary_without_retry_after == 0
    assert not report.other_errors, report.other_errors
    assert report.recovered_after_s is not None
    assert report.duplicates == 0 and report.lost == 0
    assert report.passed


async def test_a_killed_worker_is_survived(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        report = await faults.worker_kill(tmp_path, clients=8, seconds=6.0)
    assert report.passed, report.detail
    assert report.ok > 0


@pytest.mark.parametrize("fault", [faults.sqlite_full, faults.sqlite_read_only])
async def test_sqlite_full_or_read_only_is_unavailable_and_intact(
    fault: object, tmp_path: Path
) -> None:
    try:
        with anyio.fail_after(BOUND_S):
            report = await fault(tmp_path)  # type: ignore[operator]
    except PermissionError as exc:
        pytest.skip(str(exc))
    assert report.temporary_errors > 0
    assert not report.other_errors, report.other_errors
    assert report.integrity == "ok"
    assert report.passed, report.to_dict()
