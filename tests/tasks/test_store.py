"""The task rows on a real SQLite file: answering a subset of the pending input requests."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.effects import SqliteStore
from drivable.tasks.store import BEFORE_TASK_KEY, TaskRow, TaskStore

OWNER = "worker-1"


def row(task_id: str) -> TaskRow:
    return TaskRow(
        task_id=task_id, principal="alice", scopes=None, tool="multi_input", arguments={},
        idem_key=None, digest="d", status="working", status_message=None, result=None,
        error=None, input_requests={}, input_responses={}, cancel_requested=False, attempt=1,
        owner=OWNER, lease_until=1e12, created_at=0.0, updated_at=0.0, deadline_at=1e12,
        ttl_ms=1, poll_ms=1, expires_at=1e12, forget_at=1e12,
    )  # fmt: skip


keys = st.lists(st.sampled_from([f"k{i}" for i in range(6)]), unique=True, min_size=1)


@settings(max_examples=30, deadline=None)
@given(
    asked=keys, rounds=st.lists(st.lists(st.sampled_from([f"k{i}" for i in range(8)])), max_size=4)
)
def test_answers_remove_exactly_the_pending_keys_they_name(
    asked: list[str], rounds: list[list[str]]
) -> None:
    async def scenario(path: Path) -> None:
        store = SqliteStore(path)
        tasks = TaskStore(store)
        await tasks.create(row("t"))
        for key in asked:
            assert await tasks.ask("t", OWNER, key, {"method": "elicitation/create", "params": {}})
        pending = set(asked)
        for answered in rounds:
            await tasks.answer("t", "alice", {k: {"action": "accept"} for k in answered})
            pending -= set(answered)
            seen = await tasks.get("t", "alice")
            assert seen is not None
            assert set(seen.input_requests) == pending
            assert seen.status == ("input_required" if pending else "working")
        # Another caller answers nothing and learns nothing.
        assert await tasks.answer("t", "bob", {k: {} for k in asked}) is None
        for key in set(asked) - pending:
            found, _ = await tasks.consume("t", OWNER, key)
            assert found
            found, _ = await tasks.consume("t", OWNER, key)
            assert not found  # each answer is taken once
        await store.close()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp) / "t.sqlite"))


def test_only_this_servers_abandoned_tasks_are_offered_for_recovery(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = SqliteStore(tmp_path / "shared.sqlite")
        tasks = TaskStore(store)
        for task_id, tool in (("ours", "multi_input"), ("theirs", "billing_statement_run")):
            dead = row(task_id)
            await tasks.create(
                TaskRow(
                    **{
                        **{f: getattr(dead, f) for f in dead.__slots__},
                        "tool": tool,
                        "lease_until": 0.0,
                    }
                )
            )
        assert await tasks.abandoned(["multi_input"]) == ["ours"]
        assert await tasks.abandoned([]) == []
        await store.close()

    asyncio.run(scenario())


OPS = st.lists(
    st.sampled_from(["ask", "answer_one", "cancel", "complete", "fail", "lapse", "take_over"]),
    max_size=12,
)


@settings(max_examples=30, deadline=None)
@given(ops=OPS)
def test_a_terminal_state_is_final_and_input_required_means_a_question_is_pending(
    ops: list[str],
) -> None:
    async def scenario(path: Path) -> None:
        clock = [1_000.0]
        store = SqliteStore(path)
        tasks = TaskStore(store, clock=lambda: clock[0])
        start = row("t")
        await tasks.create(
            TaskRow(**{**{f: getattr(start, f) for f in start.__slots__}, "lease_until": 1_010.0})
        )
        owner, asked, ended = OWNER, 0, None
        for op in ops:
            before = await tasks.get("t")
            assert before is not None
            if op == "ask":
                asked += 1
                assert await tasks.ask(
                    "t", owner, f"k{asked}", {"method": "elicitation/create"}
                ) == (not before.terminal)
            elif op == "answer_one" and before.input_requests:
                await tasks.answer(
                    "t", "alice", {sorted(before.input_requests)[0]: {"action": "accept"}}
                )
            elif op == "cancel":
                await tasks.request_cancel("t", "alice")
            elif op in ("complete", "fail"):
                status = "completed" if op == "complete" else "failed"
                done = await tasks.finish(
                    "t", owner, status=status, status_message="x", keep_s=60, forget_s=60
                )
                assert done == (not before.terminal)
                ended = ended or (status if done else None)
            elif op == "lapse":
                clock[0] += 60  # the lease runs out
            elif op == "take_over":
                claimed = await tasks.take_over("t", "worker-2", 10)
                lapsed = before.lease_until < clock[0]
                assert (claimed is not None) == (not before.terminal and lapsed)
                if claimed is not None:
                    owner = "worker-2"
                    assert claimed.attempt == before.attempt + 1 and claimed.input_requests == {}
            after = await tasks.get("t")
            assert after is not None
            if ended is not None:
                assert after.status == ended  # nothing moves a terminal task
            elif after.status == "input_required":
                assert after.input_requests
            else:
                assert after.status == "working" and not after.input_requests
        await store.close()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp) / "t.sqlite"))


@settings(max_examples=20, deadline=None)
@given(keys=st.lists(st.text(min_size=1, max_size=12), max_size=4), name=st.text(max_size=20))
def test_what_was_answered_before_the_task_survives_a_takeover_and_cannot_be_overwritten(
    keys: list[str], name: str
) -> None:
    before = {BEFORE_TASK_KEY: {"capabilities": {"elicitation": {}}, "answers": {"n": name}}}

    async def scenario(path: Path) -> None:
        store = SqliteStore(path)
        tasks = TaskStore(store)
        await tasks.create(
            TaskRow(**{**{f: getattr(row("t"), f) for f in TaskRow.__slots__},
                       "input_responses": dict(before), "lease_until": 0.0})
        )  # fmt: skip
        for key in keys:
            await tasks.ask("t", OWNER, key, {"method": "elicitation/create", "params": {}})
        # A client may answer only what is pending: never the reserved record.
        await tasks.answer("t", "alice", {BEFORE_TASK_KEY: {"answers": {"n": "forged"}}})
        await tasks.answer("t", "alice", {k: {"action": "accept"} for k in keys})
        taken = await tasks.take_over("t", "worker-2", 5.0)
        assert taken is not None and taken.attempt == 2
        # The dead worker's questions and answers are gone; the record of the rounds stays.
        assert taken.input_requests == {} and taken.input_responses == before
        await store.close()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp) / "t.sqlite"))
