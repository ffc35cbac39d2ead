"""Faults injected while the probe serves real calls: PostgreSQL restarted, a worker killed,
a full disk and a read-only file under SQLite.

Each fault reports what the clients saw (temporary errors with retry_after_ms, failed calls, the
time to recover) and what the store holds afterwards (no duplicate effect, no lost effect, an
intact SQLite file).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from drivable.contract.envelope import envelope_of
from drivable.reliability import probe
from drivable.reliability.checks import leaks
from drivable.reliability.load import Event, LoadReport, run_load
from drivable.reliability.processes import (
    PROBE_TARGET,
    PROBE_VERIFIER,
    Served,
    serve,
    start_postgres,
    stop,
    stop_postgres,
)
from drivable.target import Target, connect


@dataclass
class FaultReport:
    fault: str
    passed: bool = False
    calls: int = 0
    ok: int = 0
    temporary_errors: int = 0
    temporary_without_retry_after: int = 0
    other_errors: Counter[str] = field(default_factory=Counter)
    failed_calls: int = 0  # exceptions: the connection broke
    recovered_after_s: float | None = None
    duplicates: int = 0
    lost: int = 0
    leaks: int = 0
    integrity: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["other_errors"] = dict(self.other_errors)
        return out


def _tally(report: FaultReport, events: list[Event]) -> None:
    report.calls = len(events)
    for event in events:
        if event.outcome == "ok":
            report.ok += 1
        elif event.outcome == "raised":
            report.failed_calls += 1
        elif event.temporary:
            report.temporary_errors += 1
            if event.retry_after_ms is None:
                report.temporary_without_retry_after += 1
        else:
            report.other_errors[event.code] += 1


def _recovery(events: list[Event], since: float) -> float | None:
    """Seconds from `since` to the first call started after it that succeeded."""
    after = [e.ended for e in events if e.outcome == "ok" and e.started >= since]
    return round(min(after) - since, 2) if after else None


def _writer(run: str) -> Any:
    """Each call records a new entry under a unique label and key (retries reuse them)."""

    def next_call(client: int, sequence: int) -> tuple[str, dict[str, Any]]:
        label = f"{run}-{client}-{sequence}"
        return "add_entry", {
            "label": label,
            "amount": 1 + sequence % 100,
            "idempotency_key": f"k-{label}",
        }

    return next_call


def _effect_counts(report: FaultReport, load: LoadReport, url: str, run: str) -> None:
    rows = {k: v for k, v in probe.count_rows(url).items() if k.startswith(f"{run}-")}
    report.duplicates = sum(1 for v in rows.values() if v > 1)
    confirmed = {
        str((e.args or {}).get("label"))
        for e in load.events
        if e.outcome == "ok" and e.tool == "add_entry"
    }
    report.lost = sum(1 for label in confirmed if rows.get(label, 0) == 0)


async def postgres_restart(
    log_dir: Path, *, clients: int, seconds: float, down_s: float = 2.0
) -> FaultReport:
    """Probe on 2 workers over a private PostgreSQL, stopped for `down_s` mid-run, then started."""
    report = FaultReport("postgresql restarted during load")
    pg = start_postgres()
    served: Served | None = None
    try:
        probe.prepare_store(pg.dsn)
        served = serve(
            PROBE_TARGET,
            log_dir,
            workers=2,
            verifier=PROBE_VERIFIER,
            env={probe.STORE_ENV: pg.dsn},
            ready_token=probe.ALICE_TOKEN,
        )
        run = f"pg{uuid.uuid4().hex[:6]}"
        marks: dict[str, float] = {}

        async def fault(t0: float) -> None:
            await anyio.sleep(seconds * 0.3)
            marks["down"] = time.monotonic() - t0
            await anyio.to_thread.run_sync(pg.stop)
            await anyio.sleep(down_s)
            await anyio.to_thread.run_sync(pg.start)
            marks["up"] = time.monotonic() - t0

        load = await run_load(
            served,
            server="probe",
            token=probe.ALICE_TOKEN,
            clients=clients,
            seconds=seconds,
            next_call=_writer(run),
            during=fault,
            retry_temporary=True,
        )
        _tally(report, load.events)
        if "up" in marks:
            report.recovered_after_s = _recovery(load.events, marks["up"])
        _effect_counts(report, load, pg.dsn, run)
        report.detail = f"down {down_s:.0f} s at t={marks.get('down', 0):.1f} s; clients retried temporary errors after retry_after_ms"
        report.passed = (
            report.temporary_errors > 0
            and report.temporary_without_retry_after == 0
            and not report.other_errors
            and report.recovered_after_s is not None
            and report.duplicates == 0
            and report.lost == 0
            and report.leaks == 0
        )
        return report
    finally:
        if served is not None:
            stop(served)
        stop_postgres(pg)


async def worker_kill(log_dir: Path, *, clients: int, seconds: float) -> FaultReport:
    """Read-only load on 2 workers; one worker is killed (SIGKILL) mid-run."""
    report = FaultReport("a worker killed during load")
    served = serve(
        PROBE_TARGET, log_dir, workers=2, verifier=PROBE_VERIFIER, ready_token=probe.ALICE_TOKEN
    )
    try:
        marks: dict[str, float] = {}
        killed: list[int] = []

        async def fault(t0: float) -> None:
            await anyio.sleep(seconds * 0.3)
            pids = served.worker_pids()
            if pids:
                killed.append(pids[0])
                marks["kill"] = time.monotonic() - t0
                os.kill(pids[0], signal.SIGKILL)

        def next_call(client: int, sequence: int) -> tuple[str, dict[str, Any]]:
            return "check_alive", {"echo": f"c{client}"}

        load = await run_load(
            served,
            server="probe",
            token=probe.ALICE_TOKEN,
            clients=clients,
            seconds=seconds,
            next_call=next_call,
            during=fault,
        )
        _tally(report, load.events)
        after = served.worker_pids()
        if "kill" in marks:
            report.recovered_after_s = _recovery(load.events, marks["kill"] + 0.001)
            late = [e for e in load.events if e.started > marks["kill"] + 10.0]
            late_failures = sum(1 for e in late if e.outcome != "ok")
        else:
            late_failures = -1
        replaced = bool(killed) and killed[0] not in after and len(after) >= 2
        report.detail = (
            f"killed pid {killed[0] if killed else '-'} at t={marks.get('kill', 0):.1f} s; "
            f"workers after: {len(after)} ({'replaced' if replaced else 'not replaced'}); "
            f"{report.failed_calls} calls in flight on it failed, {late_failures} failures after 10 s"
        )
        report.passed = (
            bool(killed)
            and report.recovered_after_s is not None
            and not report.other_errors
            and late_failures == 0
        )
        return report
    finally:
        stop(served)


@contextlib.contextmanager
def small_tmpfs(size_kb: int) -> Iterator[Path]:
    """A tmpfs of `size_kb` (root only): a disk that really fills up and can really go read-only."""
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="drivable-reliability-fs-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0777", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        where.rmdir()
        raise PermissionError(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30, check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def _remount(where: Path, mode: str) -> None:
    subprocess.run(
        ["mount", "-o", f"remount,{mode}", str(where)], check=True, capture_output=True, timeout=30
    )


def integrity(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


async def _record_calls(url: str, count: int, run: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async with connect(
        Target(url=url, bearer_token=probe.ALICE_TOKEN), read_timeout_seconds=30
    ) as client:
        for i in range(count):
            with anyio.fail_after(30):
                result = await client.call_tool(
                    "add_entry",
                    {"label": f"{run}-{i}", "amount": 1, "idempotency_key": f"k-{run}-{i}"},
                )
            body = envelope_of(result) if result.is_error else result.structured_content
            out.append({"ok": not result.is_error, **(body or {})})
    return out


def _judge_unavailable(report: FaultReport, answers: list[dict[str, Any]]) -> None:
    report.calls += len(answers)
    for answer in answers:
        if answer["ok"]:
            report.ok += 1
        elif answer.get("code") == "unavailable" and answer.get("temporary"):
            report.temporary_errors += 1
            if answer.get("retry_after_ms") is None:
                report.temporary_without_retry_after += 1
            if leaks(str(answer), []):
                report.leaks += 1
        else:
            report.other_errors[str(answer.get("code"))] += 1


async def sqlite_full(log_dir: Path) -> FaultReport:
    """The SQLite file's disk fills up while the server runs; space comes back; nothing is corrupt."""
    report = FaultReport("SQLite disk full")
    with small_tmpfs(1024) as where:
        path = where / "effects.sqlite"
        url = f"sqlite:///{path}"
        probe.prepare_store(url)
        served = serve(
            PROBE_TARGET,
            log_dir,
            verifier=PROBE_VERIFIER,
            env={probe.STORE_ENV: url},
            ready_token=probe.ALICE_TOKEN,
        )
        filler = where / "filler"
        try:
            before = await _record_calls(served.url, 3, "full-before")
            with contextlib.suppress(OSError), filler.open("wb") as sink:
                for _ in range(4096):
                    sink.write(b"\0" * 4096)
                    sink.flush()
            answers = await _record_calls(served.url, 5, "full-during")
            _judge_unavailable(report, answers)
            full_errors = report.temporary_errors
            messages = sorted({str(a.get("message")) for a in answers if not a["ok"]})
            filler.unlink()
            after = await _record_calls(served.url, 3, "full-after")
        finally:
            stop(served)
        report.integrity = integrity(path)
        rows = probe.count_rows(url)
        written = sum(1 for a in [*before, *answers, *after] if a["ok"])
        report.lost = max(0, written - sum(rows.values()))
        report.duplicates = sum(1 for v in rows.values() if v > 1)
        report.recovered_after_s = 0.0 if all(a["ok"] for a in after) else None
        report.detail = f"{full_errors} calls answered while full: {messages[:1]}; {sum(a['ok'] for a in after)}/3 succeeded after space came back"
        report.passed = (
            all(a["ok"] for a in before)
            and full_errors > 0
            and not report.other_errors
            and report.recovered_after_s is not None
            and report.integrity == "ok"
            and report.leaks == 0
            and report.lost == 0
            and report.duplicates == 0
        )
    return report


