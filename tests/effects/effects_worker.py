"""A separate OS process driving a store, for the cross-process and crash tests.

python effects_worker.py race  URL KEY CALLS GO_FILE   # CALLS concurrent calls, one JSON line each
python effects_worker.py crash URL KEY mid|after       # prints a line, then waits to be killed
python effects_worker.py make  URL KEY THING           # a keyed call that makes THING: one JSON line
python effects_worker.py undo  URL THING TOOL          # TOOL undoes THING: the receipts it marked
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from typing import Any

import anyio

from drivable.effects import Executed, NewClaim, Replay, Transaction, open_store

ARGS = {"invoice_id": "inv_1", "amount_cents": 4200}


async def refund(tx: Transaction, hold_s: float = 0.0) -> dict[str, Any]:
    refund_id = f"rf_{uuid.uuid4().hex[:10]}"
    await tx.execute(
        "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES (?, ?, ?)",
        (refund_id, ARGS["invoice_id"], ARGS["amount_cents"]),
    )
    if hold_s:
        await anyio.sleep(hold_s)
    return {"status": "refunded", "refund_id": refund_id, "pid": os.getpid()}


async def race(url: str, key: str, calls: int, go_file: str) -> None:
    store = open_store(url)
    print("ready", flush=True)
    while not os.path.exists(go_file):
        time.sleep(0.002)
    out: list[str] = []

    async def effect(tx: Transaction) -> dict[str, Any]:
        return await refund(tx, hold_s=0.05)

    async def call() -> None:
        r = await store.run_idempotent(
            tool="refund", principal="p", key=key, arguments=ARGS, effect=effect, wait_s=60
        )
        result = r.result if isinstance(r, Executed | Replay) else None
        out.append(json.dumps({"kind": type(r).__name__, "result": result}, sort_keys=True))

    async with anyio.create_task_group() as tg:
        for _ in range(calls):
            tg.start_soon(call)
    await store.close()
    print("\n".join(out), flush=True)


async def crash(url: str, key: str, phase: str) -> None:
    store = open_store(url)
    if phase == "mid":
        async with store.idempotent(
            tool="refund", principal="p", key=key, arguments=ARGS, lease_s=1.0
        ) as claim:
            assert isinstance(claim, NewClaim)
            await refund(claim.transaction)  # part of the effect is written, uncommitted
            print("inside", flush=True)
            await anyio.sleep(3600)  # killed here, mid-transaction
    else:
        r = await store.run_idempotent(
            tool="refund", principal="p", key=key, arguments=ARGS, effect=refund, lease_s=1.0
        )
        assert isinstance(r, Executed)
        print("done " + json.dumps(r.result, sort_keys=True), flush=True)
        await anyio.sleep(3600)  # killed before it could answer its client


async def loop(url: str, prefix: str) -> None:
    store = open_store(url)

    async def effect_for(key: str) -> Any:
        async def effect(tx: Transaction) -> dict[str, Any]:
            await tx.execute(
                "INSERT INTO keyed_effects (id, key) VALUES (?, ?)", (uuid.uuid4().hex, key)
            )
            await anyio.sleep(0.01)  # widen the window a kill can land in
            return {"key": key}

        return effect

    print("started", flush=True)
    i = 0
    while True:
        key = f"{prefix}-{i}"
        out = await store.run_idempotent(
            tool="t",
            principal="p",
            key=key,
            arguments={"n": i},
            effect=await effect_for(key),
            wait_s=10,
            lease_s=0.5,
        )
        assert isinstance(out, Executed | Replay), out
        i += 1


async def make(url: str, key: str, thing: str) -> None:
    store = open_store(url)

    async def effect(tx: Transaction) -> dict[str, Any]:
        tx.made("thing", thing)
        return {"thing": thing, "pid": os.getpid()}

    r = await store.run_idempotent(
        tool="make_thing", principal="p", key=key, arguments={"thing": thing}, effect=effect
    )
    await store.close()
    undone = getattr(r, "undone", None)
    line = {"kind": type(r).__name__, "result": getattr(r, "result", None)}
    line["undone"] = None if undone is None else [undone.kind, undone.entity_id, undone.by]
    print(json.dumps(line, sort_keys=True), flush=True)


async def undo(url: str, thing: str, tool: str) -> None:
    store = open_store(url)
    async with store.transaction() as tx:
        tx.tool = tool
        marked = await tx.undo("thing", thing)
    await store.close()
    print(json.dumps({"marked": marked}), flush=True)


def main() -> None:
    mode, url, key, *rest = sys.argv[1:]
    if mode == "race":
        anyio.run(race, url, key, int(rest[0]), rest[1])
    elif mode == "crash":
        anyio.run(crash, url, key, rest[0])
    elif mode == "loop":
        anyio.run(loop, url, key)
    elif mode == "make":
        anyio.run(make, url, key, rest[0])
    elif mode == "undo":
        anyio.run(undo, url, key, rest[0])
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
