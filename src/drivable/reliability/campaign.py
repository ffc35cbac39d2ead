"""The whole campaign at one tier: fuzz every server, load, faults, access, canary.

`short` is the CI tier (minutes); `full` is the slow tier `make reliability` runs: at least 10,000
fuzzed calls per reference server and 64 clients for 60 s against 2 workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivable.reliability import faults, probe
from drivable.reliability.access import access_matrix
from drivable.reliability.fuzz import fuzz
from drivable.reliability.load import run_load
from drivable.reliability.processes import PROBE_TARGET, PROBE_VERIFIER, serve, stop
from drivable.target import Target


@dataclass(frozen=True)
class Tier:
    name: str
    fuzz_calls: int
    load_clients: int
    load_seconds: float
    load_workers: int
    fault_clients: int
    fault_seconds: float
    canary_calls: int


SHORT = Tier("short", 300, 8, 5.0, 2, 8, 8.0, 100)
FULL = Tier("full", 10_000, 64, 60.0, 2, 16, 20.0, 1000)
TIERS = {t.name: t for t in (SHORT, FULL)}


@dataclass(frozen=True)
class Profile:
    """How to drive one server: how it is served, its liveness call and a load mix of valid calls."""

    target: str
    liveness: tuple[str, dict[str, Any]]
    mix: tuple[tuple[str, dict[str, Any]], ...]
    verifier: str | None = None
    token: str | None = None
    # The variable naming the server's store: each run gets a fresh SQLite file there.
    store_env: str | None = None
    prepare: Callable[[str], None] | None = None
    exclude: tuple[str, ...] = ()


PROFILES: dict[str, Profile] = {
    "caselaw": Profile(
        "caselaw",
        ("list_courts", {}),
        (
            ("search_decisions", {"query": "náhrada škody", "limit": 5}),
            ("search_decisions", {"court": "Nejvyšší soud", "limit": 5}),
            ("list_courts", {}),
            ("search_decisions", {"date_from": "2020", "limit": 3}),
        ),
    ),
    "probe": Profile(
        PROBE_TARGET,
        ("check_alive", {}),
        (("check_alive", {"echo": "load"}),),
        verifier=PROBE_VERIFIER,
        token=probe.ALICE_TOKEN,
        store_env=probe.STORE_ENV,
        prepare=probe.prepare_store,
    ),
    "billing": Profile(
        "billing",
        ("list_customers", {}),
        (
            ("find_invoices", {"state": "paid", "limit": 10}),
            ("list_customers", {"limit": 10}),
            ("find_invoices", {"date_from": "2026-01-01", "limit": 5}),
            ("get_invoice", {"invoice_id": "inv_30001"}),
        ),
        store_env="DRIVABLE_BILLING_STORE",
    ),
}


def reference_servers() -> list[str]:
    """The reference servers this checkout has (billing joins caselaw when it lands)."""
    from drivable.servers import REFERENCE_SERVERS

    return sorted(REFERENCE_SERVERS)


@dataclass
class Results:
    tier: str
    started: str
    seconds: float = 0.0
    fuzz: list[dict[str, Any]] = field(default_factory=list)
    load: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    access: list[dict[str, Any]] = field(default_factory=list)
    canary: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @property
    def passed(self) -> bool:
        fuzz_ok = all(
            f["internal_errors"]
            == f["leaks"]
            == f["unnamed_fields"]
            == f["malformed_envelopes"]
            == f["no_answer"]
            == f["liveness_failures"]
            == 0
            for f in self.fuzz
        )
        load_ok = all(r["failures"] == 0 and r["memory_flat"] for r in self.load)
        return (
            fuzz_ok
            and load_ok
            and all(f["passed"] for f in self.faults)
            and all(a["passed"] for a in self.access)
            and bool(self.canary.get("passed"))
        )


def profile_of(name: str) -> Profile:
    if name in PROFILES:
        return PROFILES[name]
    raise KeyError(f"no reliability profile for {name!r}: add one to PROFILES")


def _served(name: str, work: Path, workers: int) -> tuple[Any, dict[str, str]]:
    prof = profile_of(name)
    env: dict[str, str] = {}
    if prof.store_env:
        url = f"sqlite:///{work / f'{name}-{uuid.uuid4().hex[:6]}.sqlite'}"
        if prof.prepare is not None:
            prof.prepare(url)
        env[prof.store_env] = url
    return (
        serve(
            prof.target,
            work,
            workers=workers,
            verifier=prof.verifier,
            env=env,
            ready_token=prof.token,
        ),
        env,
    )


async def fuzz_server(name: str, calls: int, work: Path, seed: int = 20261129) -> dict[str, Any]:
    prof = profile_of(name)
    served, _ = _served(name, work, 1)
    try:
        report = await fuzz(
            Target(url=served.url, bearer_token=prof.token),
            server=name,
            calls=calls,
            liveness=prof.liveness,
            seed=seed,
            exclude=prof.exclude,
            time_budget_s=max(600.0, calls * 0.2),
        )
    finally:
        stop(served)
    out = report.to_dict()
    out["server_log_bytes"] = served.log.stat().st_size if served.log.exists() else 0
    return out


async def load_server(
    name: str, clients: int, seconds: float, workers: int, work: Path
) -> dict[str, Any]:
    prof = profile_of(name)
    served, _ = _served(name, work, workers)
    mix = prof.mix

    def next_call(client: int, sequence: int) -> tuple[str, dict[str, Any]]:
        return mix[(client + sequence) % len(mix)]

    try:
        report = await run_load(
            served,
            server=name,
            token=prof.token,
            clients=clients,
            seconds=seconds,
            next_call=next_call,
        )
    finally:
        stop(served)
    return report.to_dict()


def canary_in_subprocess(calls: int, work: Path) -> dict[str, Any]:
    """`drivable reliability canary` in a fresh interpreter (OpenTelemetry providers are set once)."""
    out = work / f"canary-{uuid.uuid4().hex[:6]}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "drivable.reliability.command",
            "canary",
            "--calls",
            str(calls),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=max(600, calls),
        check=False,
        cwd=work,
    )
    if not out.exists():
        return {"passed": False, "error": done.stderr[-2000:]}
    result: dict[str, Any] = json.loads(out.read_text())
    return result


async def run_campaign(
    tier: Tier,
    *,
    servers: list[str] | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> Results:
    """Every part at `tier`, in a temporary working folder; each part bounded in time."""
    started = time.monotonic()
    results = Results(tier.name, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    results.environment = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "transport": "streamable HTTP on 127.0.0.1",
    }
    names = servers or [*[s for s in reference_servers() if s in PROFILES], "probe"]
    with tempfile.TemporaryDirectory(prefix="drivable-reliability-") as tmp:
        work = Path(tmp)
        for name in names:
            say(f"fuzz {name}: {tier.fuzz_calls} calls")
            results.fuzz.append(await fuzz_server(name, tier.fuzz_calls, work))
        for load_target in [s for s in names if s != "probe"] or ["probe"]:
            say(
                f"load {load_target}: {tier.load_clients} clients for {tier.load_seconds:.0f} s "
                f"on {tier.load_workers} workers"
            )
            results.load.append(
                await load_server(
                    load_target, tier.load_clients, tier.load_seconds, tier.load_workers, work
                )
            )
        say("fault: PostgreSQL restarted during load")
        results.faults.append(
            (
                await faults.postgres_restart(
                    work, clients=tier.fault_clients, seconds=tier.fault_seconds
                )
            ).to_dict()
        )
        say("fault: a worker killed during load")
        results.faults.append(
            (
                await faults.worker_kill(
                    work, clients=tier.fault_clients, seconds=tier.fault_seconds
                )
            ).to_dict()
        )
        for fault in (faults.sqlite_full, faults.sqlite_read_only):
            say(f"fault: {fault.__name__}")
            try:
                results.faults.append((await fault(work)).to_dict())
            except PermissionError as exc:
                results.faults.append(
                    {"fault": fault.__name__, "passed": False, "detail": str(exc)}
                )
        say("access matrix")
        served, _ = _served("probe", work, 1)
        try:
            results.access = [
                c.to_dict() for c in await access_matrix(served, f"acc{uuid.uuid4().hex[:6]}")
            ]
        finally:
            stop(served)
        say(f"canary: {tier.canary_calls} calls per server")
        results.canary = canary_in_subprocess(tier.canary_calls, work)
    results.seconds = round(time.monotonic() - started, 1)
    return results
