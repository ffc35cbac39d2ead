"""The whole campaign at one tier: fuzz every server, load, faults, access, canary.

`short` is the CI tier (minutes); `full` is the slow tier `make reliability` runs: at least 10,000
fuzzed calls per reference server and 64 clients for 60 s against 2 workers.

The orchestration alone: the servers' profiles and legs are in `profiles`, their fresh stores in
`stores`, and every check it runs lives in a module of its own.
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

from drivable.reliability import faults
from drivable.reliability.access import access_matrix, money_access, open_by_default
from drivable.reliability.fuzz import fuzz
from drivable.reliability.load import run_load
from drivable.reliability.processes import stop
from drivable.reliability.profiles import FULL_TOKEN as FULL_TOKEN
from drivable.reliability.profiles import PROFILES as PROFILES
from drivable.reliability.profiles import Leg as Leg
from drivable.reliability.profiles import legs_of as legs_of
from drivable.reliability.profiles import profile_of as profile_of
from drivable.reliability.profiles import reference_servers as reference_servers
from drivable.reliability.stores import drop_stores as drop_stores
from drivable.reliability.stores import serve_profile, store_url
from drivable.reliability.wire import wire_leg
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
    soak_warmup: int = 100
    soak_calls: int = 400
    reads_seconds: float = 10.0


SHORT = Tier("short", 300, 8, 5.0, 2, 8, 8.0, 100, 100, 400, 10.0)
FULL = Tier("full", 10_000, 64, 60.0, 2, 16, 20.0, 1000, 300, 1500, 60.0)
PARTS = ("fuzz", "load", "reads", "soak", "faults", "access", "canary")
TIERS = {t.name: t for t in (SHORT, FULL)}


CANARY = "CANARY-w1r3Fz9q"


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
    soak: list[dict[str, Any]] = field(default_factory=list)
    reads: list[dict[str, Any]] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    not_run: dict[str, str] = field(default_factory=dict)

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
            == f.get("canary_in_log", 0)
            == 0
            for f in self.fuzz
        )
        load_ok = all(r["failures"] == 0 and r["memory_flat"] for r in self.load)
        soak_ok = all(r["flat"] and r["failures"] == 0 for r in self.soak)
        reads_ok = all(r["passed"] for r in self.reads)
        return (
            fuzz_ok
            and load_ok
            and soak_ok
            and reads_ok
            and all(f["passed"] for f in self.faults)
            and all(a["passed"] for a in self.access)
            and (bool(self.canary.get("passed")) or SECTIONS["canary"] in self.not_run)
        )


async def fuzz_server(
    name: str, calls: int, work: Path, seed: int = 20261129, *, legs: list[Leg] | None = None
) -> dict[str, Any]:
    """Fuzz one server over every leg (`legs_of`), `calls` in all; the rows of each leg are kept
    in `legs`, the totals at the top. The canary rides in every string argument, and the server's
    own log (stderr) is searched for it afterwards."""
    chosen = legs if legs is not None else legs_of(name)
    share = max(50, calls // len(chosen))
    rows = [await _fuzz_leg(name, share, work, seed + n, leg) for n, leg in enumerate(chosen)]
    total: dict[str, Any] = {"server": name, "legs": rows, "tools": rows[0]["tools"]}
    for key, value in rows[0].items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            total[key] = round(sum(r[key] for r in rows), 1)
    codes: dict[str, int] = {}
    for row in rows:
        for code, n in row["codes"].items():
            codes[code] = codes.get(code, 0) + n
    total["codes"] = dict(sorted(codes.items(), key=lambda kv: -kv[1]))
    total["findings"] = [f for r in rows for f in r["findings"]][:50]
    return total


async def _fuzz_leg(name: str, calls: int, work: Path, seed: int, leg: Leg) -> dict[str, Any]:
    prof = profile_of(name)
    budget = max(600.0, calls * 0.2)
    if leg.transport == "stdio":
        import tempfile as _tempfile

        env = dict(prof.env)
        made: list[str] = []
        if prof.target.startswith("cmd:"):
            import shlex

            command = tuple(shlex.split(prof.target[4:]))
        else:
            command = (sys.executable, "-m", "drivable", "serve", prof.target)
            if prof.store_env:
                url = store_url(leg.store, name, work, made)
                if prof.prepare is not None:
                    prof.prepare(url)
                env[prof.store_env] = url
        with _tempfile.TemporaryFile("w+", errors="replace") as errlog:
            report = await fuzz(
                Target(command=command, env=env, mode=leg.era),  # type: ignore[arg-type]
                server=name,
                calls=calls,
                liveness=prof.liveness,
                seed=seed,
                exclude=prof.exclude,
                time_budget_s=budget,
                canary=CANARY,
                errlog=errlog,
            )
            await wire_leg(
                Target(command=command, env=env, mode=leg.era),  # type: ignore[arg-type]
                report,
                errlog=errlog,
                canary=CANARY,
            )
            errlog.seek(0)
            server_log = errlog.read()
        drop_stores(made)
    else:
        served: Any = None
        if prof.target.startswith(("http://", "https://")):
            url_target = prof.target
        else:
            served, _ = serve_profile(name, work, 1, leg.store)
            url_target = served.url
        try:
            report = await fuzz(
                Target(url=url_target, bearer_token=prof.token, mode=leg.era),  # type: ignore[arg-type]
                server=name,
                calls=calls,
                liveness=prof.liveness,
                seed=seed,
                exclude=prof.exclude,
                time_budget_s=budget,
                canary=CANARY,
            )
            await wire_leg(
                Target(url=url_target, bearer_token=prof.token, mode=leg.era),  # type: ignore[arg-type]
                report,
                errlog=None,
                canary=CANARY,
            )
        finally:
            if served is not None:
                stop(served)
                drop_stores(served.databases)
        server_log = served.log_text() if served is not None else ""
    out = report.to_dict()
    out["leg"] = leg.label()
    out["server_log_bytes"] = len(server_log.encode("utf-8", "replace"))
    out["canary_in_log"] = server_log.count(CANARY)
    return out


async def load_server(
    name: str, clients: int, seconds: float, workers: int, work: Path
) -> dict[str, Any]:
    prof = profile_of(name)
    served, _ = serve_profile(name, work, workers)
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


READ_TOOL = "find_invoices"
READ_TAIL_RATIO = 3.0  # a read's p95 within this many times its p50 under the mixed load


async def reads_under_writes(
    work: Path, *, clients: int = 64, writers: int = 8, seconds: float = 60.0, store: str = "sqlite"
) -> dict[str, Any]:
    """billing on 1 worker: `clients - writers` clients read (`find_invoices`) while `writers`
    create invoices under fresh keys; the reads' p95 against their p50."""
    served, _ = serve_profile("billing", work, 1, store)
    reading = ("find_invoices", {"state": "paid", "limit": 10})

    def next_call(client: int, sequence: int) -> tuple[str, dict[str, Any]]:
        if client < writers:
            return "create_invoice", {
                "customer_id": f"cus_{1001 + (client * 7 + sequence) % 100}",
                "lines": [{"description": "Soak line", "quantity": 1, "unit_cents": 1000}],
                "idempotency_key": f"reads-{client}-{sequence}-{uuid.uuid4().hex[:8]}",
            }
        return reading

    try:
        report = await run_load(
            served,
            server="billing",
            token=FULL_TOKEN,
            clients=clients,
            seconds=seconds,
            next_call=next_call,
        )
    finally:
        stop(served)
        drop_stores(served.databases)
    reads = sorted(e.latency_ms for e in report.events if e.tool == READ_TOOL and e.outcome == "ok")
    writes = sum(1 for e in report.events if e.tool == "create_invoice" and e.outcome == "ok")

    def pct(q: float) -> float:
        if not reads:
            return float("nan")
        return reads[min(len(reads) - 1, max(0, round(q / 100 * len(reads) + 0.5) - 1))]

    p50, p95 = pct(50), pct(95)
    ratio = p95 / p50 if reads and p50 > 0 else float("nan")
    return {
        "server": "billing",
        "store": store,
        "workers": 1,
        "clients": clients,
        "writers": writers,
        "seconds": round(report.seconds, 1),
        "reads": len(reads),
        "writes": writes,
        "failures": report.failures,
        "failure_kinds": dict(report.failure_kinds()),
        "read_p50_ms": round(p50, 1),
        "read_p95_ms": round(p95, 1),
        "read_p99_ms": round(pct(99), 1),
        "p95_over_p50": round(ratio, 2),
        "passed": report.failures == 0 and ratio <= READ_TAIL_RATIO,
    }


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
    parts: tuple[str, ...] = PARTS,
) -> Results:
    """Every part at `tier` (or those in `parts`), in a temporary working folder; each part
    bounded in time. A part left out is said on the page, not measured."""
    started = time.monotonic()
    results = Results(tier.name, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    results.environment = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "transport": "streamable HTTP on 127.0.0.1",
        "load_at_start": _load_average(),
    }
    names = servers or [*[s for s in reference_servers() if s in PROFILES], "probe"]
    left_out = [p for p in PARTS if p not in parts]
    for part in left_out:
        results.not_run[SECTIONS[part]] = f"this run was `--part {' --part '.join(parts)}`"
    with tempfile.TemporaryDirectory(prefix="drivable-reliability-") as tmp:
        work = Path(tmp)
        if "fuzz" in parts:
            for name in names:
                say(f"fuzz {name}: {tier.fuzz_calls} calls")
                results.fuzz.append(await fuzz_server(name, tier.fuzz_calls, work))
        if "soak" in parts:
            from drivable.reliability.soak import soak

            results.soak = await soak(work, warmup=tier.soak_warmup, calls=tier.soak_calls, say=say)
        if "reads" in parts and "billing" in names:
            say(f"reads under writes: billing, 64 clients for {tier.reads_seconds:.0f} s, 1 worker")
            results.reads.append(await reads_under_writes(work, seconds=tier.reads_seconds))
        for load_target in (
            ([s for s in names if s != "probe"] or ["probe"]) if "load" in parts else []
        ):
            say(
                f"load {load_target}: {tier.load_clients} clients for {tier.load_seconds:.0f} s "
                f"on {tier.load_workers} workers"
            )
            results.load.append(
                await load_server(
                    load_target, tier.load_clients, tier.load_seconds, tier.load_workers, work
                )
            )
        if "faults" in parts:
            await _faults(results, tier, work, say)
        if "access" in parts:
            await _access(results, names, work, say)
        if "canary" in parts:
            say(f"canary: {tier.canary_calls} calls per server")
            results.canary = canary_in_subprocess(tier.canary_calls, work)
    results.seconds = round(time.monotonic() - started, 1)
    results.environment["load_at_end"] = _load_average()
    return results


