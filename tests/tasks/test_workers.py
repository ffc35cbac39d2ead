"""Tasks across worker processes: started on one, polled, answered and cancelled on another, and a
worker killed mid-task (SIGKILL) leaves a clear terminal state, on PostgreSQL (two workers) and on
a SQLite file (one worker, restarted)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.effects.effects_pg import PostgresMissing, ensure_postgres, throwaway_schema
from tests.tasks.conftest import Worker, get, start_task, start_worker, until_terminal
from tests.tasks.tasks_app import ALICE, BOB
from tests.tasks.wire import RpcError, rpc


@pytest.fixture
def pg_store() -> Iterator[str]:
    # A real PostgreSQL (scripts/ensure-postgres.sh starts one from the project's own files);
    # missing, it is a failure, not a skip, unless DRIVABLE_PG=skip says to leave it out.
    if os.environ.get("DRIVABLE_PG") == "skip":
        pytest.skip("DRIVABLE_PG=skip")
    try:
        dsn = ensure_postgres()
    except PostgresMissing as missing:
        pytest.fail(str(missing))
    with throwaway_schema(dsn) as scoped:
        yield scoped


@pytest.fixture
def two_workers(tmp_path: Path, pg_store: str) -> Iterator[tuple[Worker, Worker]]:
    first = start_worker(tmp_path, pg_store)
    try:
        second = start_worker(tmp_path, pg_store)
    except BaseException:
        first.stop()
        raise
    yield first, second
    first.stop()
    second.stop()


def started(client: httpx2.Client, worker: Worker, tool: str, arguments: dict[str, object]) -> str:
    created = start_task(client, worker, tool, arguments, ALICE)
    assert created["status"] == "working"
    task_id: str = created["taskId"]
    return task_id


# Long enough that a kill after the first progress report lands mid-work even on a loaded
# machine (a poll can take seconds there); the restarted run does it all again.
WORK_S = 8


def wait_for_progress(client: httpx2.Client, worker: Worker, task_id: str) -> dict[str, object]:
    """Poll (on `worker`) until the task reports progress, so the kill lands mid-work."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        task = get(client, worker, task_id, token=ALICE)
        if "done" in str(task.get("statusMessage")) or "Worked" in str(task.get("statusMessage")):
            return task
        assert task["status"] not in ("completed", "failed", "cancelled"), (
            f"the task ended before any progress was seen, so nothing can be killed mid-work: {task}"
        )
        time.sleep(0.1)
    raise AssertionError("no progress was reported")


def test_postgres_a_task_started_on_one_worker_is_polled_answered_and_cancelled_on_the_other(
    two_workers: tuple[Worker, Worker], client: httpx2.Client
) -> None:
    first, second = two_workers
    # Polled elsewhere: the row is the truth, not the memory of the worker that started it.
    task_id = started(client, first, "slow_compute", {"seconds": 1, "label": "cross"})
    seen = get(client, second, task_id, token=ALICE)
    assert seen["taskId"] == task_id and seen["status"] in ("working", "completed")
    done, _ = until_terminal(client, second, task_id, ALICE)
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"]["label"] == "cross"
    # Another caller never sees it.
    with pytest.raises(RpcError) as refused:
        get(client, second, task_id, token=BOB)
    assert refused.value.code == -32602
    assert refused.value.data["machine_code"] == "not_found"
    # Input asked by the first worker, answered through the second.
    asking = started(client, first, "confirm_delete", {"filename": "x.txt"})
    deadline = time.monotonic() + 20
    task = get(client, second, asking, token=ALICE)
    while task["status"] != "input_required" and time.monotonic() < deadline:
        time.sleep(0.1)
        task = get(client, second, asking, token=ALICE)
    assert task["status"] == "input_required"
    [key] = task["inputRequests"]
    assert task["inputRequests"][key]["method"] == "elicitation/create"
    ack = rpc(
        client, second.url, "tasks/update",
        {"taskId": asking, "inputResponses": {key: {"action": "accept", "content": {"confirm": True}}}},
        token=ALICE,
    )  # fmt: skip
    assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
    answered, _ = until_terminal(client, first, asking, ALICE)
    assert answered["result"]["structuredContent"]["deleted"] is True
    # Cancelled through the second while the first runs it: the first stops within its watch.
    long = started(client, first, "slow_compute", {"seconds": 30, "label": "cancel"})
    rpc(client, second.url, "tasks/cancel", {"taskId": long}, token=ALICE)
    cancelled, _ = until_terminal(client, second, long, ALICE, timeout=10)
    assert cancelled["status"] == "cancelled"
    assert "result" not in cancelled


