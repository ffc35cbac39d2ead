"""The bookings example on both frameworks, over real MCP clients: the same tools do the same
things (search with a date and a time filter, a keyed create, a two-step cancel, a paged list of
my bookings), and drivable's says more where a model needs it (repairs, replays undone).

drivable's is served in process to the SDK's own client (`drivable.testing.connect`); FastMCP's
runs over stdio from its own venv (FastMCP 4.2.3, tests/audit/audit_thirdparty.py).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from drivable.contract import Contract
from drivable.effects import open_store
from drivable.serve.http import load_contract
from drivable.target import Target, connect
from drivable.testing import call_error, call_ok
from drivable.testing import connect as connect_in_process

ROOT = Path(__file__).resolve().parents[2]
DAY = "2031-03-04"

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def _drivable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Contract:
    monkeypatch.setenv("BOOKINGS_DB", str(tmp_path / "bookings.sqlite"))
    contract = load_contract(f"{ROOT}/examples/bookings_drivable.py:contract")
    contract.use_effects(open_store(str(tmp_path / "effects.sqlite")), b"bookings-test-secret")
    return contract


def _room_ids(page: dict[str, Any]) -> list[str]:
    return [room["room_id"] for room in page["results"]]


async def _walk(call: Call, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row of every page, each next page asked with the previous page's cursor."""
    rows: list[dict[str, Any]] = []
    cursor = None
    for _ in range(20):
        page = await call(tool, {**arguments, **({"cursor": cursor} if cursor else {})})
        rows += page["results"]
        cursor = page.get("next_cursor")
        if not cursor:
            return rows
    raise AssertionError("paging does not end")


