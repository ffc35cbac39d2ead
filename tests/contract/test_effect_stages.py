"""The stages around the handler, alone: `consent`, `preview` and `perform` on a fake
`StageContext` (no Contract), a real client side and a real SQLite effect store, and a recorded
stand-in for the pipeline's one handler call (`Answer`). None of them runs the handler itself: each
handler run is one call of the `Answer` it is handed, and what it shows is what that call shaped."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import ERROR_CODES, Call, Effects, Output, Principal
from drivable.contract.call import Outcome
from drivable.contract.client import ClientSide, Elicit, InputRequired
from drivable.contract.declare import Confirmed, Keyed
from drivable.contract.durable import Durability, identity, key_of_change
from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Attempt, Refused, Settled
from drivable.contract.stages.consent import ASK_KEY, consent
from drivable.contract.stages.effects import (
    PREVIEW_NOTE,
    REPLAYED_NOTE,
    perform,
    preview,
    previews,
)
from drivable.contract.tool import ToolSpec, build_spec
from drivable.effects import ConfirmTokens, arguments_digest, open_store
from tests.contract.test_stage_context import FakeContext

KEY = "5f0c8a52-3e0b-4c53-9a55-0f4f6d1c2b7e"
SECRET = b"stage-secret-0123456789abcdef"
BOOKINGS = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=20)
KEYS = st.uuids().map(str)  # keys as a client makes them (a placeholder-like key is refused)


class Cancel(Keyed, Confirmed):
    booking: str = Field(min_length=1, max_length=40, description="The booking to cancel.")


class Cancelled(Output):
    booking: str
    previewed: bool


async def cancel_booking(args: Cancel, call: Call) -> Cancelled:
    raise AssertionError("the stages never run the handler: the Answer they are handed does")


SPEC: ToolSpec = build_spec(
    cancel_booking,
    name="cancel_booking",
    title="Cancel a booking",
    description="Cancel one booking; a test tool, its handler never runs here.",
    effects=Effects(read_only=False, destructive=True, idempotent=False, open_world=False),
    errors=(),
    known_codes=ERROR_CODES,
    stability="stable",
    deprecation=None,
    scopes=(),
)


@dataclass
class Handler:
    """Stands in for the pipeline's `answer`: records each attempt it runs, runs `settled` between
    the handler and the shaping, and shapes the call's notes as they are then."""

    ran: list[Cancel] = field(default_factory=list)
    refuse: Refused | None = None  # raised from inside the handler

    async def __call__(self, attempt: Attempt, settled: Settled | None = None) -> Outcome:
        self.ran.append(attempt.args)
        if self.refuse is not None:
            raise self.refuse
        if settled is not None:
            await settled()
        shaped: dict[str, Any] = {
            "booking": attempt.args.booking,
            "previewed": attempt.args.dry_run,
        }
        if attempt.context.notes:
            shaped["notes"] = list(attempt.context.notes)
        return Outcome(shaped, is_error=False)


def fresh(where: Path) -> Durability:
    """A real effect store in an empty SQLite file, its tokens signed with `SECRET`."""
    store = open_store(str(where / "effects.sqlite"))
    return Durability(store, ConfirmTokens(SECRET, store=store))


@pytest.fixture
def durability(tmp_path: Path) -> Durability:
    return fresh(tmp_path)


def attempt(raw: dict[str, Any], client: ClientSide | None = None) -> Attempt:
    fake = FakeContext(tools={SPEC.name: SPEC})
    principal = Principal(id="p")
    made = Attempt(fake, SPEC.name, raw, principal, "rid-1")
    made.spec = SPEC
    made.args = Cancel.model_validate(raw)
    made.call = Call(SPEC.name, principal, "rid-1", fake, client=client or ClientSide({}))
    return made


def refusal(run: Any) -> str:
    try:
        anyio.run(run)
    except Refused as refused:
        return refused.envelope.code
    raise AssertionError("the stage let the call through")


# -- consent -------------------------------------------------------------------------------------


# a tokenless call is asked without reading the store or the tokens
NO_STORE = cast(Durability, None)


def asking(answer: dict[str, Any] | None) -> ClientSide:
    responses = {} if answer is None else {ASK_KEY: answer}
    return ClientSide({"elicitation": {}}, responses=responses)


