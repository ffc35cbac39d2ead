"""Stages: durable effects around the handler (see `drivable.contract.durable`).

A destructive tool's dry run (`preview`) previews and issues a confirm token, carried only inside
the preview's `next_call` (no receipt: a key reused for the real run must not replay the preview).
A change asked for without its token is refused with that same dry run, once `perform` found no
receipt to replay: what it would do in `details.preview`, and the call with its token as the
repair (`confirmation`).
A preview whose idempotency_key already names another change leads on with a key of this change's
own (`key_of_change`), not to a certain refusal. The real run (`perform`) spends the token in the
effect's transaction, unless the user confirmed it through the client (`stages.consent`).
A keyed tool runs at most once per idempotency key and replays the first result after that,
unless what it made was undone since (`change_undone`, `durable.undone_envelope`).

Neither stage runs the handler itself: the pipeline hands them its one call (`Answer`), which
`perform` runs inside the effect's transaction, or not at all on a replay.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from drivable.contract.call import Outcome
from drivable.contract.durable import (
    Durability,
    check_token,
    confirm_call,
    issue_token,
    own_key,
    run_keyed,
    spend_token,
    token_key,
    unsettled,
)
from drivable.contract.envelope import Envelope, Issue, Repair
from drivable.contract.stages.base import Answer, Attempt, Refused
from drivable.contract.stages.shaping import data

RECEIPT_META = "dev.drivable/receipt"
REPLAYED_NOTE = (
    "Replayed the result of the first call with this idempotency_key; nothing ran again."
)
# docs/decisions/0056-a-confirmed-change-sent-again-replays.md
REPLAYED_CONFIRMED_NOTE = (
    "This exact call was already made with this confirm_token: its result is replayed; nothing "
    "ran again."
)
# Every next step that would make a destructive change is offered on the user's word only
# (docs/decisions/0062-a-change-on-the-users-word.md).
IF_ASKED = "If the user asked for this change"
# docs/decisions/0048-a-repair-is-accepted-as-sent.md
PREVIEW_NOTE = (
    f"Dry run: nothing was changed. {IF_ASKED}, send next_call as it is (dry_run false and its "
    "confirm_token); if not, do not send it."
)


def is_durable(attempt: Attempt) -> bool:
    spec = attempt.tool
    return spec.keyed or spec.effects.destructive


def previews(attempt: Attempt) -> bool:
    """A destructive tool's dry run."""
    return attempt.tool.effects.destructive and attempt.args.dry_run


async def preview(
    attempt: Attempt, durability: Durability, answer: Answer, *, note: str = PREVIEW_NOTE
) -> Outcome:
    """The dry run's answer, leading on to the real run with a confirm token for it."""
    spec, call, args = attempt.tool, attempt.context, attempt.args
    principal = call.principal.id
    confirm = args
    mine = args.idempotency_key if spec.keyed else None

    async def own() -> None:
        # the arguments the key is checked against are known once the handler settled them
        nonlocal confirm
        key = mine and await own_key(
            durability, tool=spec.name, principal=principal, key=mine, args=args
        )
        if key:
            confirm = args.model_copy(update={"idempotency_key": key})
            call.note(
                f"idempotency_key {mine!r} already names another {spec.name} "
                f"change; next_call carries {key!r}, a key of this change's own."
            )
        if note:
            call.note(note)

    answered = await answer(attempt, own)
    token = issue_token(durability, tool=spec.name, principal=principal, args=confirm)
    answered.structured["next_call"] = confirm_call(spec.name, confirm, token).model_dump()
    return answered  # with what the handler attached


