"""What a client (and the model behind it) sees of a task tool on the wire, one worker on SQLite:
negotiation, the handle, idempotency, timeouts, expiry, ownership, routing headers."""

from __future__ import annotations

import json
import string
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract.envelope import envelope_of
from tests.tasks.conftest import Worker, call, get, start_task, start_worker, until_terminal
from tests.tasks.tasks_app import ALICE, BOB, READER
from tests.tasks.wire import RpcError, rpc


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    tmp = tmp_path_factory.mktemp("tasks")
    running = start_worker(tmp, str(tmp / "tasks.sqlite"))
    yield running
    running.stop()


def test_discover_advertises_the_extension_and_tools_list_states_the_declaration(
    worker: Worker, client: httpx2.Client
) -> None:
    discovered = rpc(client, worker.url, "server/discover", token=ALICE)
    assert discovered["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"] == {}
    assert "tasks" not in discovered["capabilities"]
    tools = {t["name"]: t for t in rpc(client, worker.url, "tools/list", token=ALICE)["tools"]}
    slow = tools["slow_compute"]
    assert slow["_meta"]["dev.drivable/task"]["support"] == "optional"
    assert slow["_meta"]["dev.drivable/task"]["timeout_ms"] == 90_000
    assert "stopped after 90 s" in slow["description"]
    assert "dev.drivable/task" not in tools["greet"]["_meta"]


def test_without_the_extension_a_task_tool_blocks_or_is_refused(
    worker: Worker, client: httpx2.Client
) -> None:
    blocked = call(
        client, worker, "slow_compute", {"seconds": 0.3, "label": "b"}, token=ALICE, tasks=False
    )
    assert blocked["resultType"] == "complete" and "taskId" not in blocked
    assert blocked["structuredContent"]["label"] == "b"
    with pytest.raises(RpcError) as refused:
        call(client, worker, "failing_job", {}, token=ALICE, tasks=False)
    assert refused.value.code == -32021
    assert refused.value.data["requiredCapabilities"] == {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }
    for method in ("tasks/get", "tasks/cancel"):
        with pytest.raises(RpcError) as gated:
            rpc(client, worker.url, method, {"taskId": "x"}, token=ALICE, tasks=False)
        assert gated.value.code == -32021


