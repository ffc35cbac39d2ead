"""The fuzzer covers the hostile classes (NUL, surrogates, overflow, nesting, huge values) in both
eras over raw HTTP, and `drivable reliability fuzz` drives any server: a contract by import path,
a stdio command of any language, a running URL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drivable.reliability.campaign import Leg, legs_of, profile_of
from drivable.reliability.fuzz import MODERN, modern_headers, raw_bodies

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 900


def test_raw_bodies_put_every_class_into_real_properties_in_both_eras() -> None:
    bodies = dict(raw_bodies("update_invoice", ["expected_version", "invoice_id", "memo"]))
    for era in ("2025-11-25", MODERN):
        for what in (
            "lone high surrogate in memo",
            "NUL in invoice_id",
            "integer past 64 bits in expected_version",
            "600 levels in memo",
            "huge text with a surrogate in invoice_id",
        ):
            assert f"{era}: {what}" in bodies, (era, what)
    modern = bodies[f"{MODERN}: lone high surrogate in memo"]
    assert b'"_meta"' in modern and b"\\ud800" in modern
    json.loads(modern)  # JSON, though no UTF-8 encoder could write the value it holds
    headers = modern_headers(modern, {})
    assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "update_invoice"


def test_every_reference_server_is_fuzzed_on_each_store_era_and_transport() -> None:
    legs = legs_of("billing")
    assert {leg.era for leg in legs} == {"auto", "legacy"}
    assert {leg.transport for leg in legs} == {"http", "stdio"}
    if os.environ.get("DRIVABLE_PG") != "skip":
        assert Leg("postgresql", "legacy", "http") in legs
    assert {leg.transport for leg in legs_of("cmd:python server.py")} == {"stdio"}
    assert profile_of("pkg.module:contract").insecure  # loopback only, no verifier to give


def test_any_server_command_and_any_contract_can_be_fuzzed(tmp_path: Path) -> None:
    for target in (
        f"cmd:{sys.executable} tests/contract/example_server.py",
        "tests.serve.serve_app:contract",
    ):
        out = tmp_path / "fuzz.json"
        done = subprocess.run(
            [sys.executable, "-m", "drivable", "reliability", "fuzz", target, "--calls", "80",
             "--json", str(out)],
            cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S, check=False,
        )  # fmt: skip
        data = json.loads(out.read_text())
        assert data["calls"] >= 80, (target, done.stderr[-2000:])
        assert len(data["legs"]) == 2  # both eras
        # example_server's check_failure fails on purpose: the control that the checks look
        assert data["leaks"] == data["malformed_envelopes"] == data["canary_in_log"] == 0, data
        assert "check_failure" in data["tools"]
