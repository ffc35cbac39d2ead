"""caselaw's long-running tool as a task over HTTP: the tally of a whole result set agrees with
what search_decisions says of the same query, and a cancel stops it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.tasks.conftest import ROOT, Worker, free_port
from tests.tasks.wire import rpc


@pytest.fixture(scope="module")
def caselaw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    tmp = tmp_path_factory.mktemp("caselaw")
    port = free_port()
    log = tmp / "caselaw.log"
    env = dict(os.environ, DRIVABLE_EFFECTS_DB=str(tmp / "effects.sqlite"))
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", "from drivable.serve.command import main; main()",
             "caselaw", "--http", "--port", str(port)],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip
    worker = Worker(f"http://127.0.0.1:{port}/mcp", process, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            assert process.poll() is None, Path(log).read_text()[-2000:]
            time.sleep(0.2)
    yield worker
    worker.stop()


def test_the_summary_of_a_whole_result_set_matches_the_search(
    caselaw: Worker, client: httpx2.Client
) -> None:
    arguments = {"query": "náhrada škody", "date_from": "2018"}
    created = rpc(
        client, caselaw.url, "tools/call", {"name": "summarize_decisions", "arguments": arguments}
    )
    assert created["resultType"] == "task" and created["pollIntervalMs"] == 1_000
    deadline = time.monotonic() + 60
    task = created
    while task["status"] != "completed" and time.monotonic() < deadline:
        time.sleep(0.1)
        task = rpc(client, caselaw.url, "tasks/get", {"taskId": created["taskId"]})
    assert task["status"] == "completed", task
    summary = task["result"]["structuredContent"]
    search = rpc(client, caselaw.url, "tools/call",
                 {"name": "search_decisions", "arguments": {**arguments, "limit": 1}})  # fmt: skip
    assert summary["matched"] == summary["read"] == search["structuredContent"]["total"]
    assert sum(c["decisions"] for c in summary["by_court"]) == summary["matched"]
    assert sum(c["decisions"] for c in summary["by_year"]) == summary["matched"]
    assert all(c["value"] >= "2018" for c in summary["by_year"])
    # Without the extension the same call blocks and answers the same tally.
    blocked = rpc(client, caselaw.url, "tools/call",
                  {"name": "summarize_decisions", "arguments": arguments}, tasks=False)  # fmt: skip
    assert blocked["structuredContent"] == summary
