"""Shared helpers of the reliability tests (a uniquely named module: several folders have a conftest).

The example server is `tests/serve/serve_app.py` (the example's tools, a scoped tool and a slow
counter), served by `drivable serve` with its static verifier, as the serve tests do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivable.reliability.processes import Served, serve

ROOT = Path(__file__).resolve().parents[2]
SERVE_DIR = ROOT / "tests" / "serve"
EXAMPLE_TARGET = "serve_app:contract"
EXAMPLE_VERIFIER = "serve_app:verifier"
EXAMPLE_TOKEN = "writer-token-0123456789"
EXAMPLE_LIVENESS: tuple[str, dict[str, Any]] = ("search_notes", {"query": "note"})
# count_slowly sleeps up to 1000 x 60 s by design; check_failure fails on purpose (the control).
EXAMPLE_SLOW_OR_PLANTED = ("count_slowly", "check_failure")
SHORT_FUZZ_CALLS = 300
SLOW_FUZZ_CALLS = 10_000


def serve_example(work: Path) -> Served:
    return serve(
        EXAMPLE_TARGET,
        work,
        verifier=EXAMPLE_VERIFIER,
        pythonpath=[str(SERVE_DIR), str(ROOT)],
        ready_token=EXAMPLE_TOKEN,
    )


def assert_clean(report: dict[str, Any]) -> None:
    """Every promise of a fuzz report kept (the findings are in the message when not)."""
    broken = {
        k: report[k]
        for k in (
            "internal_errors",
            "leaks",
            "unnamed_fields",
            "malformed_envelopes",
            "no_answer",
            "liveness_failures",
            "canary_in_log",
        )
        if report.get(k)
    }
    assert not broken, (broken, report["findings"][:10])
    assert report["calls"] > 0
    assert report["liveness_checks"] >= 1


def ensure_postgres_binaries() -> None:
    """Install PostgreSQL the way the effects tests do (scripts/ensure-postgres.sh) when absent;
    the fault campaign then starts its own private server with those binaries."""
    import subprocess

    if sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres")):
        return
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure-postgres.sh")],
        capture_output=True,
        timeout=900,
        check=False,
    )
