"""A destructive call confirmed by the user, where the client can ask them (elicitation).

The two-step form (dry run, then the confirm token) works with every client, but it leaves the
"is this what you meant?" to the model: a model that previews a change nobody asked for can send
the preview's next call and make it. A client that declared `elicitation` puts the question to
the person instead, so no destructive change runs there without their yes (decision 0063):

- a call sent with `dry_run=false` and no `confirm_token` shows the user the dry run's summary
  and goes ahead on their yes (the user's word stands for the token);
- a call with a confirm token that verifies for it is asked the same way, and on a yes the token
  is spent as on any client (so a resend replays); a token that does not verify is refused by the
  effect as before, unasked, and a resend of a change already made replays unasked.

Without elicitation a tokenless call is refused with `confirmation_required` as before. A no, a
dismissed form or a cancel is `confirmation_declined`: nothing ran, and it names no next call (the
only one it could name leads back to the refused change).

The stage runs before the effect; the dry run it shows is the pipeline's own handler call
(`Answer`) on a copy of the call with `dry_run=true`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from drivable.contract.client import Elicit, Elicited
from drivable.contract.durable import Durability, identity, token_key, unsettled
from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Answer, Attempt, Refused
from drivable.effects import Refusal, arguments_digest
from drivable.kinds import validate

ASK_KEY = "confirm"
FORM = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Go ahead",
            "description": "true performs the action described above; false cancels it.",
            "default": False,
        }
    },
    "required": ["confirm"],
}


def can_ask(attempt: Attempt) -> bool:
    """A real run of a destructive tool, from a client that can ask its user."""
    return (
        attempt.tool.effects.destructive
        and not attempt.args.dry_run
        and attempt.context.client.supports("elicitation")
    )


async def consent(attempt: Attempt, durability: Durability, answer: Answer) -> bool:
    """Whether the user's word stands for the confirm token: True on their yes to a tokenless
    call; False when the token decides (a client that cannot ask, a token that does not verify,
    a change already made, or a token the user's yes has just let through); raise Refused on
    anything but a yes. The question shows the call's dry run."""
    if not can_ask(attempt):
        return False
    token = getattr(attempt.args, "confirm_token", None)
    if token is not None and not await _asks_over_token(attempt, durability, str(token)):
        return False
    dry = replace(attempt, args=attempt.args.model_copy(update={"dry_run": True}))
    preview = (await answer(dry)).structured
    said = await attempt.context.client.ask(ASK_KEY, Elicit(question(attempt, preview), FORM))
    if isinstance(said, Elicited) and said.accepted and said.content.get("confirm") is True:
        return token is None
    raise Refused(declined(attempt))


async def _asks_over_token(attempt: Attempt, durability: Durability, token: str) -> bool:
    """A token the user is asked over: it verifies for this call, and the change it confirms (its
    key's receipt) was not made yet. A store that cannot be read asks: the person decides."""
    if not verifies(durability, attempt, attempt.tool.name, attempt.args):
        return False
    key = attempt.args.idempotency_key if attempt.tool.keyed else token_key(token)
    try:
        made = await durability.store.receipt(
            tool=attempt.tool.name, principal=attempt.principal.id, key=key
        )
    except Exception:
        return True
    return made is None


# docs/decisions/0048-a-repair-is-accepted-as-sent.md
DRY_RUN_REPAIR = (
    "The repair is the dry run (dry_run true; a change needs its confirm_token): check its "
    "preview, then send the preview's next_call to make the change."
)


async def through_dry_run(attempt: Attempt, envelope: Envelope) -> Envelope:
    """`envelope` with its repair made the dry run of the same call when, sent as it is, the
    repair would make a destructive change without a confirm_token that confirms it (none, or one
    that does not verify for that call), and the client cannot ask its user: consent would refuse
    it next. Whatever refused first (the reading, a key already used), a repair is a call the
    runtime accepts as sent."""
    repair = envelope.repair
    target = attempt.contract.tools.get(repair.tool) if repair is not None else None
    if repair is None or target is None or not target.effects.destructive:
        return envelope
    if "dry_run" not in target.input_model.model_fields or attempt.client.supports("elicitation"):
        return envelope
    try:
        read = validate(target.input_model, repair.arguments, intent=target.intent).value
    except ValidationError:
        return envelope
    if getattr(read, "dry_run", True) or await confirms(attempt, target.name, read):
        return envelope
    kept = {k: v for k, v in repair.arguments.items() if k not in ("dry_run", "confirm_token")}
    envelope.repair = replace(repair, arguments={**kept, "dry_run": True})
    envelope.hint = f"{envelope.hint} {DRY_RUN_REPAIR}" if envelope.hint else DRY_RUN_REPAIR
    return envelope


async def confirms(attempt: Attempt, tool: str, args: Any) -> bool:
    """`args`' confirm_token verifies for that call of `tool` (its signature, age, tool, caller,
    and the arguments once they are settled); single use is the redeeming's to judge. A store
    that cannot be reached judges nothing: the token is taken as it is."""
    if getattr(args, "confirm_token", None) is None:
        return False
    try:
        durability = await attempt.contract.durable()
    except Exception:
        return True
    return verifies(durability, attempt, tool, args)


def verifies(durability: Durability, attempt: Attempt, tool: str, args: Any) -> bool:
    token = getattr(args, "confirm_token", None)
    if token is None:
        return False
    digest = None if unsettled(args) else arguments_digest(identity(args))
    claims = durability.tokens.verify(token, tool, digest, attempt.principal.id)
    return not isinstance(claims, Refusal)


def question(attempt: Attempt, preview: dict[str, Any]) -> str:
    spec = attempt.tool
    summary = preview.get("summary")
    what = summary if isinstance(summary, str) and summary else json.dumps(preview)
    return f"{spec.title or spec.name}: {what} Go ahead?"


def declined(attempt: Attempt) -> Envelope:
    """The person's no. It names no call: the one next step it could name leads back to the
    change they refused (its dry run, then its token), and the model follows a named step
    (docs/decisions/0063-the-person-where-the-client-can-ask.md)."""
    name = attempt.tool.name
    return Envelope(
        "confirmation_declined",
        f"The user was asked to confirm {name} and said no; nothing was done.",
        hint=(
            "Do not send this change or its dry run again unless the user asks for it; go on "
            "with the rest of what the user asked."
        ),
    )
