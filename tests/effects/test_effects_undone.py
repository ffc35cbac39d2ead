"""A replayed keyed call whose record was undone since says so, and never runs again.

The rule (docs/effects.md, "Undone since"): a keyed call names the record it made
(`Transaction.made`); a later call that undoes the record (`Transaction.undo`: a cancel, a delete,
a void) marks every receipt that made it, in its own transaction. A replay of such a receipt
comes back with `Replay.undone` (what, by whom, when), and the runtime answers it with
`change_undone`, whose repair is the same call under a key of its own. Nothing is ever executed
twice under one key; a receipt made after the undo is not marked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import CREATE, DELETE, Call, Contract, Output, Summary, ToolError
from drivable.contract.durable import key_of_change
from drivable.effects import (
    Executed,
    Mismatch,
    Replay,
    SqlEffectStore,
    Transaction,
    arguments_digest,
    open_store,
)
from drivable.kinds import KindModel
from drivable.kinds.identifier import IdOf

WORKER = Path(__file__).parent / "effects_worker.py"

# -- the store: generated sequences of keyed calls, undos and replays ------------------------------

PRINCIPALS = ("p0", "p1")
KEYS = ("k0", "k1", "k2")
THINGS = ("t0", "t1", "t2")  # several calls may name one record (a share made again)


@dataclass(frozen=True)
class Make:
    principal: str
    key: str
    thing: str  # the argument, and the record the call makes


@dataclass(frozen=True)
class Undo:
    thing: str
    by: str


OPS = st.lists(
    st.one_of(
        st.builds(
            Make,
            st.sampled_from(PRINCIPALS),
            st.sampled_from(KEYS),
            st.sampled_from(THINGS),
        ),
        st.builds(Undo, st.sampled_from(THINGS), st.sampled_from(("cancel", "delete", "void"))),
    ),
    min_size=1,
    max_size=14,
)


async def _play(store: SqlEffectStore, ops: list[Make | Undo]) -> None:
    run = uuid.uuid4().hex[:8]  # examples share a store: each keeps to names of its own
    receipts: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}  # -> (thing, first result)
    undone: dict[tuple[str, str], str] = {}  # receipt -> the tool that undid what it made
    executed = 0

    async def effect(tx: Transaction, thing: str) -> dict[str, Any]:
        await tx.execute(
            "INSERT INTO undo_effects (id, run) VALUES (?, ?)", (uuid.uuid4().hex, run)
        )
        tx.made("thing", f"{run}-{thing}")
        return {"thing": thing, "n": uuid.uuid4().hex}

    for op in ops:
        if isinstance(op, Undo):
            async with store.transaction() as tx:
                tx.tool = op.by
                marked = await tx.undo("thing", f"{run}-{op.thing}")
            standing = [r for r, (t, _) in receipts.items() if t == op.thing and r not in undone]
            assert marked == len(standing), (op, marked, standing)
            for r in standing:
                undone[r] = op.by
            continue
        scope = (op.principal, op.key)
        out = await store.run_idempotent(
            tool="make_thing",
            principal=op.principal,
            key=f"{run}-{op.key}",
            arguments={"thing": op.thing},
            effect=lambda tx, thing=op.thing: effect(tx, thing),  # type: ignore[misc]
        )
        if scope not in receipts:
            assert isinstance(out, Executed), (op, out)
            receipts[scope] = (op.thing, out.result)
            executed += 1
        elif receipts[scope][0] != op.thing:
            assert isinstance(out, Mismatch), (op, out)
        else:
            assert isinstance(out, Replay), (op, out)
            assert out.result == receipts[scope][1]  # the first result, never a second run
            if scope in undone:
                assert out.undone is not None, op
                assert (out.undone.kind, out.undone.entity_id) == ("thing", f"{run}-{op.thing}")
                assert out.undone.by == undone[scope]  # the first undo is the one kept
            else:
                assert out.undone is None, op
            view = await store.receipt(
                tool="make_thing", principal=op.principal, key=f"{run}-{op.key}"
            )
            assert view is not None and view.undone == out.undone
    async with store.transaction() as tx:
        rows = await tx.execute("SELECT COUNT(*) FROM undo_effects WHERE run = ?", (run,))
    assert rows.first() == (executed,)  # exactly once per key, whatever was undone


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_a_replay_says_what_was_undone_since_and_nothing_runs_twice(
    store_url: str, ops: list[Make | Undo]
) -> None:
    """Over generated sequences of keyed calls (principals, keys, the record each makes), undos
    and replays, on both stores: a first call runs once; a replay returns its first result, with
    `undone` naming the first undo of its record made after it and nothing otherwise; an undo
    marks exactly the receipts standing that made its record; another record under a used key
    is a mismatch."""

    async def run() -> None:
        store = open_store(store_url)
        try:
            async with store.transaction() as tx:
                await tx.execute(
                    "CREATE TABLE IF NOT EXISTS undo_effects (id TEXT PRIMARY KEY, run TEXT)"
                )
            await _play(store, ops)
        finally:
            await store.close()

    anyio.run(run)


async def test_a_receipt_past_its_window_takes_nothing_of_its_undo_to_the_next_call(
    store_url: str,
) -> None:
    now = [1_000.0]
    store = open_store(store_url, clock=lambda: now[0])

    async def effect(tx: Transaction) -> dict[str, Any]:
        tx.made("thing", "t-window")
        return {"at": now[0]}

    try:
        first = await store.run_idempotent(
            tool="m", principal="p", key="k", arguments={}, effect=effect, window_s=60
        )
        assert isinstance(first, Executed)
        async with store.transaction() as tx:
            assert await tx.undo("thing", "t-window", by="cancel") == 1
        now[0] += 61  # the receipt expired: the same key runs anew, unmarked
        again = await store.run_idempotent(
            tool="m", principal="p", key="k", arguments={}, effect=effect, window_s=60
        )
        assert isinstance(again, Executed)
        replay = await store.run_idempotent(
            tool="m", principal="p", key="k", arguments={}, effect=effect, window_s=60
        )
        assert isinstance(replay, Replay) and replay.undone is None
        assert replay.result == again.result
        now[0] += 61
        assert await store.purge_expired() >= 1
        async with store.transaction() as tx:
            left = await tx.execute("SELECT COUNT(*) FROM drivable_made")
        assert left.first() == (0,)  # purged with its receipt
    finally:
        await store.close()


def _worker(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(WORKER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=True,
    )
    line: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return line


async def test_an_undo_in_one_process_is_said_by_a_replay_in_another(store_url: str) -> None:
    made = await anyio.to_thread.run_sync(_worker, "make", store_url, "key-x", "thing-1")
    assert made["kind"] == "Executed"
    marked = await anyio.to_thread.run_sync(_worker, "undo", store_url, "thing-1", "cancel_thing")
    assert marked == {"marked": 1}
    replay = await anyio.to_thread.run_sync(_worker, "make", store_url, "key-x", "thing-1")
    assert replay["kind"] == "Replay"
    assert replay["result"] == made["result"]  # the first process's result: nothing ran again
    assert replay["undone"] == ["thing", "thing-1", "cancel_thing"]


# -- the runtime: what a client sees -------------------------------------------------------------


class NewThing(KindModel):
    title: str = Field(min_length=1, max_length=60, description="What the thing is called.")


class RemoveThing(KindModel):
    thing_id: IdOf("th_") = Field(description="The thing to remove.")  # type: ignore[valid-type]


class Thing(Output):
    thing_id: str
    title: str


class Removed(Output):
    thing_id: str
    removed: bool


def _contract(store: SqlEffectStore) -> tuple[Contract, list[str]]:
    runs: list[str] = []
    contract = Contract(
        "things",
        version="1.0.0",
        summary=Summary("Make and remove things.", does=["make things"], does_not=["else"]),
    )
    contract.use_effects(store, b"test-secret-0123456789abcdef")

    @contract.tool(effects=CREATE)
    async def create_thing(args: NewThing, call: Call) -> Thing:
        """Make a thing and return its id. Use it when the user asks for a new thing; the same
        idempotency_key with the same title replays the first thing made. Example: {"title":
        "<title>", "idempotency_key": "<a key you make up>"}."""
        tx = call.transaction
        assert tx is not None
        thing_id = f"th_{len(runs) + 1}"
        runs.append(thing_id)
        await tx.execute(
            "INSERT INTO things (id, title, gone) VALUES (?, ?, 0)", (thing_id, args.title)
        )
        tx.made("thing", thing_id)
        return Thing(thing_id=thing_id, title=args.title)

    @contract.tool(effects=DELETE, errors=["not_found"])
    async def remove_thing(args: RemoveThing, call: Call) -> Removed:
        """Remove a thing for good: a dry run shows it, the confirmed call removes it. Use it
        only when the user asks to remove one. Example: {"thing_id": "<id create_thing
        returned>"}."""
        tx = call.transaction
        if tx is None:  # the dry run reads
            async with store.transaction() as read:
                row = (
                    await read.execute("SELECT gone FROM things WHERE id = ?", (args.thing_id,))
                ).first()
            if row is None or row[0]:
                raise ToolError("not_found", "No such thing.", hint="Call create_thing first.")
            return Removed(thing_id=args.thing_id, removed=False)
        await tx.execute("UPDATE things SET gone = 1 WHERE id = ?", (args.thing_id,))
        await tx.undo("thing", args.thing_id)
        return Removed(thing_id=args.thing_id, removed=True)

    return contract, runs


async def _made_ready(store: SqlEffectStore) -> None:
    async with store.transaction() as tx:
        await tx.execute(
            "CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY, title TEXT, gone INTEGER)"
        )


async def _removed(contract: Contract, thing_id: str) -> None:
    preview = await contract.call("remove_thing", {"thing_id": thing_id, "dry_run": True})
    assert not preview.is_error, preview.structured
    done = await contract.call("remove_thing", preview.structured["next_call"]["arguments"])
    assert not done.is_error and done.structured["removed"] is True


@settings(max_examples=25, deadline=None)
@given(
    title=st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60
    ).filter(lambda t: t.strip() != ""),
    key=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{7,60}", fullmatch=True),
    undos=st.integers(min_value=1, max_value=3),
)
def test_a_replay_of_an_undone_create_is_refused_with_the_call_that_makes_it_again(
    title: str, key: str, undos: int
) -> None:
    """For every create, undone `undos` times over (each remake removed again): the replay is
    `change_undone`, nothing runs; its repair is the same call, every argument kept, under a key
    of its own; the repair makes it once and replays after; the original key keeps answering
    the same refusal, and the last remake, while it stands, replays as itself."""

    async def run() -> None:
        folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"undone-{uuid.uuid4().hex}"
        store = open_store(f"sqlite:///{folder}/effects.db")
        try:
            await _made_ready(store)
            contract, runs = _contract(store)
            sent = {"title": title, "idempotency_key": key}
            first = await contract.call("create_thing", sent)
            assert not first.is_error, first.structured
            current, thing = sent, first.structured["thing_id"]
            for _ in range(undos):
                await _removed(contract, thing)
                refused = await contract.call("create_thing", current)
                assert refused.is_error
                envelope = refused.structured
                assert envelope["code"] == "change_undone"
                assert envelope["details"]["made"] == {"kind": "thing", "id": thing}
                assert envelope["details"]["undone_by"] == "remove_thing"
                assert envelope["details"]["first_result"]["thing_id"] == thing
                repair = envelope["repair"]
                assert repair["tool"] == "create_thing"
                fresh = key_of_change(
                    current["idempotency_key"], arguments_digest({"title": title})
                )
                again_args = {
                    k: v for k, v in repair["arguments"].items() if k != "idempotency_key"
                }
                assert again_args == {"title": first.structured["title"]}  # every argument kept
                assert repair["arguments"]["idempotency_key"] == fresh
                made = len(runs)
                again = await contract.call("create_thing", repair["arguments"])
                assert not again.is_error and len(runs) == made + 1  # made once
                resent = await contract.call("create_thing", repair["arguments"])
                assert resent.structured == {
                    **again.structured,
                    "notes": resent.structured["notes"],
                }
                assert len(runs) == made + 1  # its retry replays
                still = await contract.call("create_thing", current)
                assert still.structured == refused.structured | {
                    "request_id": still.structured["request_id"]
                }
                current, thing = repair["arguments"], again.structured["thing_id"]
            assert len(runs) == undos + 1
        finally:
            await store.close()

    anyio.run(run)


@pytest.mark.parametrize("tool_codes", ["create_thing"])
def test_every_keyed_tool_declares_change_undone(tmp_path: Path, tool_codes: str) -> None:
    contract, _ = _contract(open_store(f"sqlite:///{tmp_path / 's.db'}"))
    spec = contract.tools[tool_codes]
    assert "change_undone" in contract.tool_codes(spec)
