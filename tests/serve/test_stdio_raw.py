"""stdout of a stdio server carries the protocol and nothing else: read raw, every line is JSON-RPC,
over pipes and over files (a shell's `< in > out`).

The calls include a handler that raises (the server logs it with a traceback) and rejected calls,
so a log line that strayed to stdout would show here. The traceback goes to stderr, for the operator.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from drivable.contract import envelope_of
from tests.serve.conftest import EXAMPLE, ROOT

BOUND = 60.0

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "search_notes", "arguments": {"query": "note", "date_from": "2026"}}),
    ("tools/call", {"name": "search_notes", "arguments": {"query": "", "date_form": "x"}}),
    ("tools/call", {"name": "check_failure", "arguments": {"flag": True}}),
    ("tools/call", {"name": "get_note", "arguments": {"note_id": "note_999"}}),
    ("tools/call", {"name": "no_such_tool", "arguments": {}}),
]

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
}


def _reader(stream: Any, lines: queue.Queue[bytes | None]) -> None:
    for line in iter(stream.readline, b""):
        lines.put(line)
    lines.put(None)


def exchange(messages: list[dict[str, Any]], expect_ids: set[int]) -> tuple[list[bytes], bytes]:
    """Send `messages` as lines, read stdout raw until every expected id answered; (lines, stderr)."""
    with tempfile.TemporaryFile() as errfile:
        return _exchange(messages, expect_ids, errfile)


def _exchange(
    messages: list[dict[str, Any]], expect_ids: set[int], errfile: Any
) -> tuple[list[bytes], bytes]:
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLE)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errfile,
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    raw: list[bytes] = []
    answered: set[int] = set()
    try:
        for message in messages:
            process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        deadline = time.monotonic() + BOUND
        while answered < expect_ids:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"no answer for ids {sorted(expect_ids - answered)}")
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                break
            raw.append(line)
            decoded = json.loads(line)
            if isinstance(decoded, dict) and isinstance(decoded.get("id"), int):
                answered.add(decoded["id"])
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        errfile.seek(0)
        err = errfile.read()
    while True:  # whatever else reached stdout before it closed
        try:
            line = lines.get_nowait()
        except queue.Empty:
            break
        if line is not None:
            raw.append(line)
    assert answered >= expect_ids, (answered, raw[-3:])
    return raw, err


def assert_only_protocol(raw: list[bytes]) -> list[dict[str, Any]]:
    decoded: list[dict[str, Any]] = []
    for line in raw:
        assert line.endswith(b"\n")
        message = json.loads(line)  # every line is JSON ...
        assert message.get("jsonrpc") == "2.0", line  # ... and JSON-RPC
        assert "method" in message or (
            "id" in message and ("result" in message or "error" in message)
        )
        decoded.append(message)
    return decoded


def handshake_era_messages(rounds: int = 1) -> list[dict[str, Any]]:
    """An initialize and its notification, then CALLS `rounds` times with ids from 1."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for i, (method, params) in enumerate(CALLS * rounds, start=1):
        messages.append({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    return messages


def test_handshake_era_stdout_is_only_protocol() -> None:
    raw, err = exchange(handshake_era_messages(), set(range(len(CALLS) + 1)))
    decoded = assert_only_protocol(raw)
    by_id = {m["id"]: m for m in decoded if "id" in m}
    assert by_id[0]["result"]["protocolVersion"] == "2025-11-25"
    failure = by_id[4]["result"]
    assert failure["isError"] is True
    assert "structuredContent" not in failure
    assert failure["_meta"]["dev.drivable/envelope"]["code"] == "internal_error"
    assert b"sqlite" not in b"".join(raw)
    # The failure was logged, to stderr, for the operator.
    assert b"check_failure" in err


def test_2026_era_stdout_is_only_protocol() -> None:
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": MODERN_META}}
    ]
    for i, (method, params) in enumerate(CALLS, start=1):
        messages.append(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": method,
                "params": {**params, "_meta": MODERN_META},
            }
        )
    raw, _ = exchange(messages, set(range(len(CALLS) + 1)))
    decoded = assert_only_protocol(raw)
    by_id = {m["id"]: m for m in decoded if "id" in m}
    assert "2026-07-28" in by_id[0]["result"]["supportedVersions"]
    assert by_id[2]["result"]["resultType"] == "complete"
    assert (envelope_of(by_id[3]["result"]) or {}).get("code") == "invalid_arguments"
    assert (envelope_of(by_id[5]["result"]) or {}).get("code") == "not_found"
    assert (envelope_of(by_id[6]["result"]) or {}).get("code") == "unknown_tool"


def test_a_server_reading_and_writing_files_answers_every_request(tmp_path: Path) -> None:
    """stdin and stdout as regular files (a shell's `< in > out`): the input ends at once, and
    every request read before its end is answered on stdout, nothing but the protocol there."""
    rounds = 5
    requests, answers = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    requests.write_text("".join(json.dumps(m) + "\n" for m in handshake_era_messages(rounds)))
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, str(EXAMPLE)],
            cwd=ROOT,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=BOUND,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    decoded = assert_only_protocol(answers.read_bytes().splitlines(keepends=True))
    by_id = {m["id"]: m for m in decoded if "id" in m}
    assert sorted(by_id) == list(range(rounds * len(CALLS) + 1))
    assert by_id[0]["result"]["protocolVersion"] == "2025-11-25"
    assert (envelope_of(by_id[4]["result"]) or {}).get("code") == "internal_error"
    assert (envelope_of(by_id[5]["result"]) or {}).get("code") == "not_found"
    assert (envelope_of(by_id[6]["result"]) or {}).get("code") == "unknown_tool"
