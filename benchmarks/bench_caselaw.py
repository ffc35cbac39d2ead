"""The caselaw server: build time, search latency in process and over HTTP, and tools/list size.

- build: generating the 5,000 decisions into a fresh SQLite file (FTS5 index included).
- search latency: 1,000 mixed search_decisions calls (text, court spellings, date ranges, ELI,
  locale, subject, detail, paging), each through the whole pipeline (kinds, handler, envelope), in
  process (`Contract.call`) and over streamable HTTP (the SDK client against
  `drivable serve caselaw --http`). Median and p95 in milliseconds. Target: in-process p95 <= 50 ms.
- tools/list: the serialized catalog as a client receives it, in bytes and in o200k tokens (the
  offline tokenizer the auditor uses).

    python -m benchmarks.bench_caselaw [--queries 1000] [--no-http]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from drivable.audit.tokens import count_json
from drivable.servers.caselaw import server
from drivable.servers.caselaw.server import Handle
from drivable.servers.caselaw.store import Store

P95_TARGET_MS = 50.0
WORDS = [
    "náhrada škody", "nahrada skody", "výpověď", "daň", "osobních údajů", "azyl", "podvod",
    "consumer credit", "personal data", "fair trial", "Schadensersatz", "clause abusive",
    "odszkodowanie", "smluvní pokuta", "insolvenční", "stavební povolení", "VAT", "cartel",
]  # fmt: skip
COURTS = ["Nejvyssi soud", "NS", "supreme court", "NSS", "ÚS", "BGH", "CJEU", "Cour de cassation"]


def mixed_queries(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    queries: list[dict[str, Any]] = []
    for _ in range(count):
        args: dict[str, Any] = {}
        if rng.random() < 0.8:
            args["query"] = rng.choice(WORDS)
        if rng.random() < 0.4:
            args["court"] = rng.choice(COURTS)
        if rng.random() < 0.3:
            args["date_from"] = str(rng.randint(2010, 2024))
        if rng.random() < 0.2:
            args["date_to"] = "1. 10. 2026"
        if rng.random() < 0.15:
            args["eli"] = rng.choice(["89/2012 Sb.", "Regulation (EU) 2016/679"])
        if rng.random() < 0.15:
            args["locale"] = rng.choice(["cs_CZ", "en", "de"])
        if rng.random() < 0.15:
            args["subject"] = rng.choice(["civil", "tax", "data_protection", "criminal"])
        if rng.random() < 0.3:
            args["detail"] = "full"
        args["limit"] = rng.choice([5, 10, 20, "4 000"])
        queries.append(args)
    return queries


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


async def in_process(db: Path, queries: list[dict[str, Any]]) -> tuple[list[float], int]:
    async with server.contract.started(handle=Handle(db)) as contract:
        await contract.call("search_decisions", {"query": "soud"})  # warm: kinds, connection
        timings: list[float] = []
        errors = 0
        for args in queries:
            start = time.perf_counter()
            out = await contract.call("search_decisions", args)
            timings.append((time.perf_counter() - start) * 1000)
            errors += out.is_error
    return timings, errors


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def over_http(db: Path, queries: list[dict[str, Any]]) -> tuple[list[float], int, Any]:
    from drivable.target import Target, collect_surface, connect

    port = _free_port()
    env = dict(os.environ, DRIVABLE_CASELAW_DB=str(db))
    command = [sys.executable, "-c", "from drivable.cli import main; main()", "serve", "caselaw"]
    process = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        target = Target(url=f"http://127.0.0.1:{port}/mcp")
        async with connect(target, mode="auto") as client:
            surface = await collect_surface(client)
            await client.call_tool("search_decisions", {"query": "soud"})
            timings: list[float] = []
            errors = 0
            for args in queries:
                start = time.perf_counter()
                result = await client.call_tool("search_decisions", args)
                timings.append((time.perf_counter() - start) * 1000)
                errors += bool(result.is_error)
        return timings, errors, surface
    finally:
        process.terminate()
        process.wait(timeout=15)


async def tools_list_size(db: Path) -> tuple[int, int]:
    from drivable.serve import build_server
    from drivable.target import Target, connect

    async with (
        server.contract.started(handle=Handle(db)) as contract,
        connect(Target(server=build_server(contract)), mode="auto") as c,
    ):
        listed = await c.list_tools()
    wire = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(wire, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode()), count_json(wire)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--no-http", action="store_true")
    options = parser.parse_args(argv if argv is not None else [])
    queries = mixed_queries(options.queries)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "caselaw.sqlite"
        start = time.perf_counter()
        store = Store.open(db)
        built = time.perf_counter() - start
        print(
            f"build: {store.count()} decisions in {built:.2f} s "
            f"({db.stat().st_size / 1e6:.1f} MB SQLite with FTS5)"
        )
        timings, errors = asyncio.run(in_process(db, queries))
        median, p95 = percentiles(timings)
        ok = p95 <= P95_TARGET_MS
        print(
            f"search in process: {len(queries)} mixed queries, median {median:.2f} ms, "
            f"p95 {p95:.2f} ms (target p95 <= {P95_TARGET_MS:.0f} ms: "
            f"{'met' if ok else 'MISSED'}); {errors} envelopes"
        )
        if not options.no_http:
            timings, errors, _ = asyncio.run(over_http(db, queries))
            median, p95 = percentiles(timings)
            print(
                f"search over HTTP (1 worker, 2026-07-28 era): median {median:.2f} ms, "
                f"p95 {p95:.2f} ms; {errors} envelopes"
            )
        size, tokens = asyncio.run(tools_list_size(db))
        print(f"tools/list: 3 tools, {size} bytes, {tokens} tokens (o200k_base)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
