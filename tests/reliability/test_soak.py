"""The soak: memory per 1,000 calls after warm-up stays under 1 MB in every way a client speaks
(the SDK client in legacy and auto mode, raw requests of both eras, listen and task streams),
over HTTP on 1 and 2 workers and over stdio. The slow tier runs every leg at the full tier's
size; the short tier one handshake-era leg (the era whose every HTTP request leaked a session)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from drivable.reliability.campaign import FULL, SHORT
from drivable.reliability.soak import FLAT_MB_PER_1000, SoakLeg, legs, soak, soak_leg

BOUND_S = 3600.0


async def test_a_handshake_era_http_leg_stays_flat(tmp_path: Path) -> None:
    leg = SoakLeg("http", 1, "raw-2025-11-25")
    with anyio.fail_after(600):
        result = await soak_leg(leg, tmp_path, warmup=SHORT.soak_warmup, calls=SHORT.soak_calls)
    row = result.to_dict()
    assert not row["error"] and row["failures"] == 0, row
    assert row["calls"] == SHORT.soak_warmup + SHORT.soak_calls
    assert row["growth_mb_per_1000"] < FLAT_MB_PER_1000, row


def test_the_legs_cover_both_eras_both_transports_and_the_streams() -> None:
    chosen = legs()
    assert {(leg.transport, leg.workers) for leg in chosen} == {
        ("http", 1),
        ("http", 2),
        ("stdio", 1),
    }
    for transport, workers in (("http", 1), ("http", 2)):
        clients = {
            leg.client for leg in chosen if (leg.transport, leg.workers) == (transport, workers)
        }
        assert clients == {
            "sdk-legacy",
            "sdk-auto",
            "raw-2025-11-25",
            "raw-2026-07-28",
            "listen",
            "task",
        }
    assert {leg.client for leg in chosen if leg.transport == "stdio"} >= {"sdk-legacy", "sdk-auto"}


@pytest.mark.slow
async def test_every_leg_grows_less_than_one_mb_per_thousand_calls(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        rows = await soak(tmp_path, warmup=FULL.soak_warmup, calls=FULL.soak_calls)
    broken = [r for r in rows if not r["flat"] or r["failures"]]
    assert not broken, broken