@pytest.mark.parametrize(
    ("tool", "status"),
    [("slow_compute", "completed"), ("count_slowly", "failed")],
    ids=["restarted", "failed"],
)
def test_postgres_a_worker_killed_mid_task_leaves_a_clear_terminal_state(
    two_workers: tuple[Worker, Worker], client: httpx2.Client, tool: str, status: str
) -> None:
    first, second = two_workers
    arguments: dict[str, object] = {"seconds": WORK_S}
    task_id = started(client, first, tool, arguments)
    wait_for_progress(client, second, task_id)
    first.kill()
    final, _ = until_terminal(client, second, task_id, ALICE, timeout=90)
    assert final["status"] == status
    if status == "completed":
        # Run again from the beginning on the surviving worker, and the answer says so.
        assert "attempt 2" in final["statusMessage"]
        assert final["result"]["isError"] is False
    else:
        # Not run again (the tool says a second run is not its to decide): a temporary failure.
        assert final["error"]["code"] == -32603
        data = final["error"]["data"]
        assert data["machine_code"] == "worker_lost" and data["temporary"] is True
        assert "count_slowly" in data["hint"]
        assert "result" not in final
    # Terminal states are final: a later poll answers the same.
    again = get(client, second, task_id, token=ALICE)
    assert again["status"] == status


def test_sqlite_tasks_survive_a_restart_and_a_killed_worker_ends_clearly(
    tmp_path: Path, client: httpx2.Client
) -> None:
    store = str(tmp_path / "tasks.sqlite")
    worker = start_worker(tmp_path, store)
    try:
        quick = started(client, worker, "slow_compute", {"seconds": 0.2, "label": "kept"})
        until_terminal(client, worker, quick, ALICE)
        restartable = started(client, worker, "slow_compute", {"seconds": WORK_S, "label": "again"})
        failing = started(client, worker, "count_slowly", {"seconds": WORK_S})
        wait_for_progress(client, worker, failing)
        worker.kill()
        worker = start_worker(tmp_path, store)
        # A finished task's result outlives the process.
        kept = get(client, worker, quick, token=ALICE)
        assert kept["status"] == "completed"
        assert kept["result"]["structuredContent"]["label"] == "kept"
        again, _ = until_terminal(client, worker, restartable, ALICE, timeout=90)
        assert again["status"] == "completed" and "attempt 2" in again["statusMessage"]
        lost, _ = until_terminal(client, worker, failing, ALICE)
        assert lost["status"] == "failed"
        assert lost["error"]["data"]["machine_code"] == "worker_lost"
    finally:
        worker.stop()


def test_postgres_a_worker_killed_while_waiting_for_input_fails_the_task_clearly(
    two_workers: tuple[Worker, Worker], client: httpx2.Client
) -> None:
    first, second = two_workers
    task_id = started(client, first, "confirm_delete", {"filename": "z.txt"})
    deadline = time.monotonic() + 20
    task = get(client, second, task_id, token=ALICE)
    while task["status"] != "input_required" and time.monotonic() < deadline:
        time.sleep(0.1)
        task = get(client, second, task_id, token=ALICE)
    [key] = task["inputRequests"]
    first.kill()
    final, _ = until_terminal(client, second, task_id, ALICE)
    assert final["status"] == "failed"
    assert final["error"]["data"]["machine_code"] == "worker_lost"
    # An answer to the dead worker's question changes nothing now.
    rpc(client, second.url, "tasks/update",
        {"taskId": task_id, "inputResponses": {key: {"action": "accept"}}}, token=ALICE)  # fmt: skip
    assert get(client, second, task_id, token=ALICE)["status"] == "failed"
