"""A task over stdio: the same extension on the other transport (no routing headers, the local
user as the caller), with the work running in the stdio server's own event loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.tasks.conftest import HERE, ROOT

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
    "io.modelcontextprotocol/clientInfo": {"name": "tasks-stdio", "version": "1"},
}


def test_a_task_runs_and_is_polled_over_stdio(tmp_path: Path) -> None:
    env = dict(os.environ, DRIVABLE_TASKS_STORE=str(tmp_path / "tasks.sqlite"))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    process = subprocess.Popen(
        [sys.executable, "-c", "from drivable.serve.command import main; main()", "tasks_app:make_contract"],
        cwd=HERE, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    ids = iter(range(1, 10_000))

    def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        request_id = next(ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method,
                   "params": {**params, "_meta": META}}  # fmt: skip
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        while True:
            line = json.loads(process.stdout.readline())
            if line.get("id") == request_id:
                return dict(line)

    try:
        created = request(
            "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.5, "label": "s"}}
        )
        task = created["result"]
        assert task["resultType"] == "task"
        deadline = time.monotonic() + 30
        while task["status"] != "completed" and time.monotonic() < deadline:
            time.sleep(0.1)
            task = request("tasks/get", {"taskId": created["result"]["taskId"]})["result"]
        assert task["status"] == "completed"
        assert task["result"]["structuredContent"]["label"] == "s"
        assert request("tasks/result", {"taskId": task["taskId"]})["error"]["code"] == -32601
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=15)
