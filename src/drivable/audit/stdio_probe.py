"""A raw stdio probe: read every byte a server writes to stdout, with no SDK in between.

The SDK's stdio client skips lines it cannot parse, so it would hide a server that logs to stdout.
Here we speak the handshake by hand (initialize, initialized, tools/list) and keep every line,
including what a buffered logger only flushes when the process exits.

The same handshake also serves the audit as a second client, at no extra start of the server: it
speaks the handshake era (2025-11-25) and may declare client capabilities (`DECLARATIONS`), pages
through tools/list, and answers what the server asks back (no roots, no sampling, a declined form),
so the audit learns what a capable client of that era is listed without launching the server again.
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

# What each client capability is declared as in `initialize` (2025-11-25). `tasks` declares that the
# client runs the server's sampling and elicitation requests as tasks, the form servers check for.
DECLARATIONS: dict[str, dict[str, Any]] = {
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
    "roots": {"listChanged": False},
    "tasks": {"requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}},
}
HANDSHAKE_ERA = "2025-11-25"
MAX_PAGES = 1000


@dataclass
class StdoutReport:
    lines: int = 0
    noise: list[str] = field(default_factory=list)
    answered: bool = False  # the first tools/list page came back
    error: str | None = None
    protocol_version: str | None = None  # what the server answered to `initialize`
    tools: list[dict[str, Any]] | None = None  # every page, or None if a page failed or was missing


def _answer(request: dict[str, Any]) -> bytes:
    """The probe's reply to a request the server sends it: it has no roots, runs no model and
    fills no form; anything else is unknown to it."""
    method = request.get("method")
    result: dict[str, Any] | None
    if method == "roots/list":
        result = {"roots": []}
    elif method == "elicitation/create":
        result = {"action": "decline"}
    elif method == "ping":
        result = {}
    else:
        result = None
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
    if result is None:
        msg["error"] = {"code": -32601, "message": "the auditing client does not serve this"}
    else:
        msg["result"] = result
    return (json.dumps(msg) + "\n").encode()


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
    capabilities: Sequence[str] = (),
) -> StdoutReport:
    """Start `command`, speak the handshake declaring `capabilities` (names in DECLARATIONS), list
    every page of tools, and report every line the server wrote to stdout."""
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
        "protocolVersion": HANDSHAKE_ERA,
        "capabilities": {name: DECLARATIONS[name] for name in capabilities},
        "clientInfo": {"name": "drivable-audit-stdout-probe", "version": "0"},
    }
    with contextlib.suppress(OSError):
        proc.stdin.write(_message(1, "initialize", init))
        proc.stdin.flush()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buffer = b""
    deadline = time.monotonic() + timeout
    seen = 0  # complete lines already handled
    page_id = 1  # the id of the request whose answer is awaited (1: initialize)
    tools: list[dict[str, Any]] = []
    settle_until: float | None = None
    os.set_blocking(proc.stdout.fileno(), False)

    def send(*messages: bytes) -> None:
        with contextlib.suppress(OSError):
            for message in messages:
                proc.stdin.write(message)  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]

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
            lines = _complete_lines(buffer)
            for line in lines[seen:]:
                msg = _json(line)
                if msg is None:
                    continue
                if "method" in msg and "id" in msg:  # the server asks the client something
                    send(_answer(msg))
                    continue
                if msg.get("id") != page_id or settle_until is not None:
                    continue
                if page_id == 1:
                    version = (msg.get("result") or {}).get("protocolVersion")
                    report.protocol_version = version if isinstance(version, str) else None
                    page_id = 2
                    send(_message(-1, "notifications/initialized"), _message(2, "tools/list", {}))
                    continue
                report.answered = True
                result = msg.get("result")
                page = result.get("tools") if isinstance(result, dict) else None
                cursor = result.get("nextCursor") if isinstance(result, dict) else None
                if isinstance(page, list):
                    tools.extend(t for t in page if isinstance(t, dict))
                    more = isinstance(cursor, str) and bool(cursor)
                    if more and page_id - 1 < MAX_PAGES:
                        page_id += 1
                        send(_message(page_id, "tools/list", {"cursor": cursor}))
                        continue
                    if not more:  # the last page: the list is complete
                        report.tools = tools
                settle_until = time.monotonic() + 0.3  # catch a trailing log line
            seen = len(lines)
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
