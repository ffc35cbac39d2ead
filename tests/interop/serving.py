"""Serve a contract over streamable HTTP in a subprocess (`drivable serve TARGET --http`), for the
interop and conformance tests."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.cli import CLI

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_http(
    target: str,
    log: Path,
    *,
    extra: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    startup_s: float = 90,
) -> Iterator[str]:
    """Yield the /mcp URL of `drivable serve TARGET --http --port N EXTRA...` once it accepts."""
    port = free_port()
    # --insecure: loopback test servers without a verifier, whose clients call every tool
    command = [*CLI, "serve", target, "--http", "--port", str(port), "--insecure", *extra]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=ROOT,  # MODULE:ATTR targets such as tests.conformance.fixture import from here
        )
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{target} exited: {log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{target} did not start in {startup_s} s")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