SECTIONS = {
    "fuzz": "Fuzzing over the wire",
    "load": "Load",
    "reads": "Reads under writes",
    "soak": "Soak: memory per 1,000 calls",
    "faults": "Faults",
    "access": "Access",
    "canary": "Canary: arguments never logged",
}


async def _faults(results: Results, tier: Tier, work: Path, say: Callable[[str], None]) -> None:
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
            await faults.worker_kill(work, clients=tier.fault_clients, seconds=tier.fault_seconds)
        ).to_dict()
    )
    for fault in (faults.sqlite_full, faults.sqlite_read_only):
        say(f"fault: {fault.__name__}")
        try:
            results.faults.append((await fault(work)).to_dict())
        except PermissionError as exc:
            results.faults.append({"fault": fault.__name__, "passed": False, "detail": str(exc)})


async def _access(
    results: Results, names: list[str], work: Path, say: Callable[[str], None]
) -> None:
    say("access matrix")
    served, _ = serve_profile("probe", work, 1)
    try:
        results.access = [
            c.to_dict() for c in await access_matrix(served, f"acc{uuid.uuid4().hex[:6]}")
        ]
    finally:
        stop(served)
    if "billing" in names:
        say("money access: billing")
        served, _ = serve_profile("billing", work, 1)
        try:
            results.access += [c.to_dict() for c in await money_access(served, FULL_TOKEN)]
        finally:
            stop(served)
            drop_stores(served.databases)
        results.access.append(open_by_default("billing").to_dict())


def _load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (the campaign shares the machine)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []
