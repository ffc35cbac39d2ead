"""Worker processes for the tasks tests: `drivable serve tasks_app:make_contract --http` on free
loopback ports, sharing one store (a SQLite file or a PostgreSQL schema)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from drivable.contract.envelope import envelope_of
from tests.tasks.wire import RpcError, rpc

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LEASE_S = "1.0"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Worker:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, the lease is left to run out."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=15)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def start_worker(tmp: Path, store: str) -> Worker:
    port = free_port()
    log = tmp / f"worker-{port}.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    env["DRIVABLE_TASKS_STORE"] = store
    env["DRIVABLE_TASKS_LEASE_S"] = LEASE_S
    command = [
        sys.executable, "-c", "from drivable.serve.command import main; main()",
        "tasks_app:make_contract", "--http", "--port", str(port),
        "--verifier", "tasks_app:verifier",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=HERE, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    worker = Worker(f"http://127.0.0.1:{port}/mcp", process, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the worker exited early: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return worker
        except OSError:
            time.sleep(0.1)
    worker.stop()
    raise RuntimeError("the worker did not start listening in time")


@pytest.fixture
def client() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30) as c:
        yield c


def call(
    client: httpx2.Client, worker: Worker, tool: str, arguments: dict[str, Any], **kw: Any
) -> dict[str, Any]:
    return rpc(client, worker.url, "tools/call", {"name": tool, "arguments": arguments}, **kw)


def start_task(
    client: httpx2.Client, worker: Worker, tool: str, arguments: dict[str, Any], token: str
) -> dict[str, Any]:
    """A `tools/call` expected to start a task: the handle, or a failure quoting what came back
    (a refusal is an error result with the envelope, never a handle)."""
    created = call(client, worker, tool, arguments, token=token)
    assert created.get("resultType") == "task" and "taskId" in created, (
        f"{tool} did not start a task: {envelope_of(created) or created}"
    )
    return created


def get(client: httpx2.Client, worker: Worker, task_id: str, **kw: Any) -> dict[str, Any]:
    return rpc(client, worker.url, "tasks/get", {"taskId": task_id}, **kw)


def until_terminal(
    client: httpx2.Client, worker: Worker, task_id: str, token: str, timeout: float = 40
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Poll until a terminal state; the last answer and every answer seen."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = get(client, worker, task_id, token=token)
        seen.append(task)
        if task["status"] in ("completed", "failed", "cancelled"):
            return task, seen
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} did not end in {timeout} s; last: {seen[-1:]}")


__all__ = ["RpcError", "Worker", "call", "get", "start_task", "start_worker", "until_terminal"]
