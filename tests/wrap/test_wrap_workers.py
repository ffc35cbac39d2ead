"""`drivable wrap --http --workers 2`: each worker runs its own upstream, and the store they share
holds the receipts and the tokens, so a retry or a confirmation answered by the other worker still
reaches the upstream once (read from the upstream's own log)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio

from drivable.target import Target, connect
from tests.serve.conftest import HttpServer, _wait_listening, free_port, stop_http
from tests.serve.processes import listening_workers, paused, serving
from tests.wrap.conftest import calls_logged, ok, own_upstream, wrap_command

BOUND = 60.0
NOTES = 3


def _upstreams(worker: int) -> list[int]:
    """The upstream processes a worker started (its children running the upstream's script)."""
    found = []
    for task in Path(f"/proc/{worker}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"upstream_server.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(int(child))
    return found


@contextlib.contextmanager
def _only(worker: int, workers: list[int]) -> Iterator[None]:
    """Every worker but `worker` paused: the next connection is `worker`'s."""
    with contextlib.ExitStack() as stack:
        for other in workers:
            if other != worker:
                stack.enter_context(paused(other))
        yield


async def test_two_workers_share_receipts_and_tokens_and_run_an_upstream_each(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    port = free_port()
    command = wrap_command(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)})
    split = command.index("--")
    served = [*command[:split], "--http", "--workers", "2", "--insecure", "--port", str(port)]
    server_log = tmp_path / "wrap.log"
    with server_log.open("w") as sink:
        process = subprocess.Popen(
            [*served, *command[split:]], cwd=tmp_path, stdout=sink, stderr=sink
        )
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", port, process, server_log)
    try:
        _wait_listening(port, process, server_log)
        assert "(2 workers, receipts in sqlite:///" in server_log.read_text()
        workers = listening_workers(process.pid, BOUND)
        assert len(workers) == 2

        async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], int]:
            """The result, and the worker that answered (a fresh connection per call)."""
            with anyio.fail_after(BOUND):
                async with connect(Target(url=server.url)) as client:
                    result = await ok(client, tool, arguments)
                    (worker,) = serving(workers, port)
            return result, worker

        # Each worker's upstream gets the same notes, n1 to n3, created through that worker.
        created: dict[str, tuple[dict[str, Any], int]] = {}
        for i in range(NOTES):
            for worker in workers:
                key = f"note-{worker}-{i}"
                with _only(worker, workers):
                    created[key] = await call(
                        "create_note", {"title": f"note {i}", "idempotency_key": key}
                    )
                assert created[key][1] == worker
        # The same create sent again, to the worker that did not make it: the receipt answers.
        for key, (first, maker) in created.items():
            with paused(maker):
                again, by = await call(
                    "create_note", {"title": first["result"]["title"], "idempotency_key": key}
                )
            assert by != maker and again["result"] == first["result"]
            assert any("nothing ran again" in note for note in again["notes"])
        # A confirm token issued by one worker is spent by the other.
        for number in range(1, NOTES + 1):
            preview, issuer = await call("delete_note", {"note_id": f"n{number}", "dry_run": True})
            with paused(issuer):
                done, checker = await call("delete_note", preview["next_call"]["arguments"])
            assert checker != issuer and done["text"] == "deleted", done
        upstreams = {worker: _upstreams(worker) for worker in workers}
    finally:
        stop_http(server)
    assert all(len(found) == 1 for found in upstreams.values()), upstreams
    tools = [c["tool"] for c in calls_logged(log)]
    # every keyed create reached an upstream once, every confirmed delete once, no preview did
    assert tools.count("create_note") == NOTES * 2 and tools.count("delete_note") == NOTES


def test_workers_without_http_are_refused_before_the_upstream_starts(tmp_path: Path) -> None:
    command = wrap_command(own_upstream(), tmp_path)
    split = command.index("--")
    run = subprocess.run(
        [*command[:split], "--workers", "2", *command[split:]],
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )
    assert run.returncode == 2
    assert "drivable wrap: --verifier, --workers and --insecure apply to --http only" in run.stderr
    assert "Traceback" not in run.stderr