def test_the_handle_is_flat_durable_and_bound_to_its_caller(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "slow_compute", {"seconds": 0.5, "label": "h"}, ALICE)
    assert created["resultType"] == "task"
    assert {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= set(
        created
    )
    assert not {"result", "error", "inputRequests", "requestState", "task"} & set(created)
    assert created["pollIntervalMs"] == 1_000 and isinstance(created["ttlMs"], int)
    assert len(created["taskId"]) >= 32
    task = get(client, worker, created["taskId"], token=ALICE)
    assert task["resultType"] == "complete" and task["taskId"] == created["taskId"]
    for method in ("tasks/get", "tasks/cancel"):
        with pytest.raises(RpcError) as other:
            rpc(client, worker.url, method, {"taskId": created["taskId"]}, token=BOB)
        assert other.value.code == -32602
    with pytest.raises(RpcError) as routed:
        rpc(client, worker.url, "tasks/get", {"taskId": created["taskId"]}, token=ALICE,
            headers={"Mcp-Name": "another-task"})  # fmt: skip
    assert routed.value.code == -32020
    done, _ = until_terminal(client, worker, created["taskId"], ALICE)
    assert done["status"] == "completed" and "Finished after" in done["statusMessage"]


def test_a_retried_call_with_the_same_idempotency_key_is_the_same_task(
    worker: Worker, client: httpx2.Client
) -> None:
    arguments = {"text": "once", "seconds": 0.5, "idempotency_key": f"k-{time.time_ns()}"}
    first = start_task(client, worker, "add_entry", arguments, ALICE)
    second = start_task(client, worker, "add_entry", arguments, ALICE)
    assert second["taskId"] == first["taskId"]
    done, _ = until_terminal(client, worker, first["taskId"], ALICE)
    again = call(client, worker, "add_entry", arguments, token=ALICE)
    assert again["taskId"] == first["taskId"] and again["status"] == "completed"
    changed = call(client, worker, "add_entry", {**arguments, "text": "twice"}, token=ALICE)
    assert changed["isError"] is True
    refused = envelope_of(changed) or {}
    assert refused["code"] == "idempotency_mismatch"
    # its repair starts the changed call as a task of its own, under a key of its own
    repair = refused["repair"]
    assert repair["arguments"]["text"] == "twice"
    assert repair["arguments"]["idempotency_key"] != arguments["idempotency_key"]
    started = start_task(client, worker, repair["tool"], repair["arguments"], ALICE)
    assert started["taskId"] != first["taskId"]
    assert (
        start_task(client, worker, repair["tool"], repair["arguments"], ALICE)["taskId"]
        == (started["taskId"])
    )
    # Another caller's key is another key.
    theirs = start_task(client, worker, "add_entry", arguments, BOB)
    assert theirs["taskId"] != first["taskId"]
    assert done["result"]["structuredContent"]["entries"] >= 1


def test_a_caller_without_the_write_scope_is_refused_at_once_never_given_a_task(
    worker: Worker, client: httpx2.Client
) -> None:
    arguments = {"text": "nope", "idempotency_key": f"r-{time.time_ns()}"}
    refused = call(client, worker, "add_entry", arguments, token=READER)
    assert refused["isError"] is True and "taskId" not in refused
    envelope = envelope_of(refused) or {}
    assert envelope["code"] == "insufficient_scope"
    assert "drivable-tasks-tests:write" in json.dumps(envelope)
    # The same credential may still run a read-only long-running tool as a task.
    created = start_task(client, worker, "count_slowly", {"seconds": 0}, READER)
    done, _ = until_terminal(client, worker, created["taskId"], READER)
    assert done["status"] == "completed"


def test_a_task_over_its_timeout_completes_with_the_timeout_envelope(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "count_overtime", {"seconds": 5}, ALICE)
    done, _ = until_terminal(client, worker, created["taskId"], ALICE, timeout=15)
    assert done["status"] == "completed" and done["result"]["isError"] is True
    envelope = envelope_of(done["result"]) or {}
    assert envelope["code"] == "task_timeout" and envelope["temporary"] is True
    blocked = call(client, worker, "count_overtime", {"seconds": 5}, token=ALICE, tasks=False)
    assert (envelope_of(blocked) or {})["code"] == "task_timeout"


def test_after_its_ttl_a_task_answers_with_what_to_do(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "count_briefly", {"seconds": 0}, ALICE)
    done, _ = until_terminal(client, worker, created["taskId"], ALICE)
    assert done["status"] == "completed"
    time.sleep(1.3)
    with pytest.raises(RpcError) as expired:
        get(client, worker, created["taskId"], token=ALICE)
    assert expired.value.code == -32602
    data = expired.value.data
    assert data["machine_code"] == "task_expired"
    assert data["repair"] == {
        "next_step": "run_again",
        "tool": "count_briefly",
        "arguments": {"seconds": 0},
    }


def test_an_answer_to_a_question_never_asked_is_ignored(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "confirm_delete", {"filename": "y.txt"}, ALICE)
    task_id = created["taskId"]
    deadline = time.monotonic() + 10
    task = get(client, worker, task_id, token=ALICE)
    while task["status"] != "input_required" and time.monotonic() < deadline:
        time.sleep(0.05)
        task = get(client, worker, task_id, token=ALICE)
    rpc(
        client,
        worker.url,
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"nope": {}}},
        token=ALICE,
    )
    still = get(client, worker, task_id, token=ALICE)
    assert still["status"] == "input_required" and list(still["inputRequests"]) == list(
        task["inputRequests"]
    )
    [key] = still["inputRequests"]
    rpc(client, worker.url, "tasks/update",
        {"taskId": task_id, "inputResponses": {key: {"action": "decline"}}}, token=ALICE)  # fmt: skip
    done, _ = until_terminal(client, worker, task_id, ALICE)
    assert done["result"]["structuredContent"]["deleted"] is False


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=1, max_size=48))
def test_an_invented_task_id_is_not_found_never_a_task(
    worker: Worker, client: httpx2.Client, task_id: str
) -> None:
    with pytest.raises(RpcError) as unknown:
        get(client, worker, task_id, token=ALICE)
    assert unknown.value.code == -32602
    assert unknown.value.data["machine_code"] == "not_found"


