"""Idempotency keys and two-step destructive actions through the real call pipeline."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract, ContractError, Effects, Principal, Summary
from drivable.contract.resources import ResourceError
from drivable.effects import open_store
from tests.contract.example_server import DELETED, contract


@pytest.fixture(autouse=True)
def store(tmp_path: Path) -> None:
    contract.use_effects(
        open_store(str(tmp_path / "effects.sqlite")), b"test-secret-0123456789abcdef"
    )
    DELETED.clear()


def _key() -> str:
    return f"k-{uuid.uuid4()}"


async def test_the_same_key_and_arguments_replay_without_running_again() -> None:
    args = {"drafts": [{"title": "Budget", "day": "2026-10-01"}], "idempotency_key": _key()}
    first = await contract.call("create_notes", args)
    second = await contract.call("create_notes", args)
    assert not first.is_error and not second.is_error
    assert second.structured["created"] == first.structured["created"]
    assert second.meta == {
        "dev.drivable/receipt": {
            "replayed": True,
            "recorded_at": (second.meta or {})["dev.drivable/receipt"]["recorded_at"],
        }
    }
    assert any("Replayed" in n for n in second.structured["notes"])
    assert first.meta == {"dev.drivable/receipt": {"replayed": False}}


async def test_the_same_key_with_other_arguments_names_the_fields() -> None:
    key = _key()
    await contract.call(
        "create_notes", {"drafts": [{"title": "A", "day": "2026-10-01"}], "idempotency_key": key}
    )
    out = await contract.call(
        "create_notes", {"drafts": [{"title": "B", "day": "2026-10-01"}], "idempotency_key": key}
    )
    assert out.structured["code"] == "idempotency_mismatch"
    assert [i["path"] for i in out.structured["issues"]] == ["drafts.0.title"]


TITLES = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=TITLES,
    second=TITLES,
    key=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{7,120}", fullmatch=True),
)
def test_a_key_reused_for_another_change_is_refused_with_a_call_that_makes_it(
    first: str, second: str, key: str
) -> None:
    """For every two changes under one key: the second is refused, its repair makes it once, the
    repair resent replays, and the first change's receipt is untouched."""

    async def run() -> None:
        key_of_run = f"{key}.{uuid.uuid4().hex[:8]}"
        one = {"drafts": [{"title": first, "day": "2026-10-01"}], "idempotency_key": key_of_run}
        two = {"drafts": [{"title": second, "day": "2026-10-02"}], "idempotency_key": key_of_run}
        made = await contract.call("create_notes", one)
        assert not made.is_error, made.structured
        refused = await contract.call("create_notes", two)
        assert refused.structured["code"] == "idempotency_mismatch"
        repair = refused.structured["repair"]
        assert repair["tool"] == "create_notes"
        assert repair["arguments"]["idempotency_key"] != key_of_run
        assert repair["arguments"]["drafts"][0]["day"] == "2026-10-02"
        out = await contract.call(repair["tool"], repair["arguments"])
        assert not out.is_error, out.structured
        again = await contract.call(repair["tool"], repair["arguments"])
        assert again.structured["created"] == out.structured["created"]
        assert (again.meta or {})["dev.drivable/receipt"]["replayed"] is True
        # the same refusal names the same repair; the first key still replays the first change
        twice = await contract.call("create_notes", two)
        assert twice.structured["repair"] == repair
        first_again = await contract.call("create_notes", one)
        assert first_again.structured["created"] == made.structured["created"]

    anyio.run(run)


async def test_concurrent_calls_with_one_key_run_the_effect_once() -> None:
    from tests.contract.example_server import CREATED

    before = len(CREATED)
    args = {"drafts": [{"title": "Once", "day": "2026-10-01"}], "idempotency_key": _key()}
    results = []

    async def one() -> None:
        results.append(await contract.call("create_notes", args))

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(one)
    assert len(CREATED) == before + 1
    ok = [r for r in results if not r.is_error]
    assert ok and all(r.structured["created"] == ok[0].structured["created"] for r in ok)
    # A duplicate that found the first call running is told to come back with the same key:
    # `in_progress`, or `unavailable` (busy) when a loaded machine kept the store's write lock
    # past its wait. Either way nothing ran, and the answer says when to retry.
    for refused in (r.structured for r in results if r.is_error):
        assert refused["code"] in {"in_progress", "unavailable"}, refused
        assert refused["retry_after_ms"] > 0
        assert refused["code"] == "in_progress" or refused["details"]["reason"] == "busy"


@pytest.mark.parametrize("sent", [{}, {"dry_run": False}])
async def test_a_destructive_action_needs_the_token_its_refusal_carries(
    sent: dict[str, Any],
) -> None:
    """Without a token nothing changes: the refusal is the call's dry run (`details.preview`)
    with the same call and a token for it as the repair (decision 0049)."""
    note = "note_4" if sent else "note_9"
    refused = await contract.call("delete_note", {"note_id": note, **sent})
    env = refused.structured
    assert env["code"] == "confirmation_required" and note not in DELETED
    assert env["details"]["preview"]["status"] == "would_delete"
    token = env["repair"]["arguments"]["confirm_token"]
    assert env["repair"] == {
        "next_step": "send_the_confirmed_call",
        "tool": "delete_note",
        "arguments": {"note_id": note, "dry_run": False, "confirm_token": token},
    }
    if not sent:  # the repair as it is makes the change
        done = await contract.call(env["repair"]["tool"], env["repair"]["arguments"])
        assert done.structured["status"] == "deleted" and note in DELETED
        DELETED.remove(note)  # the in-process server as the other tests of this worker find it
        return
    done = await contract.call(
        "delete_note", {"note_id": "note_4", "dry_run": False, "confirm_token": token}
    )
    assert done.structured["status"] == "deleted"
    again = await contract.call(
        "delete_note", {"note_id": "note_5", "dry_run": False, "confirm_token": token}
    )
    assert again.structured["code"] == "confirmation_invalid"
    assert again.structured["details"]["reason"] in {"other_arguments", "reused"}


