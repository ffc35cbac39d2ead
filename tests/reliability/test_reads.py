"""Reads under writes: billing on one SQLite worker, 64 clients of which 8 write; a read's p95
stays within 3x its p50 (the slow tier), and no call fails (both tiers)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from drivable.reliability.campaign import FULL, READ_TAIL_RATIO, reads_under_writes


async def test_reads_and_writes_together_fail_nothing(tmp_path: Path) -> None:
    with anyio.fail_after(600):
        row = await reads_under_writes(tmp_path, clients=16, writers=4, seconds=6.0)
    assert row["failures"] == 0, row["failure_kinds"]
    assert row["reads"] > 0 and row["writes"] > 0, row


@pytest.mark.slow
async def test_a_reads_tail_stays_near_its_median_under_writes(tmp_path: Path) -> None:
    with anyio.fail_after(FULL.reads_seconds + 600):
        row = await reads_under_writes(tmp_path, seconds=FULL.reads_seconds)
    assert row["failures"] == 0, row["failure_kinds"]
    assert row["p95_over_p50"] <= READ_TAIL_RATIO, row