def test_a_listen_stream_pushes_each_change_of_the_followed_tasks(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "slow_compute", {"seconds": 0.6, "label": "pushed"}, ALICE)
    theirs = start_task(client, worker, "slow_compute", {"seconds": 0, "label": "bob"}, BOB)
    events: list[dict[str, object]] = []
    final = rpc(
        client, worker.url, "subscriptions/listen",
        {"notifications": {"taskIds": [created["taskId"], theirs["taskId"], "made-up"]}},
        token=ALICE, events=events,
    )  # fmt: skip
    ack, *pushes = [e for e in events if "method" in e]
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [created["taskId"]]}  # type: ignore[index]
    assert pushes and all(p["method"] == "notifications/tasks" for p in pushes)
    statuses = [p["params"]["status"] for p in pushes]  # type: ignore[index]
    assert statuses[-1] == "completed" and statuses.count("completed") == 1
    last = pushes[-1]["params"]
    assert last["taskId"] == created["taskId"]  # type: ignore[index]
    assert last["result"]["structuredContent"]["label"] == "pushed"  # type: ignore[index]
    assert (
        final["_meta"]["io.modelcontextprotocol/subscriptionId"]
        == ack["params"]["_meta"][  # type: ignore[index]
            "io.modelcontextprotocol/subscriptionId"
        ]
    )
    with pytest.raises(RpcError) as undeclared:
        rpc(client, worker.url, "subscriptions/listen",
            {"notifications": {"taskIds": [created["taskId"]]}}, token=ALICE, tasks=False)  # fmt: skip
    assert undeclared.value.code == -32021


def test_after_its_result_expired_the_same_keyed_call_is_a_new_task_that_applies_nothing_again(
    worker: Worker, client: httpx2.Client
) -> None:
    arguments = {"text": "memo", "idempotency_key": f"m-{time.time_ns()}"}
    first = start_task(client, worker, "add_memo", arguments, ALICE)
    done, _ = until_terminal(client, worker, first["taskId"], ALICE)
    time.sleep(1.3)
    again = call(client, worker, "add_memo", arguments, token=ALICE)
    assert again["resultType"] == "task" and again["taskId"] != first["taskId"]
    replayed, _ = until_terminal(client, worker, again["taskId"], ALICE)
    # The receipt answered: the same result, and the effect did not run a second time.
    assert (
        replayed["result"]["structuredContent"]["entries"]
        == done["result"]["structuredContent"]["entries"]
    )
    assert any("Replayed" in n for n in replayed["result"]["structuredContent"].get("notes", []))