async def sqlite_read_only(log_dir: Path) -> FaultReport:
    """The server starts on a SQLite file whose file system is read-only; then it is writable again."""
    report = FaultReport("SQLite file read-only")
    with small_tmpfs(4096) as where:
        path = where / "effects.sqlite"
        url = f"sqlite:///{path}"
        probe.prepare_store(url)
        _remount(where, "ro")
        served = serve(
            PROBE_TARGET,
            log_dir,
            verifier=PROBE_VERIFIER,
            env={probe.STORE_ENV: url},
            ready_token=probe.ALICE_TOKEN,
        )
        try:
            answers = await _record_calls(served.url, 5, "ro-during")
        finally:
            stop(served)
        _judge_unavailable(report, answers)
        messages = sorted({str(a.get("message")) for a in answers if not a["ok"]})
        _remount(where, "rw")
        served = serve(
            PROBE_TARGET,
            log_dir,
            verifier=PROBE_VERIFIER,
            env={probe.STORE_ENV: url},
            ready_token=probe.ALICE_TOKEN,
        )
        try:
            after = await _record_calls(served.url, 3, "ro-after")
        finally:
            stop(served)
        report.integrity = integrity(path)
        rows = probe.count_rows(url)
        report.lost = max(0, sum(1 for a in after if a["ok"]) - sum(rows.values()))
        report.recovered_after_s = 0.0 if all(a["ok"] for a in after) else None
        report.detail = f"{report.temporary_errors} calls answered while read-only: {messages[:1]}; {sum(a['ok'] for a in after)}/3 succeeded once writable"
        report.passed = (
            report.temporary_errors == len(answers)
            and not report.other_errors
            and report.recovered_after_s is not None
            and report.integrity == "ok"
            and report.leaks == 0
            and report.lost == 0
        )
    return report
