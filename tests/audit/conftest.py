"""Fixtures for the auditor's tests: run `drivable audit` for real, as a subprocess, on real servers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli import CLI

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
DATA = HERE / "data"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "thirdparty: audits real third-party servers installed into var/thirdparty "
        "(skip with -m 'not thirdparty')",
    )


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.stdout)
        return data

    def rules(self) -> set[tuple[str, str]]:
        return {(f["rule"], f["subject"]) for f in self.report["findings"]}


def drivable(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> Run:
    proc = subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def audit_json(*target: str, extra: tuple[str, ...] = ()) -> Run:
    return drivable("audit", "--format", "json", *extra, *target)


@pytest.fixture(scope="session")
def defects_run() -> Run:
    # A short timeout: one planted tool never answers.
    return audit_json("--", sys.executable, str(SERVERS / "defects.py"), extra=("--timeout", "3"))


@pytest.fixture(scope="session")
def clean_run() -> Run:
    return audit_json("--", sys.executable, str(SERVERS / "clean.py"), extra=("--allow-writes",))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve_clean_http(*extra: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "clean.py"), "--http", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def clean_http() -> Iterator[str]:
    yield from serve_clean_http()


@pytest.fixture(scope="session")
def clean_http_with_token() -> Iterator[str]:
    yield from serve_clean_http("drivable-test-token")
