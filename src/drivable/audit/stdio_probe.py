"""A raw stdio probe: read every byte a server writes to stdout, with no SDK in between.

The SDK's stdio client skips lines it cannot parse, so it would hide a server that logs to stdout.
Here we speak the handshake by hand (initialize, initialized, tools/list) and keep every line,
including what a buffered logger only flushes when the process exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StdoutReport:
    lines: int = 0
    noise: list[str] = field(default_factory=list)
    answered: bool = False
    error: str | None = None


def _message(i: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if i >= 0:
        msg["id"] = i
    if params is not None:
        msg["params"] = params
    return (json.dumps(msg) + "\n").encode()


def _json(line: str) -> dict[str, Any] | None:
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None


def _complete_lines(buffer: bytes) -> list[str]:
    """The complete lines received so far (the handshake needs only a few, so re-reading is cheap)."""
    return [raw.decode("utf-8", "replace").strip() for raw in buffer.split(b"\n")[:-1]]


def probe_stdout(
    command: Sequence[str],
    env: Mapping[str, str],
    *,
    cwd: str | None = None,
    timeout: float = 15.0,
) -> StdoutReport:
    report = StdoutReport()
    try:
        proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
        )
    except OSError as exc:
        report.error = f"could not start: {exc.strerror or type(exc).__name__}"
        return report
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "drivable-audit-stdout-probe", "version": "0"},
    }
    with contextlib.suppress(OSError):
        proc.stdin.write(_message(1, "initialize", init))
        proc.stdin.flush()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buffer = b""
    deadline = time.monotonic() + timeout
    sent_list = False
    settle_until: float | None = None
    os.set_blocking(proc.stdout.fileno(), False)
    try:
        while time.monotonic() < deadline:
            if settle_until is not None and time.monotonic() > settle_until:
                break
            if not sel.select(timeout=0.1):
                if proc.poll() is not None:
                    break
                continue
            chunk = proc.stdout.read(65536) or b""
            if not chunk:
                if proc.poll() is not None:
                    break
                continue
            buffer += chunk
            for line in _complete_lines(buffer):
                msg = _json(line)
                if msg is None:
                    continue
                if msg.get("id") == 1 and not sent_list:
                    sent_list = True
                    with contextlib.suppress(OSError):
                        proc.stdin.write(_message(-1, "notifications/initialized"))
                        proc.stdin.write(_message(2, "tools/list", {}))
                        proc.stdin.flush()
                elif msg.get("id") == 2:
                    report.answered = True
                    if settle_until is None:
                        settle_until = time.monotonic() + 0.3  # catch a trailing log line
    finally:
        sel.close()
        # communicate() closes stdin, so the server sees EOF and exits.
        # A buffered log line often reaches stdout only when the process exits: read to the end.
        os.set_blocking(proc.stdout.fileno(), True)
        try:
            rest, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, _ = proc.communicate(timeout=5)
        buffer += rest or b""
    for raw in buffer.split(b"\n"):
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        report.lines += 1
        msg = _json(line)
        if msg is None or msg.get("jsonrpc") != "2.0":
            report.noise.append(line[:200])
    return report