def test_two_questions_at_once_are_answered_one_at_a_time(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "multi_input", {}, ALICE)
    task_id = created["taskId"]
    deadline = time.monotonic() + 10
    task = get(client, worker, task_id, token=ALICE)
    while len(task.get("inputRequests", {})) < 2 and time.monotonic() < deadline:
        assert task["status"] in ("working", "input_required"), task
        time.sleep(0.05)
        task = get(client, worker, task_id, token=ALICE)
    first, second = sorted(task["inputRequests"])
    rpc(client, worker.url, "tasks/update",
        {"taskId": task_id, "inputResponses": {first: {"action": "accept"}}}, token=ALICE)  # fmt: skip
    middle = get(client, worker, task_id, token=ALICE)
    assert middle["status"] == "input_required" and list(middle["inputRequests"]) == [second]
    rpc(client, worker.url, "tasks/update",
        {"taskId": task_id, "inputResponses": {second: {"action": "decline"}}}, token=ALICE)  # fmt: skip
    done, _ = until_terminal(client, worker, task_id, ALICE)
    assert done["result"]["isError"] is False
    assert sorted(done["result"]["structuredContent"]["actions"]) == ["accept", "decline"]


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(alphabet=string.ascii_letters + " -", min_size=1, max_size=30))
def test_questions_asked_before_the_task_are_rounds_then_the_task_uses_the_answer(
    worker: Worker, client: httpx2.Client, name: str
) -> None:
    asks: dict[str, Any] = {"elicitation": {}}
    with pytest.raises(RpcError) as undeclared:
        call(client, worker, "test_tool_with_task", {}, token=ALICE)
    assert undeclared.value.code == -32021  # a question the client cannot answer is not asked
    first = call(client, worker, "test_tool_with_task", {}, token=ALICE, capabilities=asks)
    # The rounds come first: no task exists yet, so nothing to poll.
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert list(first["inputRequests"]) == ["user_name"]
    assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
    answer = {"user_name": {"action": "accept", "content": {"name": name}}}
    with pytest.raises(RpcError) as tampered:
        rpc(client, worker.url, "tools/call",
            {"name": "test_tool_with_task", "arguments": {}, "inputResponses": answer,
             "requestState": first["requestState"][:-4] + "AAAA"}, token=ALICE,
            capabilities=asks)  # fmt: skip
    assert tampered.value.code == -32602
    created = rpc(client, worker.url, "tools/call",
                  {"name": "test_tool_with_task", "arguments": {}, "inputResponses": answer,
                   "requestState": first["requestState"]}, token=ALICE,
                  capabilities=asks)  # fmt: skip
    assert created["resultType"] == "task"
    assert not {"requestState", "inputRequests"} & set(created)
    done, seen = until_terminal(client, worker, created["taskId"], ALICE)
    # The handler's own `call.client.ask` found the answer: it never asked again in the task.
    assert all(s["status"] != "input_required" for s in seen)
    assert done["status"] == "completed"
    # A prose tool's stored result is its text alone, as a blocking call would answer it.
    assert done["result"]["content"] == [{"type": "text", "text": f"Hello, {name}!"}]
    assert "structuredContent" not in done["result"]


def test_a_handler_asking_through_call_client_inside_a_task_asks_through_the_task(
    worker: Worker, client: httpx2.Client
) -> None:
    asks: dict[str, Any] = {"elicitation": {}}
    created = call(client, worker, "count_after_asking", {"seconds": 0.2}, token=ALICE,
                   capabilities=asks)  # fmt: skip
    assert created["resultType"] == "task"
    task_id = created["taskId"]
    deadline = time.monotonic() + 10
    task = get(client, worker, task_id, token=ALICE)
    while task["status"] != "input_required" and time.monotonic() < deadline:
        time.sleep(0.05)
        task = get(client, worker, task_id, token=ALICE)
    [(key, asked)] = task["inputRequests"].items()
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["message"] == "Carry on counting?"
    rpc(client, worker.url, "tasks/update",
        {"taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {"go": True}}}},
        token=ALICE)  # fmt: skip
    done, _ = until_terminal(client, worker, task_id, ALICE)
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"]["counted"] == 2


def test_a_task_asking_what_its_client_did_not_declare_fails_naming_the_capability(
    worker: Worker, client: httpx2.Client
) -> None:
    created = start_task(client, worker, "count_after_asking", {"seconds": 0}, ALICE)
    done, seen = until_terminal(client, worker, created["taskId"], ALICE)
    assert all(s["status"] != "input_required" for s in seen)  # never asked: it could not answer
    assert done["status"] == "failed" and "result" not in done
    assert done["error"]["code"] == -32021
    assert done["error"]["data"]["requiredCapabilities"] == {"elicitation": {}}
