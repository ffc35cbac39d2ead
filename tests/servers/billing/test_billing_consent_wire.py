"""A refund confirmed by the person, over `drivable serve billing` on stdio, in both eras: a client
that declares elicitation is asked with the dry run's summary (both units) and the money moves only
on a yes; a no moves nothing and answers `confirmation_declined`; a client without elicitation
still gets `confirmation_required` with the dry run as the next call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from drivable.target import Mode, Target, connect
from tests.cli import CLI
from tests.servers.billing.test_billing_money_wire import _call

ERAS = pytest.mark.parametrize("mode", ["legacy", "auto"])


class Person:
    """Answers every form with one choice and keeps what it was asked."""

    def __init__(self, action: str, confirm: bool) -> None:
        self.action, self.confirm = action, confirm
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        content = {"confirm": self.confirm} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


async def _refund(
    tmp_path: Path, mode: Mode, person: Person | None, *, preview: bool = False
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """42.00 GBP refunded on a paid invoice: sent as the real run at once, or (`preview`) as the
    model's two steps, the dry run and then its next_call (dry_run false, confirm_token)."""
    url = f"sqlite:///{tmp_path / 'consent.sqlite'}"
    target = Target(command=(*CLI, "serve", "billing", "--store", url))
    with open(os.devnull, "w") as errlog:
        async with connect(
            target, mode=mode, errlog=errlog, read_timeout_seconds=60, elicitation_callback=person
        ) as client:
            page = await _call(client, "find_invoices", {"state": "paid", "currency": "GBP"})
            inv = next(r for r in page["results"] if r["refundable_cents"] >= 10_000)
            arguments = {
                "invoice_id": inv["invoice_id"],
                "idempotency_key": f"consent-{mode}-0001",
                "amount_cents": "42.00 GBP",
                "dry_run": preview,
            }
            answer = await _call(client, "refund_invoice", arguments)
            if preview:
                assert person is None or person.asked == []  # a dry run: nobody is asked
                following = answer["next_call"]
                assert following["arguments"]["confirm_token"]
                answer = await _call(client, following["tool"], following["arguments"])
            after = await _call(client, "get_invoice", {"invoice_id": inv["invoice_id"]})
    return inv, answer, after["invoice"]


@ERAS
async def test_a_yes_from_the_person_refunds_once(tmp_path: Path, mode: Mode) -> None:
    person = Person("accept", True)
    before, answer, after = await _refund(tmp_path, mode, person)
    assert answer["status"] == "refunded" and answer["amount_cents"] == 4200, answer
    assert after["refundable_cents"] == before["refundable_cents"] - 4200
    (question,) = person.asked
    assert "42.00 GBP (4200 minor units)" in question and before["invoice_id"] in question


@ERAS
@pytest.mark.parametrize(
    ("action", "confirm"), [("accept", False), ("decline", False), ("cancel", False)]
)
async def test_anything_but_a_yes_moves_nothing(
    tmp_path: Path, mode: Mode, action: str, confirm: bool
) -> None:
    person = Person(action, confirm)
    before, answer, after = await _refund(tmp_path, mode, person)
    assert answer["is_error"] and answer["code"] == "confirmation_declined", answer
    # no call leads back to the refund the person refused, as a client receives the envelope
    assert answer.get("repair") is None and answer.get("next_call") is None
    assert after["refundable_cents"] == before["refundable_cents"]
    assert len(person.asked) == 1


async def test_without_elicitation_the_token_is_still_required(tmp_path: Path) -> None:
    before, answer, after = await _refund(tmp_path, "auto", None)
    assert answer["is_error"] and answer["code"] == "confirmation_required", answer
    # the confirming call with a token of its own, beside its preview (decision 0049)
    assert answer["repair"]["arguments"]["dry_run"] is False
    assert answer["repair"]["arguments"]["confirm_token"].startswith("ct2.")
    assert answer["details"]["preview"]["status"] == "would_refund"
    assert after["refundable_cents"] == before["refundable_cents"]


@ERAS
@pytest.mark.parametrize(("action", "confirm"), [("accept", True), ("decline", False)])
async def test_the_previews_token_does_not_stand_for_the_person_where_they_can_be_asked(
    tmp_path: Path, mode: Mode, action: str, confirm: bool
) -> None:
    person = Person(action, confirm)
    before, answer, after = await _refund(tmp_path, mode, person, preview=True)
    assert len(person.asked) == 1 and before["invoice_id"] in person.asked[0]
    if confirm:
        assert answer["status"] == "refunded", answer
        assert after["refundable_cents"] == before["refundable_cents"] - 4200
    else:
        assert answer["is_error"] and answer["code"] == "confirmation_declined", answer
        assert after["refundable_cents"] == before["refundable_cents"]