@settings(max_examples=15)
@given(booking=BOOKINGS, key=KEYS)
def test_consent_asks_only_on_a_real_run_from_a_client_that_can_ask_unless_the_token_decides(
    booking: str, key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    durability = fresh(tmp_path_factory.mktemp("consent"))
    yes = {"action": "accept", "content": {"confirm": True}}
    for raw, client in (
        ({"booking": booking, "idempotency_key": key, "dry_run": True}, asking(yes)),  # a dry run
        ({"booking": booking, "idempotency_key": key, "dry_run": False}, ClientSide({})),
        # a token that does not verify: the effect refuses it, nobody is asked
        (
            {"booking": booking, "idempotency_key": key, "dry_run": False, "confirm_token": "t"},
            asking(yes),
        ),
    ):
        handler = Handler()
        assert anyio.run(consent, attempt(raw, client), durability, handler) is False
        assert handler.ran == []  # not asked: no dry run shown


@settings(max_examples=15)
@given(booking=BOOKINGS, key=KEYS)
def test_a_change_confirmed_by_its_token_is_still_the_users_to_allow_where_the_client_can_ask(
    booking: str, key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The model previewed and sent the preview's next_call: a client that can ask still asks
    the person (a no runs nothing), a yes spends the token as on any client, and the same call
    sent again replays its receipt without asking again."""
    durability = fresh(tmp_path_factory.mktemp("consent"))
    handler = Handler()
    dry = attempt({"booking": booking, "idempotency_key": key, "dry_run": True})
    confirmed = anyio.run(preview, dry, durability, handler).structured["next_call"]["arguments"]
    handler.ran.clear()
    no = attempt(confirmed, asking({"action": "decline"}))
    try:
        anyio.run(consent, no, durability, handler)
    except Refused as refused:
        assert refused.envelope.code == "confirmation_declined"
    else:
        raise AssertionError("a no let the change through")
    assert [a.dry_run for a in handler.ran] == [True]  # the question showed the dry run only
    handler.ran.clear()
    yes = attempt(confirmed, asking({"action": "accept", "content": {"confirm": True}}))
    assert anyio.run(consent, yes, durability, handler) is False  # the token decides from here
    assert [a.dry_run for a in handler.ran] == [True]
    done = anyio.run(perform, yes, durability, handler)
    assert not done.is_error and [a.dry_run for a in handler.ran] == [True, False]
    handler.ran.clear()
    again = attempt(confirmed, asking(None))  # asking it would raise InputRequired
    assert anyio.run(consent, again, durability, handler) is False
    replayed = anyio.run(perform, again, durability, handler)
    assert replayed.meta and replayed.meta["dev.drivable/receipt"]["replayed"] is True
    assert handler.ran == []


@given(booking=BOOKINGS, key=KEYS)
def test_consent_shows_the_dry_run_answer_and_goes_ahead_on_a_yes(booking: str, key: str) -> None:
    handler = Handler()
    raw = {"booking": booking, "idempotency_key": key, "dry_run": False}
    yes = {"action": "accept", "content": {"confirm": True}}
    assert anyio.run(consent, attempt(raw, asking(yes)), NO_STORE, handler) is True
    assert [(a.booking, a.dry_run) for a in handler.ran] == [(booking, True)]


def test_consent_puts_the_dry_run_it_was_handed_in_the_question() -> None:
    raw = {"booking": "room-7", "idempotency_key": KEY, "dry_run": False}
    with pytest.raises(InputRequired) as asked:  # the 2026 rounds: the question goes out
        anyio.run(consent, attempt(raw, asking(None)), NO_STORE, Handler())
    question = asked.value.requests[ASK_KEY]
    assert isinstance(question, Elicit)
    assert question.message.startswith("Cancel a booking: ")
    assert '"booking": "room-7"' in question.message and '"previewed": true' in question.message


@given(
    booking=BOOKINGS,
    said=st.sampled_from(
        [
            {"action": "decline"},
            {"action": "cancel"},
            {"action": "accept", "content": {"confirm": False}},
            {"action": "accept", "content": {}},
            {"action": "accept", "content": {"confirm": "yes"}},
        ]
    ),
)
def test_anything_but_a_yes_is_declined_and_names_no_way_back_to_the_change(
    booking: str, said: dict[str, Any]
) -> None:
    raw = {"booking": booking, "idempotency_key": KEY, "dry_run": False}
    try:
        anyio.run(consent, attempt(raw, asking(said)), NO_STORE, Handler())
    except Refused as refused:
        envelope = refused.envelope
    else:
        raise AssertionError(f"{said} was taken for a yes")
    assert envelope.code == "confirmation_declined"
    # neither the change nor its dry run: the person refused it (decision 0063)
    assert envelope.repair is None and "next_call" not in envelope.to_dict()


# -- effects -------------------------------------------------------------------------------------


@settings(max_examples=15)
@given(booking=BOOKINGS, key=KEYS)
def test_a_preview_leads_on_to_the_real_run_whose_token_is_spent_once(
    booking: str, key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    durability = fresh(tmp_path_factory.mktemp("effects"))  # one store per example
    handler = Handler()
    dry = attempt({"booking": booking, "idempotency_key": key, "dry_run": True})
    assert previews(dry)
    shown = anyio.run(preview, dry, durability, handler)
    assert shown.meta is None  # no receipt: the real run under the key must not replay a preview
    assert shown.structured["previewed"] is True and len(handler.ran) == 1
    following = shown.structured["next_call"]
    assert following["tool"] == SPEC.name
    arguments = following["arguments"]
    assert {k: arguments[k] for k in ("booking", "idempotency_key", "dry_run")} == {
        "booking": booking,
        "idempotency_key": key,
        "dry_run": False,
    }
    real = attempt(arguments)
    assert not previews(real)
    done = anyio.run(perform, real, durability, handler)
    assert done.structured == {"booking": booking, "previewed": False}
    assert done.meta == {"dev.drivable/receipt": {"replayed": False}}
    # the same token under another key is another run: the token was spent with the first
    again = attempt({**arguments, "idempotency_key": key + "-2"})
    assert refusal(lambda: perform(again, durability, handler)) == "confirmation_invalid"
    assert len(handler.ran) == 2


def test_a_refusal_inside_the_effect_rolls_the_spent_token_back(durability: Durability) -> None:
    handler = Handler()
    dry = attempt({"booking": "b1", "idempotency_key": KEY})
    arguments = anyio.run(preview, dry, durability, handler).structured["next_call"]["arguments"]
    handler.refuse = Refused(Envelope("conflict", "Changed meanwhile.", hint="Read it again."))
    assert refusal(lambda: perform(attempt(arguments), durability, handler)) == "conflict"
    handler.refuse = None
    done = anyio.run(perform, attempt(arguments), durability, handler)
    assert not done.is_error and done.structured["booking"] == "b1"


@settings(max_examples=15)
@given(booking=BOOKINGS, key=KEYS, noted=st.booleans())
def test_a_keyed_retry_replays_the_first_answer_without_running_the_handler(
    booking: str, key: str, noted: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    durability = fresh(tmp_path_factory.mktemp("effects"))  # one store per example
    raw = {"booking": booking, "idempotency_key": key, "dry_run": False}
    handler = Handler()
    first = attempt(raw)
    if noted:
        first.context.note("A note of the first run.")
    done = anyio.run(partial(perform, first, durability, handler, confirmed=True))
    again = anyio.run(partial(perform, attempt(raw), durability, handler, confirmed=True))
    assert len(handler.ran) == 1
    receipt = again.meta and again.meta["dev.drivable/receipt"]
    assert receipt and receipt["replayed"] is True and isinstance(receipt["recorded_at"], float)
    assert again.structured["notes"] == [*done.structured.get("notes", []), REPLAYED_NOTE]
    assert {k: v for k, v in again.structured.items() if k != "notes"} == {
        k: v for k, v in done.structured.items() if k != "notes"
    }


@settings(max_examples=15)
@given(booking=BOOKINGS, key=KEYS)
def test_a_real_run_needs_the_token_unless_the_user_confirmed_it(
    booking: str, key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    durability = fresh(tmp_path_factory.mktemp("effects"))
    raw = {"booking": booking, "idempotency_key": key, "dry_run": False}
    handler = Handler()
    assert refusal(lambda: perform(attempt(raw), durability, handler)) == "confirmation_required"
    assert [a.dry_run for a in handler.ran] == [True]  # its dry run, shown in the refusal
    handler.ran.clear()
    done = anyio.run(partial(perform, attempt(raw), durability, handler, confirmed=True))
    assert not done.is_error and len(handler.ran) == 1


def test_a_preview_under_a_key_of_another_change_leads_on_with_a_key_of_its_own(
    durability: Durability,
) -> None:
    key = KEY
    handler = Handler()
    first = attempt({"booking": "first", "idempotency_key": key, "dry_run": False})
    anyio.run(partial(perform, first, durability, handler, confirmed=True))
    dry = attempt({"booking": "second", "idempotency_key": key, "dry_run": True})
    shown = anyio.run(preview, dry, durability, handler).structured
    own = key_of_change(key, arguments_digest(identity(dry.args)))
    assert shown["next_call"]["arguments"]["idempotency_key"] == own
    # said in the preview itself: the note is made between the handler and the shaping
    assert shown["notes"] == [
        f"idempotency_key {key!r} already names another cancel_booking change; "
        f"next_call carries {own!r}, a key of this change's own.",
        PREVIEW_NOTE,
    ]
