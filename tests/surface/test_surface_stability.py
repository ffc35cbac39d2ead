"""Snapshots are byte-for-byte stable; the fingerprint is the one the server itself would publish."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivable.surface import fingerprint, snapshot
from drivable.surface.diff import diff
from tests.cli import CLI
from tests.surface.surface_cases import specs
from tests.surface.surface_helpers import server_cmd, take, write_spec

REFUNDS = server_cmd("refunds_server.py")


def test_same_server_same_bytes_twice_and_across_eras() -> None:
    first = snapshot.dumps(take(REFUNDS))
    second = snapshot.dumps(take(REFUNDS))
    legacy = snapshot.dumps(take(REFUNDS, mode="legacy"))
    assert first == second
    assert first == legacy  # the 2025 handshake era sees the same surface, byte for byte
    assert json.loads(first)["capability_summary"]["does"]  # the summary resource was read


def test_v2_surface_is_stable_across_eras_too() -> None:
    env = {"REFUNDS_VERSION": "2"}
    modern = snapshot.dumps(take(REFUNDS, env))
    assert modern == snapshot.dumps(take(REFUNDS, env, "legacy"))
    assert json.loads(modern)["error_codes"][0]["code"] == "ROLE_FORBIDDEN"


def test_file_round_trip_keeps_bytes_and_fingerprint(tmp_path: Path) -> None:
    snap = take(REFUNDS)
    path = tmp_path / "surface.json"
    path.write_text(snapshot.dumps(snap), encoding="utf-8")
    loaded = snapshot.load(str(path))
    assert snapshot.dumps(loaded) == path.read_text(encoding="utf-8")
    assert fingerprint.compute(loaded).value == snap["fingerprint"]["value"]
    assert diff(loaded, snap) == []


def test_server_publishing_its_fingerprint_agrees_and_is_not_moved_by_it(spec_cmd: Any) -> None:
    v1, _ = specs()
    v1["summary"] = {"server": {"name": "cases"}, "does": ["everything"]}
    quiet = take(spec_cmd(v1))
    published = copy.deepcopy(v1)
    published["publish_fingerprint"] = True
    loud = take(spec_cmd(published))
    # the server computed its own fingerprint with the same pure function, before publishing it
    assert loud["published_fingerprint"] == loud["fingerprint"]["value"]
    assert loud["capability_summary"]["server"]["fingerprint"] == loud["fingerprint"]["value"]
    # publishing it (in discover, in every tool's _meta, in the summary) does not change it
    assert loud["fingerprint"]["value"] == quiet["fingerprint"]["value"]
    assert loud["fingerprint"]["value"].startswith("cases@1.0.0+")


def test_fingerprint_covers_what_it_says() -> None:
    v1, _ = specs()
    base = snapshot.canonical(_collected(v1))
    fp = fingerprint.compute(base)
    assert fp.covers == [
        "tools",
        "resources",
        "resource_templates",
        "prompts",
        "completion_support",
        "subscription_support",
        "error_codes",
        "summary",
    ]
    assert base["fingerprint"] == {"value": fp.value, "covers": fp.covers}
    # a server may hand its own lists, not canonical yet: the same value
    assert fingerprint.compute(_collected(v1)) == fp
    mutations: dict[str, Callable[[dict[str, Any]], object]] = {
        "tool description": lambda s: s["tools"][0].__setitem__("description", "other"),
        "resource": lambda s: s["resources"].clear(),
        "template": lambda s: s["resource_templates"][0].__setitem__("mimeType", "x"),
        "prompt": lambda s: s["prompts"][0].__setitem__("description", "other"),
        "completions": lambda s: s.__setitem__("completion_support", True),
        "subscriptions": lambda s: s.__setitem__("subscription_support", True),
        "error code": lambda s: s["error_codes"].pop(),
        "instructions": lambda s: s.__setitem__("instructions", "other"),
        "summary": lambda s: s.__setitem__("capability_summary", {"does": []}),
    }
    for label, mutate in mutations.items():
        changed = copy.deepcopy(base)
        mutate(changed)
        assert fingerprint.compute(changed).value != fp.value, label
    same = copy.deepcopy(base)
    same["published_fingerprint"] = "cases@1.0.0+0123456789abcdef"
    same["tools"][0]["description"] += " (surface cases@1.0.0+0123456789abcdef)"
    base2 = copy.deepcopy(base)
    base2["tools"][0]["description"] += " (surface <fingerprint>)"
    assert fingerprint.compute(same).value == fingerprint.compute(base2).value


def test_fingerprint_format_is_pinned() -> None:
    """[9.fingerprint-format]: the same surface gives this exact value in every release."""
    surface = snapshot.canonical(
        {
            "server": {"name": "pin", "version": "1.2.3"},
            "tools": [
                {
                    "name": "echo",
                    "description": "Echo the text back.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"],
                    },
                }
            ],
        }
    )
    assert surface["fingerprint"]["value"] == PINNED


PINNED = "pin@1.2.3+c8291721ba488257"  # algorithm 1; a change here is a new ALGORITHM


def _collected_canonical(spec: dict[str, Any]) -> dict[str, Any]:
    return snapshot.canonical(_collected(spec))


def _collected(spec: dict[str, Any]) -> dict[str, Any]:
    from tests.surface.surface_cases import collected_from_spec

    return collected_from_spec(spec)


def test_snapshot_file_is_what_the_cli_writes(tmp_path: Path, spec_cmd: Any) -> None:
    import subprocess

    v1, _ = specs()
    cmd = spec_cmd(v1)
    out = tmp_path / "s.json"
    proc = subprocess.run(
        [
            *CLI,
            "snapshot",
            "-o",
            str(out),
            "--",
            *cmd,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == snapshot.dumps(_collected_canonical(v1))
    assert "server env passed" in proc.stderr
    _ = write_spec  # the helper is shared with other tests


def test_same_bytes_over_streamable_http(tmp_path: Path) -> None:
    """The snapshot is of the server, not of the transport: HTTP gives the stdio bytes."""
    import shlex
    import socket
    import subprocess
    import time

    import anyio

    from drivable.target import Target

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = (tmp_path / "http.log").open("w")
    proc = subprocess.Popen([*REFUNDS, "--http", str(port)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                assert proc.poll() is None, (tmp_path / "http.log").read_text()
                time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/mcp"
        over_http = anyio.run(snapshot.take, Target(url=url))
        proc_diff = subprocess.run(
            [
                *CLI,
                "diff",
                url,
                shlex.join(REFUNDS),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
    assert snapshot.dumps(over_http) == snapshot.dumps(take(REFUNDS))
    assert proc_diff.returncode == 0, proc_diff.stderr
    assert "no change an agent can see" in proc_diff.stdout
    assert "old: http" in proc_diff.stderr
