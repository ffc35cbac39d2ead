"""How fast is `drivable audit`? Static audit of 1,000 tools from a file; full audit with probes.

Every time is printed with a ratio to a baseline measured in the same run, on the same machine:
the fresh-process static audit against `python -c pass` and against a fresh process that only
imports the CLI; the full audit against a bare SDK session that lists the tools and calls each
once (the least any probing auditor does), and against the peer linter mcp-quality when it is
installed in var/thirdparty. Targets: static 1,000 tools < 5 s, full audit < 10 s. Reported, never
asserted in tests. To install the peer (its own venv, it pins other versions):
    python3 -m venv var/thirdparty/py-mcp-quality
    var/thirdparty/py-mcp-quality/bin/pip install mcp-quality
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from drivable.audit.runner import AuditOptions, audit_file, audit_target
from drivable.target import Target

ROOT = Path(__file__).resolve().parents[1]
CLEAN = ROOT / "tests" / "audit" / "servers" / "clean.py"
PEER = ROOT / "var" / "thirdparty" / "py-mcp-quality" / "bin" / "mcp-quality"
STATIC_TARGET_S = 5.0
FULL_TARGET_S = 10.0
NOUNS = [
    "invoice",
    "customer",
    "refund",
    "order",
    "note",
    "case",
    "court",
    "decision",
    "user",
    "file",
]
VERBS = [
    "get",
    "list",
    "search",
    "create",
    "update",
    "delete",
    "send",
    "archive",
    "export",
    "count",
]


def generated_tools(n: int = 1000) -> list[dict[str, Any]]:
    """A large catalog with the variety real ones have: closed and open schemas, enums, dates, ids."""
    tools = []
    for i in range(n):
        verb, noun = VERBS[i % len(VERBS)], NOUNS[(i // len(VERBS)) % len(NOUNS)]
        name = f"{verb}_{noun}_{i:04d}" if i % 7 else f"{verb}{noun.capitalize()}{i}"
        props: dict[str, Any] = {
            f"{noun}_id": {
                "type": "string",
                "description": f"Id from list_{noun}, e.g. {noun[:3]}_1.",
            },
            "status": {"type": "string", "description": "one of 'open', 'closed' or 'void'"},
            "date_from": {"type": "string", "format": "date" if i % 2 else None},
            "limit": {"type": "integer" if i % 3 else "number", "minimum": 1},
            "filters": {
                "type": "object",
                "properties": {"tag": {"type": "string"}, "owner_id": {"type": "string"}},
                **({"additionalProperties": False} if i % 4 else {}),
            },
        }
        props["date_from"] = {k: v for k, v in props["date_from"].items() if v is not None}
        schema = {"type": "object", "properties": props, "required": [f"{noun}_id"]}
        if i % 5:
            schema["additionalProperties"] = False
        tool: dict[str, Any] = {
            "name": name,
            "description": (
                f"{verb.capitalize()} a {noun}. Use when the user asks about one {noun}; returns "
                f"not_found if the id is unknown. Example: {name}({noun}_id='{noun[:3]}_1')."
            )
            if i % 6
            else f"{verb} {noun}",
            "inputSchema": schema,
        }
        if i % 3:
            tool["outputSchema"] = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            tool["annotations"] = {"readOnlyHint": verb in ("get", "list", "search", "count")}
        tools.append(tool)
    return tools


def bench_static(n: int = 1000) -> tuple[float, float, dict[str, Any]]:
    """First run (tokenizer and imports warm, encoder cold) and the best of three."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tools.json"
        path.write_text(json.dumps({"tools": generated_tools(n)}))
        times = []
        report = None
        for _ in range(3):
            start = time.perf_counter()
            report = audit_file(path)
            times.append(time.perf_counter() - start)
        assert report is not None
        return times[0], min(times), {"findings": len(report.findings), **report.target["surface"]}


def _fresh(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], capture_output=True, check=False)
    return time.perf_counter() - start


def bench_bare_session() -> float:
    """List the clean server's tools and call each once with no arguments, over the SDK."""
    import contextlib

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=[str(CLEAN)])
        async with Client(stdio_client(params), mode="legacy") as client:
            tools = await client.list_tools()
            for tool in tools.tools:
                with contextlib.suppress(Exception):
                    await client.call_tool(tool.name, {})

    start = time.perf_counter()
    anyio.run(run)
    return time.perf_counter() - start


def bench_cli_static(n: int = 1000) -> float:
    """The same, as a user runs it: a fresh process, imports included."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tools.json"
        path.write_text(json.dumps({"tools": generated_tools(n)}))
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from drivable.cli import main; main()",
                "audit",
                "--from-file",
                str(path),
                "--format",
                "json",
            ],
            capture_output=True,
            check=False,
        )
        return time.perf_counter() - start


def bench_full() -> tuple[float, dict[str, Any]]:
    target = Target(command=(sys.executable, str(CLEAN)))
    options = AuditOptions(allow_writes=True)
    start = time.perf_counter()
    report = anyio.run(lambda: audit_target(target, options))
    elapsed = time.perf_counter() - start
    return elapsed, {
        "findings": len(report.findings),
        "probe_calls": report.target["probes"]["calls"],
    }


def bench_peer() -> float | None:
    if not PEER.exists():
        return None
    start = time.perf_counter()
    done = subprocess.run(
        [str(PEER), "run", f"{sys.executable} {CLEAN}", "--json"],
        capture_output=True,
        check=False,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )
    elapsed = time.perf_counter() - start
    return elapsed if done.returncode in (0, 1) else None


def main() -> int:
    first_s, static_s, static_info = bench_static()
    print(
        f"static audit, 1000 tools from a file (in process): first {first_s:.2f} s, best of 3 "
        f"{static_s:.2f} s (target < {STATIC_TARGET_S:.0f} s); {static_info['findings']} findings, "
        f"{static_info['tools_list_bytes']} bytes / {static_info['tools_list_tokens']} tokens"
    )
    cli_s = bench_cli_static()
    bare_s = _fresh("-c", "pass")
    import_s = _fresh("-c", "import drivable.cli")
    print(
        f"static audit, 1000 tools, `drivable audit --from-file` in a fresh process: {cli_s:.2f} s "
        f"(target < {STATIC_TARGET_S:.0f} s) = {cli_s / bare_s:.1f}x `python -c pass` "
        f"({bare_s:.2f} s), {cli_s / import_s:.1f}x importing the CLI ({import_s:.2f} s)"
    )
    full_s, full_info = bench_full()
    session_s = bench_bare_session()
    print(
        f"full audit with probes of the clean test server over stdio, both eras: {full_s:.2f} s "
        f"(target < {FULL_TARGET_S:.0f} s); {full_info['probe_calls']} probe calls, "
        f"{full_info['findings']} findings; = {full_s / session_s:.1f}x a bare SDK session that "
        f"lists and calls each tool once ({session_s:.2f} s)"
    )
    peer_s = bench_peer()
    if peer_s is None:
        print("peer: mcp-quality not installed in var/thirdparty (or it failed): no ratio")
    else:
        print(
            f"peer: mcp-quality run on the same server: {peer_s:.2f} s; drivable/peer = {full_s / peer_s:.2f}"
        )
    return 0 if first_s < STATIC_TARGET_S and full_s < FULL_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