# docs/decisions/0049-a-change-without-its-token-answers-with-its-preview.md
async def confirmation(attempt: Attempt, durability: Durability, answer: Answer) -> Envelope:
    """The refusal of an unconfirmed change, made from its own dry run: what the call would do
    (`details.preview`), and as the repair the same call with a confirm token bound to it, which
    the runtime accepts as sent. Nothing changed; the model is one call from the user's goal."""
    name = attempt.tool.name
    dry = replace(attempt, args=attempt.args.model_copy(update={"dry_run": True}))
    shown = (await preview(dry, durability, answer, note="")).structured
    confirm = shown.pop("next_call")
    return Envelope(
        "confirmation_required",
        f"Nothing was changed yet: {name} runs only with the confirm_token of this exact call. "
        "`details.preview` shows what it would do.",
        hint=(
            f"{IF_ASKED}, send {name} as in `repair`: the same arguments, dry_run false and "
            "its confirm_token."
        ),
        issues=[
            Issue(
                "confirm_token",
                "confirmation_required",
                "No confirm_token was sent; the one in `repair` is this call's.",
            )
        ],
        repair=Repair(confirm["tool"], confirm["arguments"], "send_the_confirmed_call"),
        details={"preview": shown},
    )


async def perform(
    attempt: Attempt, durability: Durability, answer: Answer, *, confirmed: bool = False
) -> Outcome:
    """The real run: the handler inside the effect's transaction, with the confirm token spent
    in it (`confirmed`: the user said yes instead, `stages.consent`), at most once per key. A
    change that reaches the token without one (no receipt replayed it, no other refusal came
    first) is refused with its own dry run (`confirmation`)."""
    try:
        return await _perform(attempt, durability, answer, confirmed=confirmed)
    except Refused as refused:
        tokenless = getattr(attempt.args, "confirm_token", None) is None
        if refused.envelope.code != "confirmation_required" or not tokenless:
            raise
        raise Refused(await confirmation(attempt, durability, answer)) from None


async def _perform(
    attempt: Attempt, durability: Durability, answer: Answer, *, confirmed: bool
) -> Outcome:
    spec, call, args = attempt.tool, attempt.context, attempt.args
    principal = call.principal.id
    # A value the handler settles ("42.00 GBP" once the invoice's currency is read) is known only
    # after it ran: the token is checked as far as it can be first, and bound to the settled
    # arguments after the handler, inside the transaction, so a refusal rolls the effect back.
    tokens = spec.effects.destructive and not confirmed
    settles = tokens and unsettled(args)
    if settles:
        check_token(durability, tool=spec.name, principal=principal, args=args)

    answered: Outcome | None = None  # the handler's whole answer, attachments and prose too

    async def effect(tx: Any) -> dict[str, Any]:
        nonlocal answered
        tx.tool = spec.name  # what an undo in it names (`Transaction.undo`)
        # The handler writes through the call's transaction while it is open, and never after:
        # a dry run answered after a refusal would otherwise read through a connection the
        # store has given to another call.
        call.transaction = tx
        try:
            if tokens and not settles:
                await spend_token(
                    durability, tool=spec.name, principal=principal, args=args, transaction=tx
                )
            answered = await answer(attempt)
            if settles:
                await spend_token(
                    durability, tool=spec.name, principal=principal, args=args, transaction=tx
                )
            return answered.structured
        finally:
            call.transaction = None

    # A confirmed change is a duplicate when sent again as it was: its token keys it where the
    # tool takes no idempotency_key of its own, so the duplicate replays the first answer
    # instead of being refused as a reused token (decision 0056).
    token = getattr(args, "confirm_token", None)
    by_token = tokens and not spec.keyed and isinstance(token, str) and bool(token)
    if spec.keyed or by_token:
        key = args.idempotency_key if spec.keyed else token_key(str(token))
        result, envelope, receipt = await run_keyed(
            durability, tool=spec.name, principal=principal, key=key, args=args, effect=effect
        )
        if envelope is not None and not (by_token and envelope.code == "idempotency_mismatch"):
            raise Refused(envelope)
        if envelope is None:
            assert result is not None
            meta = {RECEIPT_META: dict(receipt or {})}
            if receipt and receipt.get("replayed"):
                # a replay has the receipt: the structured result (attachments are not kept)
                result = dict(result)
                note = REPLAYED_CONFIRMED_NOTE if by_token else REPLAYED_NOTE
                result["notes"] = [*result.get("notes", []), note]
                return data(spec.output_model, result, meta=meta)
            assert answered is not None
            return replace(answered, structured=result, meta=meta)
        # the token confirmed a call with other arguments: spending it again refuses it as such
    async with durability.store.transaction() as tx:
        structured = await effect(tx)
    assert answered is not None
    return replace(answered, structured=structured)
