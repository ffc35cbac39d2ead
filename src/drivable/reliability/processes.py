"""Served contracts and a private PostgreSQL as real processes on loopback, and their memory.

Every process is started in its own session (process group) and stopped with the group, so a
uvicorn supervisor never leaves a worker behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from drivable import settings

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0
PROBE_TARGET = "drivable.reliability.probe:make"
PROBE_VERIFIER = "drivable.reliability.probe:verifier"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found.extend(int(p) for p in task.read_text().split())
        except OSError:
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """pid and all its descendants still alive."""
    out: list[int] = []
    queue = [pid]
    while queue and len(out) < 1000:
        current = queue.pop()
        if not Path(f"/proc/{current}").exists():
            continue
        out.append(current)
        queue.extend(_children(current))
    return out


def rss_bytes(pid: int) -> int:
    """Resident memory of one process (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0


def cmdline(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


@dataclass
class Served:
    """A contract served over streamable HTTP by `drivable serve` in a subprocess."""

    url: str
    port: int
    workers: int
    process: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    databases: list[str] = field(default_factory=list)  # PostgreSQL databases made for it

    def worker_pids(self) -> list[int]:
        """The worker processes (one process serving everything when workers == 1)."""
        if self.workers == 1:
            return [self.process.pid]
        return [
            p
            for p in process_tree(self.process.pid)[1:]
            if "multiprocessing.spawn" in cmdline(p) or "spawn_main" in cmdline(p)
        ]

    def rss_bytes(self) -> int:
        """Resident memory of the whole tree (supervisor and workers)."""
        return sum(rss_bytes(p) for p in process_tree(self.process.pid))

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""


def _ready(url: str, token: str | None, process: subprocess.Popen[bytes]) -> bool:
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    if token:
        headers["authorization"] = f"Bearer {token}"
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    try:
        response = httpx2.post(url, content=body, headers=headers, timeout=5.0)
    except httpx2.HTTPError:
        return False
    return response.status_code in (200, 401)


def serve(
    target: str,
    log_dir: Path,
    *,
    workers: int = 1,
    verifier: str | None = None,
    env: Mapping[str, str] | None = None,
    pythonpath: Sequence[str] = (),
    ready_token: str | None = None,
    max_body_bytes: int | None = None,
    insecure: bool = False,
) -> Served:
    """Start `drivable serve TARGET --http` on a free loopback port; return once it answers."""
    port = free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"serve-{port}.log"
    full_env = settings.child_environment(env)
    if pythonpath:
        full_env["PYTHONPATH"] = os.pathsep.join(
            [*pythonpath, *filter(None, [full_env.get("PYTHONPATH")])]
        )
    command = [
        sys.executable,
        "-c",
        "from drivable.serve.command import main; main()",
        target,
        "--http",
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    if verifier:
        command += ["--verifier", verifier]
    if max_body_bytes:
        command += ["--max-body-bytes", str(max_body_bytes)]
    if insecure:
        command.append("--insecure")  # loopback only: a contract under test without a verifier
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, env=full_env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
    served = Served(f"http://{LOOPBACK}:{port}/mcp", port, workers, process, log, dict(env or {}))
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited early: {served.log_text()[-2000:]}")
            if _ready(served.url, ready_token, process) and len(served.worker_pids()) >= workers:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the server did not answer in time: {served.log_text()[-2000:]}"
                )
            time.sleep(0.2)
    except BaseException:
        stop(served)
        raise
    return served


def stop(served: Served) -> None:
    """Stop the server's whole process group (SIGTERM, then SIGKILL)."""
    _stop_group(served.process)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_TIMEOUT_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.poll() is None:
        process.wait(timeout=STOP_TIMEOUT_S)


class PostgresUnavailable(RuntimeError):
    pass


def _bindir() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    return found[-1].parent if found else None


@dataclass
class Postgres:
    """A private PostgreSQL server (its own data directory and port) this harness may restart.

    The suite's shared server (`scripts/ensure-postgres.sh`) is never restarted: other tests use it.
    """

    bindir: Path
    data: Path
    port: int
    log: Path

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@{LOOPBACK}:{self.port}/postgres"

    def _as_postgres(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        command = list(args)
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)

    def _ctl(self, action: str, *extra: str) -> None:
        options = (
            f"-c listen_addresses={LOOPBACK} -p {self.port} -k {self.data} -c max_connections=200"
        )
        done = self._as_postgres(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            *extra,
            action,
        )
        if done.returncode != 0:
            raise PostgresUnavailable(f"pg_ctl {action} failed: {done.stderr[-1000:]}")

    def start(self) -> None:
        self._ctl("start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("stop", "-m", mode)

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")


def start_postgres() -> Postgres:
    """initdb and start a private server in a fresh folder under /tmp (the postgres user must be
    able to reach it, which a root-only pytest tmp folder is not). Installs nothing."""
    bindir = _bindir()
    if bindir is None:
        raise PostgresUnavailable(
            "PostgreSQL binaries not found; run scripts/ensure-postgres.sh once to install them"
        )
    root = Path(tempfile.mkdtemp(prefix="drivable-reliability-pg-"))
    root.chmod(0o755)
    data = root / "pgdata"
    log = root / "postgres.log"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    server = Postgres(bindir, data, free_port(), log)
    done = server._as_postgres(
        str(bindir / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-instructions",
    )
    if done.returncode != 0:
        raise PostgresUnavailable(f"initdb failed: {done.stderr[-1000:]}")
    server.start()
    return server


def stop_postgres(server: Postgres) -> None:
    with contextlib.suppress(PostgresUnavailable, subprocess.TimeoutExpired):
        server.stop("immediate")
    shutil.rmtree(server.data.parent, ignore_errors=True)
