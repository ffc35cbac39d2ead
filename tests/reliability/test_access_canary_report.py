"""Access over HTTP, the canary in a fresh process, and the report the command writes."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import anyio

from drivable.reliability import probe
from drivable.reliability.access import access_matrix
from drivable.reliability.processes import PROBE_TARGET, PROBE_VERIFIER, serve, stop
from drivable.reliability.report import render

BOUND_S = 300.0


async def test_access_matrix_refuses_with_distinct_codes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'probe.sqlite'}"
    probe.prepare_store(url)
    served = serve(
        PROBE_TARGET,
        tmp_path,
        verifier=PROBE_VERIFIER,
        env={probe.STORE_ENV: url},
        ready_token=probe.ALICE_TOKEN,
    )
    try:
        with anyio.fail_after(BOUND_S):
            cases = await access_matrix(served, f"t{uuid.uuid4().hex[:6]}")
    finally:
        stop(served)
    failed = [c for c in cases if not c.passed]
    assert not failed, failed
    observed = {c.case: c.observed for c in cases}
    assert observed["no token"] != observed["wrong token"]
    assert len(cases) >= 10


def test_canary_never_reaches_logs_spans_or_metrics(tmp_path: Path) -> None:
    out = tmp_path / "canary.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "drivable.reliability.command",
            "canary",
            "--calls",
            "60",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        check=False,
    )
    assert out.exists(), done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["telemetry_checked"]
    assert data["calls"] >= 100 and data["spans"] > 0 and data["metric_points"] > 0
    assert data["in_logs"] == data["in_spans"] == data["in_metrics"] == 0, data["excerpts"]
    assert done.returncode == 0


def test_the_report_shows_the_figures() -> None:
    fuzz = {
        "server": "caselaw",
        "tools": ["a"],
        "calls": 10_000,
        "generated": 4900,
        "hostile": 4900,
        "raw": 200,
        "accepted": 1,
        "rejected": 2,
        "transport_refusals": 3,
        "codes": {"x": 1},
        "internal_errors": 0,
        "leaks": 0,
        "unnamed_fields": 0,
        "malformed_envelopes": 0,
        "no_answer": 0,
        "liveness_checks": 41,
        "liveness_failures": 0,
        "seconds": 12.5,
    }
    load = {
        "server": "caselaw",
        "clients": 64,
        "workers": 2,
        "seconds": 60.0,
        "calls": 5000,
        "calls_per_s": 83.3,
        "failures": 0,
        "p50_ms": 11.0,
        "p95_ms": 22.0,
        "p99_ms": 33.0,
        "max_ms": 44.0,
        "memory_start_mb": 100.0,
        "memory_end_mb": 101.0,
        "memory_peak_mb": 102.0,
        "memory_flat": True,
    }
    page = render(
        {
            "tier": "full",
            "started": "now",
            "seconds": 1.0,
            "environment": {"cpus": 2, "python": "3"},
            "passed": True,
            "fuzz": [fuzz],
            "load": [load],
            "faults": [],
            "access": [],
            "soak": [
                {
                    "leg": "raw-2025-11-25, HTTP, 2 workers",
                    "calls": 1800,
                    "warmup": 300,
                    "failures": 0,
                    "seconds": 9.0,
                    "memory_after_warmup_mb": 255.2,
                    "memory_end_mb": 255.3,
                    "growth_mb_per_1000": 0.049,
                    "flat": True,
                    "error": "",
                }
            ],
            "reads": [
                {
                    "server": "billing",
                    "store": "sqlite",
                    "workers": 1,
                    "clients": 64,
                    "writers": 8,
                    "seconds": 60.7,
                    "reads": 3636,
                    "writes": 273,
                    "failures": 0,
                    "read_p50_ms": 830.4,
                    "read_p95_ms": 1496.2,
                    "read_p99_ms": 2450.4,
                    "p95_over_p50": 1.8,
                    "passed": True,
                }
            ],
            "canary": {
                "calls": 5,
                "canary": "C",
                "log_records": 1,
                "spans": 2,
                "metric_points": 3,
                "in_logs": 0,
                "in_spans": 0,
                "in_metrics": 0,
                "passed": True,
            },
        }
    )
    assert "| caselaw | 10,000 |" in page
    assert (
        "| raw-2025-11-25, HTTP, 2 workers | 1,800 (300) | 0 | 9.0 | 255.2 | 255.3 | 0.049 | pass |"
        in page
    )
    assert (
        "| billing | sqlite | 1 | 64 (8) | 60.7 | 3,636 | 273 | 0 | 830.4 | 1496.2 | 2450.4 | 1.8 | pass |"
        in page
    )
    assert "| 11.0 | 22.0 | 33.0 |" in page
    assert "**Overall: pass.**" in page
    # per-leg rows, and a section a partial run did not measure says so instead of a table
    legged = {**fuzz, "legs": [{**fuzz, "leg": "postgresql, 2025-11-25, http", "canary_in_log": 0}]}
    partial = render(
        {
            "tier": "full",
            "command": "drivable reliability fuzz billing",
            "started": "now",
            "seconds": 1.0,
            "environment": {"cpus": 2, "python": "3"},
            "passed": True,
            "fuzz": [legged],
            "load": [],
            "faults": [],
            "access": [],
            "canary": {"error": "not run"},
            "not_run": {"Load": "the fuzz-only campaign"},
        }
    )
    assert "| caselaw (postgresql, 2025-11-25, http) | 10,000 |" in partial
    assert "## Load\n\nNot measured in this run: the fuzz-only campaign\n\n## Reads" in partial
    assert "Generated by `drivable reliability fuzz billing`" in partial


def test_an_unknown_tier_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "drivable.reliability.command", "run", "--tier", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2


def test_render_regenerates_the_page_from_results(tmp_path: Path) -> None:
    results = {
        "tier": "short",
        "started": "then",
        "seconds": 2.0,
        "environment": {"cpus": 2, "python": "3"},
        "passed": False,
        "fuzz": [],
        "load": [],
        "faults": [],
        "access": [],
        "canary": {"error": "x"},
    }
    source = tmp_path / "results.json"
    source.write_text(json.dumps(results))
    page = tmp_path / "page.md"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "drivable.reliability.command",
            "render",
            "--json",
            str(source),
            "--out",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "**Overall: FAIL.**" in page.read_text()
