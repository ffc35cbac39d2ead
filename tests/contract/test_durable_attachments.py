"""A keyed or two-step tool keeps the blocks its handler attached: on the first run, on a dry run
and on the confirmed run. A replay has only its receipt (the structured result), and says so."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pydantic import Field

from drivable.contract import CREATE, DELETE, Call, Contract, Output, Summary
from drivable.contract.content import Image
from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.effects import open_store
from drivable.kinds import KindModel

contract = Contract(
    "attach-test",
    version="1.0.0",
    summary=Summary("Cards.", does=["make and delete cards"], does_not=["anything else"]),
)
PNG = b"\x89PNG\r\n\x1a\n"


class MakeInput(KindModel):
    title: str = Field(min_length=1, max_length=40, description="The card's title.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class ShredInput(KindModel):
    title: str = Field(min_length=1, max_length=40, description="The title of the card to delete.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class Card(Output):
    card_id: str


@contract.tool(
    name="make_card",
    description="Make a card and return it with its picture. Example: "
    '{"title": "<title>", "idempotency_key": "<a key you generate>"}.',
    effects=CREATE,
)
async def make_card(args: MakeInput, call: Call) -> Card:
    call.attach(Image(PNG, "image/png"))
    return Card(card_id=f"card_{args.title}")


@contract.tool(
    name="delete_card",
    description="Delete one card; the dry run shows its picture first. Example: "
    '{"title": "<title>"}.',
    effects=DELETE,
)
async def delete_card(args: ShredInput, call: Call) -> Card:
    call.attach(Image(PNG, "image/png"))
    return Card(card_id=f"card_{args.title}")


@pytest.fixture(autouse=True)
def store(tmp_path: Path) -> None:
    contract.use_effects(open_store(str(tmp_path / "e.sqlite")), b"test-secret-0123456789abcdef")


async def test_a_keyed_tool_keeps_its_attachments_and_a_replay_its_receipt() -> None:
    args = {"title": "tea", "idempotency_key": f"k-{uuid.uuid4()}"}
    first = await contract.call("make_card", args)
    assert not first.is_error and len(first.content) == 1
    again = await contract.call("make_card", args)
    assert again.structured["card_id"] == first.structured["card_id"]
    assert again.content == ()  # the receipt keeps the structured result only


async def test_a_dry_run_and_the_confirmed_run_keep_their_attachments() -> None:
    preview = await contract.call("delete_card", {"title": "tea", "dry_run": True})
    assert not preview.is_error and len(preview.content) == 1
    token = preview.structured["next_call"]["arguments"]["confirm_token"]
    done = await contract.call(
        "delete_card", {"title": "tea", "dry_run": False, "confirm_token": token}
    )
    assert not done.is_error and len(done.content) == 1
