"""Run the official MCP conformance suite against a served target and read its per-scenario results.

`conformance server --url URL --requirements REVISION -o DIR` (the npm package
`@modelcontextprotocol/conformance`, installed by scripts/ensure-node.sh) runs every scenario the
revision's frozen requirement set names and writes `DIR/server-<scenario>-<timestamp>/checks.json`
per scenario: a list of checks, each with an `id`, a `status` (SUCCESS, FAILURE, WARNING, INFO,
SKIPPED) and for failures an `errorMessage`. A scenario passes when it has a SUCCESS and no FAILURE,
the rule of the suite's own `tier-check`. Which scenarios count comes from the package's
`requirements/<revision>.yaml` (`server`: scored; `not_scored`: run and reported only).

Targets are served with `drivable serve TARGET --http` (with `--sessions` for 2025-11-25, whose
handshake era keeps sessions). The suite speaks HTTP only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.interop.serving import serve_http

REVISIONS = ("2026-07-28", "2025-11-25")
FIXTURE = "tests.conformance.fixture:contract"
TARGETS = ("caselaw", "billing", FIXTURE)
# The 2025-11-25 handshake era needs sessions (one worker) for what the suite checks there.
SERVE_FLAGS = {"2026-07-28": (), "2025-11-25": ("--sessions",)}
_STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


@dataclass(frozen=True)
class Check:
    id: str
    status: str
    message: str = ""


@dataclass
class Scenario:
    name: str
    scored: bool
    passed: bool
    failed_checks: list[Check] = field(default_factory=list)
    warnings: list[Check] = field(default_factory=list)
    note: str = ""  # why a not-scored scenario is not scored


@dataclass
class SuiteRun:
    target: str
    revision: str
    scenarios: dict[str, Scenario]
    exit_code: int
    seconds: float = 0.0

    def scored(self) -> list[Scenario]:
        return [s for s in self.scenarios.values() if s.scored]

    def counts(self) -> tuple[int, int]:
        scored = self.scored()
        return sum(1 for s in scored if s.passed), len(scored)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def package_dir(node_bin: Path) -> Path:
    return node_bin.parent / "@modelcontextprotocol" / "conformance"


def requirements(node_bin: Path, revision: str) -> tuple[list[str], dict[str, str]]:
    """(scored server scenarios, {not-scored server scenario: reason}) of a revision."""
    data = yaml.safe_load((package_dir(node_bin) / "requirements" / f"{revision}.yaml").read_text())
    scored = list(data.get("server") or [])
    not_scored = {
        e["scenario"]: e["reason"] for e in data.get("not_scored") or [] if e["leg"] == "server"
    }
    return scored, not_scored


def fixture_available() -> bool:
    return importlib.util.find_spec("tests.conformance.fixture") is not None


def read_results(
    out_dir: Path, scored: list[str], not_scored: Mapping[str, str]
) -> dict[str, Scenario]:
    """Per-scenario results from the checks.json files under `out_dir`; a scored scenario with no
    file (the run died before it) is a failure."""
    found: dict[str, Scenario] = {}
    for path in sorted(out_dir.glob("server-*/checks.json")):
        name = _STAMP.sub("", path.parent.name).removeprefix("server-")
        checks = json.loads(path.read_text())
        failures = [
            Check(c.get("id", "?"), c["status"], c.get("errorMessage") or c.get("description", ""))
            for c in checks
            if c.get("status") == "FAILURE"
        ]
        warnings = [
            Check(c.get("id", "?"), c["status"], c.get("errorMessage") or "")
            for c in checks
            if c.get("status") == "WARNING"
        ]
        succeeded = any(c.get("status") == "SUCCESS" for c in checks)
        found[name] = Scenario(
            name=name,
            scored=name in scored,
            passed=succeeded and not failures,
            failed_checks=failures,
            warnings=warnings,
            note=not_scored.get(name, ""),
        )
    for name in scored:
        if name not in found:
            missing = Check("no-result", "FAILURE", "the suite wrote no checks.json for it")
            found[name] = Scenario(name, True, False, [missing])
    return found


def run_suite(
    node_bin: Path, target: str, revision: str, work: Path, *, timeout_ms: int = 15_000
) -> SuiteRun:
    """Serve `target` over HTTP and run the revision's requirement set against it."""
    import time

    scored, not_scored = requirements(node_bin, revision)
    slug = target.replace(":", "-").replace(".", "-")
    out_dir = work / f"{slug}-{revision}"
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{node_bin}:{os.environ['PATH']}"}
    started = time.monotonic()
    with serve_http(target, work / f"{slug}-{revision}.log", extra=SERVE_FLAGS[revision]) as url:
        proc = subprocess.run(
            [
                str(node_bin / "conformance"),
                "server",
                "--url",
                url,
                "--requirements",
                revision,
                "--timeout",
                str(timeout_ms),
                "-o",
                str(out_dir),
            ],
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
            env={**os.environ, **env},
            cwd=work,
        )
    (out_dir / "stdout.txt").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    scenarios = read_results(out_dir, scored, not_scored)
    return SuiteRun(target, revision, scenarios, proc.returncode, time.monotonic() - started)