async def test_the_drivable_server_books_pages_and_cancels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contract = _drivable(tmp_path, monkeypatch)
    async with connect_in_process(contract, mode="auto") as client:

        async def ok(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return await call_ok(client, tool, arguments)

        nine = {"day": DAY, "start": "09:00", "end": "10:00"}
        assert await _walk(ok, "search_rooms", {**nine, "limit": 1}) == [
            {"room_id": "rm_1", "name": "Harbour", "seats": 4},
            {"room_id": "rm_2", "name": "Mill", "seats": 8},
            {"room_id": "rm_3", "name": "Station", "seats": 12},
        ]
        booking = {**nine, "room_id": "rm_1", "title": "Standup", "idempotency_key": "key-0001"}
        first = await ok("create_booking", booking)
        replayed = await ok("create_booking", booking)  # a retry books nothing twice
        assert {k: replayed[k] for k in first if k != "notes"} == {
            k: v for k, v in first.items() if k != "notes"
        }
        # the time filter: an overlapping hour hides the room, the next hour does not
        assert "rm_1" not in _room_ids(await ok("search_rooms", {**nine, "start": "09:30"}))
        later = {"day": DAY, "start": "10:00", "end": "11:00"}
        assert "rm_1" in _room_ids(await ok("search_rooms", later))
        # the date filter: another day is free
        assert "rm_1" in _room_ids(await ok("search_rooms", {**nine, "day": "2031-03-05"}))

        taken = {**booking, "start": "09:30", "end": "10:30", "idempotency_key": "key-0002"}
        env = await call_error(client, "create_booking", taken, code="room_taken")
        assert env["repair"]["tool"] == "search_rooms"
        free = await ok(env["repair"]["tool"], env["repair"]["arguments"])
        assert _room_ids(free) == ["rm_2", "rm_3"]

        for n, room in enumerate(["rm_2", "rm_3"]):
            await ok("create_booking", {**booking, "room_id": room, "idempotency_key": f"k-{n:06}"})
        mine = await _walk(ok, "list_my_bookings", {"limit": 2})
        assert sorted(b["room_id"] for b in mine) == ["rm_1", "rm_2", "rm_3"]

        preview = await ok("cancel_booking", {"booking_id": first["id"], "dry_run": True})
        assert preview["cancelled"] is False and preview["booking"]["id"] == first["id"]
        done = await ok(preview["next_call"]["tool"], preview["next_call"]["arguments"])
        assert done["cancelled"] is True
        assert first["id"] not in [b["id"] for b in await _walk(ok, "list_my_bookings", {})]
        # the create retried after its booking was cancelled says so, and leads to booking again
        env = await call_error(client, "create_booking", booking, code="change_undone")
        again = await ok(env["repair"]["tool"], env["repair"]["arguments"])
        assert again["id"] != first["id"] and again["room_id"] == "rm_1"

        await call_error(client, "cancel_booking", {"booking_id": "bk_00000000"}, code="not_found")


@asynccontextmanager
async def _fastmcp(tmp_path: Path) -> AsyncIterator[tuple[Call, Any]]:
    """A call function on FastMCP's bookings server over stdio, and the client under it."""
    from tests.audit.audit_thirdparty import python_server

    python = python_server("fastmcp") / "bin" / "python"
    target = Target(
        command=(str(python), str(ROOT / "examples" / "bookings_fastmcp.py")),
        env={"BOOKINGS_DB": str(tmp_path / "bookings.sqlite"), "HOME": os.environ["HOME"]},
    )
    async with connect(target) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            if result.is_error:
                return {"error": text}
            structured = result.structured_content
            assert isinstance(structured, dict), text
            return structured

        yield call, client


async def test_the_fastmcp_server_has_the_same_tools_doing_the_same(tmp_path: Path) -> None:
    async with _fastmcp(tmp_path) as (call, _):

        async def ok(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            out = await call(tool, arguments)
            assert "error" not in out, out
            return out

        nine = {"day": DAY, "start": "09:00", "end": "10:00"}
        rooms = (await ok("search_rooms", nine))["result"]
        assert [r["room_id"] for r in rooms] == ["rm_1", "rm_2", "rm_3"]
        booking = {**nine, "room_id": "rm_1", "title": "Standup", "idempotency_key": "key-0001"}
        first = await ok("create_booking", booking)
        assert await ok("create_booking", booking) == first
        overlap = {**nine, "start": "09:30"}
        assert "rm_1" not in [r["room_id"] for r in (await ok("search_rooms", overlap))["result"]]
        taken = {**booking, "start": "09:30", "end": "10:30", "idempotency_key": "key-0002"}
        assert "room_taken" in (await call("create_booking", taken))["error"]
        for n, room in enumerate(["rm_2", "rm_3"]):
            await ok("create_booking", {**booking, "room_id": room, "idempotency_key": f"k-{n:06}"})
        mine = await _walk(ok, "list_my_bookings", {"limit": 2})
        assert sorted(b["room_id"] for b in mine) == ["rm_1", "rm_2", "rm_3"]
        preview = await ok("cancel_booking", {"booking_id": first["id"]})
        assert preview["cancelled"] is False and preview["confirm_token"]
        confirmed = {"booking_id": first["id"], "dry_run": False}
        assert "confirmation_invalid" in (await call("cancel_booking", confirmed))["error"]
        done = await ok("cancel_booking", {**confirmed, "confirm_token": preview["confirm_token"]})
        assert done["cancelled"] is True
        assert "cancelled" in (await call("create_booking", booking))["error"]


async def test_the_two_servers_list_the_same_tools_with_the_same_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same names, same properties, the same ones required: drivable's search is paged besides
    (every list is, there); FastMCP's states its keys and tokens in prose instead."""
    async with _fastmcp(tmp_path) as (_, client):
        theirs = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    contract = _drivable(tmp_path, monkeypatch)
    ours = {spec.name: spec.input_schema for spec in contract.listed_tools()}
    assert list(ours) == list(theirs)
    for name, schema in ours.items():
        paging = {"cursor", "limit"} if name == "search_rooms" else set()
        assert set(schema["properties"]) == set(theirs[name]["properties"]) | paging, name
        assert set(schema.get("required", [])) == set(theirs[name].get("required", [])), name