async def test_a_token_is_single_use_and_bound_to_the_principal() -> None:
    preview = await contract.call(
        "delete_note", {"note_id": "note_6", "dry_run": True}, principal=Principal("alice")
    )
    token = preview.structured["next_call"]["arguments"]["confirm_token"]
    stolen = await contract.call(
        "delete_note",
        {"note_id": "note_6", "dry_run": False, "confirm_token": token},
        principal=Principal("mallory"),
    )
    assert stolen.structured["details"]["reason"] == "other_principal"
    used = await contract.call(
        "delete_note",
        {"note_id": "note_6", "dry_run": False, "confirm_token": token},
        principal=Principal("alice"),
    )
    assert used.structured["status"] == "deleted"
    resent = await contract.call(  # the same call again: a duplicate, replayed (decision 0056)
        "delete_note",
        {"note_id": "note_6", "dry_run": False, "confirm_token": token},
        principal=Principal("alice"),
    )
    assert not resent.is_error and resent.structured["status"] == "deleted"
    assert DELETED.count("note_6") == 1
    stolen_again = await contract.call(
        "delete_note",
        {"note_id": "note_6", "dry_run": False, "confirm_token": token},
        principal=Principal("mallory"),
    )
    assert stolen_again.structured["code"] == "confirmation_invalid"
    reused = await contract.call(
        "delete_note",
        {"note_id": "note_7", "dry_run": False, "confirm_token": token},
        principal=Principal("alice"),
    )
    assert reused.structured["code"] == "confirmation_invalid"
    assert "note_7" not in DELETED


async def test_a_failed_effect_does_not_spend_the_token() -> None:
    DELETED.append("note_7")  # the note vanishes between the dry run and the real run
    DELETED.remove("note_7")
    preview = await contract.call("delete_note", {"note_id": "note_7", "dry_run": True})
    token = preview.structured["next_call"]["arguments"]["confirm_token"]
    DELETED.append("note_7")
    gone = await contract.call(
        "delete_note", {"note_id": "note_7", "dry_run": False, "confirm_token": token}
    )
    assert gone.structured["code"] == "not_found"
    DELETED.remove("note_7")
    done = await contract.call(
        "delete_note", {"note_id": "note_7", "dry_run": False, "confirm_token": token}
    )
    assert done.structured["status"] == "deleted"


def test_descriptions_state_the_window_and_the_two_steps() -> None:
    # the two steps in tools/list (decision 0033); the receipt window in the detail, where the
    # retry sentence is
    delete = contract.tool_wire(contract.tools["delete_note"])["description"]
    assert "confirm_token" in delete and "`repair`" in delete and "10 minutes" in delete
    detail = contract.tool_detail()
    assert "within 24 hours" in detail["create_notes"]["description"]
    assert (
        "within 24 hours" not in contract.tool_wire(contract.tools["create_notes"])["description"]
    )


def test_registration_refuses_mutations_without_keys_or_two_steps() -> None:
    from pydantic import BaseModel, ConfigDict

    from drivable.contract import Call
    from drivable.kinds import KindModel

    c = Contract("x", version="1", summary=Summary(text="t", does=["t"], does_not=["u"]))

    class In(KindModel):
        title: str

    class Out(BaseModel):
        model_config = ConfigDict(extra="forbid")
        ok: bool

    async def add(args: In, call: Call) -> Out:
        return Out(ok=True)

    with pytest.raises(ContractError, match="idempotency_key"):
        c.tool(
            name="add_thing",
            title="Add",
            effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
            description='Adds a thing to the list of things. Example: {"title": "<title>"}.',
        )(add)
    with pytest.raises(ContractError, match="dry_run"):
        c.tool(
            name="delete_thing",
            title="Delete",
            effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
            description='Deletes a thing from the list for good. Example: {"title": "<title>"}.',
        )(add)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=st.integers(1, 30))
async def test_a_deleted_note_is_gone_from_every_read(number: int) -> None:
    """Deleted for good means what it says: no search, listing, read or resource shows it."""
    note = f"note_{number}"
    asked = await contract.call("delete_note", {"note_id": note})
    done = await contract.call("delete_note", asked.structured["repair"]["arguments"])
    assert done.structured["status"] == "deleted"
    try:
        title = done.structured["title"]
        read = await contract.call("get_note", {"note_id": note})
        assert read.is_error and read.structured["code"] == "not_found"
        found = await contract.call("search_notes", {"query": title})
        assert note not in {r["id"] for r in found.structured.get("results", [])}
        listed: list[str] = []
        page: dict[str, Any] = {}
        while True:
            out = (await contract.call("list_notes", page)).structured
            listed += [r["id"] for r in out["results"]]
            if not out["next_cursor"]:
                break
            page = {"cursor": out["next_cursor"]}
        assert note not in listed and len(listed) == 29
        with pytest.raises(ResourceError, match="not_found"):
            await contract.read_resource(f"notes://notes/{note}")
    finally:
        DELETED.remove(note)  # the in-process server as the other tests of this worker find it
