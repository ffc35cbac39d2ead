"""Durable effects in the call pipeline: idempotency keys and two-step destructive actions.

A mutating tool that is not naturally idempotent takes `idempotency_key`: the same key with the
same arguments replays the stored result without running the handler; with other arguments it is
`idempotency_mismatch` naming the fields; while the first call runs, `in_progress`; once the
record the first call made was undone by another call, `change_undone` (nothing runs). A destructive
tool takes `dry_run` (default false) and `confirm_token`: a call without its token changes
nothing and is answered with its dry run and a token bound to the tool, the arguments and the
principal (`dry_run=true` asks for the dry run alone); the real run spends it, in the same
transaction as the effect. The store is `drivable.effects` (SQLite by default, PostgreSQL for
several processes).
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field

from drivable.contract.echo import NextCall
from drivable.contract.envelope import Envelope, Issue, Repair
from drivable.contract.stages.base import Refused
from drivable.effects import (
    CONTROL_FIELDS,
    ConfirmTokens,
    EffectStore,
    Executed,
    InProgress,
    Mismatch,
    Refusal,
    Replay,
    StoreUnavailable,
    StoreUnavailableError,
    Transaction,
    arguments_digest,
)
from drivable.kinds import Kind
from drivable.kinds._reading import Deferred
from drivable.kinds.idempotency_key import IdempotencyKey as _IdempotencyKey

RECEIPT_WINDOW_S = 24 * 3600
CONFIRM_TTL_S = 600

_KEY_SAID = (
    "A key you generate once per intended change (a UUID is fine) and resend unchanged on every "
    "retry of that change."
)
_DRY_RUN_SAID = (
    "true only previews the change; false (the default) makes it, given this call's confirm_token."
)
_TOKEN_SAID = (
    "The confirm_token the dry run of this exact call returned; required when dry_run is false."
)

IdempotencyKey = Annotated[_IdempotencyKey, Field(description=_KEY_SAID)]
"""Declare `idempotency_key: IdempotencyKey` on mutating tools (required; the `Keyed` base of
`drivable.contract.inputs` declares it). The kind reads it (drivable.kinds.idempotency_key): any
key of the allowed characters as it is, a short one with a note; a placeholder copied from a
description is refused with a fresh key to use."""

DryRun = Annotated[bool, Field(description=_DRY_RUN_SAID)]
"""Declare `dry_run: DryRun = False` on destructive tools (the `Confirmed` base declares it)."""

ConfirmToken = Annotated[
    Annotated[str, Kind("text", intent="read")] | None,
    Field(min_length=1, max_length=1024, description=_TOKEN_SAID),
]
"""Declare `confirm_token: ConfirmToken = None` on destructive tools. Its placeholders ('',
"string", "n/a") read as no token, on a write too: without a token the call can only be refused
with the dry run to make (`confirmation_required`), so reading them as absence loses nothing and
spares the round trip a placeholder question would cost."""

# The same fields as defaults, as models declared before the annotated forms spell them
# (`idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY`).
IDEMPOTENCY_KEY: Any = Field(description=_KEY_SAID)
DRY_RUN: Any = Field(False, description=_DRY_RUN_SAID)
CONFIRM_TOKEN: Any = Field(None, min_length=1, max_length=1024, description=_TOKEN_SAID)


def window_text(seconds: float) -> str:
    hours = seconds / 3600
    return f"{int(hours)} hours" if hours == int(hours) else f"{int(seconds)} seconds"


def retry_sentence(window_s: float) -> str:
    """What a keyed tool's description may say about retries (the `retry-sentence` addition)."""
    return (
        f"Retrying with the same idempotency_key and arguments within {window_text(window_s)} "
        "replays the first result; nothing runs twice."
    )


def two_step_sentence(ttl_s: float) -> str:
    """What a destructive tool's description says about its two steps (`two-step-sentence`)."""
    return (
        "Two steps: a call without its confirm_token changes nothing and answers with what it "
        "would do and, in `repair`, the same call with a confirm_token (valid "
        f"{int(ttl_s // 60)} minutes, single use): send that as it is to make the change."
    )


@dataclass
class Durability:
    """The store and token issuer a contract's mutating tools use."""

    store: EffectStore
    tokens: ConfirmTokens
    window_s: float = RECEIPT_WINDOW_S


def identity(args: BaseModel) -> dict[str, Any]:
    """The arguments that make a call what it is (control fields left out): the values read, not
    their spellings; a value the handler settles (`Deferred`) counts once it is settled."""
    dumped = args.model_dump(mode="json")
    return {k: v for k, v in dumped.items() if k not in CONTROL_FIELDS}


def unsettled(value: Any) -> bool:
    """Whether the arguments hold a value only the handler can finish reading (`Deferred`)."""
    if isinstance(value, Deferred):
        return not value.is_settled
    if isinstance(value, BaseModel):
        return any(unsettled(getattr(value, name)) for name in type(value).model_fields)
    if isinstance(value, list | tuple):
        return any(unsettled(item) for item in value)
    if isinstance(value, Mapping):
        return any(unsettled(item) for item in value.values())
    return False


def dry_run_repair(tool: str, args: BaseModel) -> Repair:
    arguments = args.model_dump(
        mode="json", exclude={"confirm_token", "dry_run"}, exclude_none=True
    )
    arguments["dry_run"] = True
    return Repair(tool, arguments, "dry_run_for_a_fresh_confirm_token")


def confirm_call(tool: str, args: BaseModel, token: str) -> NextCall:
    """The call a dry run's preview leads to: the same arguments, dry_run=false and its token."""
    arguments = args.model_dump(
        mode="json", exclude={"confirm_token", "dry_run"}, exclude_none=True
    )
    arguments["dry_run"] = False
    arguments["confirm_token"] = token
    return NextCall(tool=tool, arguments=arguments)


def refusal_envelope(tool: str, args: BaseModel, refusal: Refusal) -> Envelope:
    return Envelope(
        refusal.code,
        refusal.message,
        hint=(
            f"Call {tool} with dry_run=true (the call in `repair`), check the preview, then repeat "
            "it with dry_run=false and the confirm_token in its next_call."
        ),
        issues=[Issue("confirm_token", refusal.code, refusal.message)],
        repair=dry_run_repair(tool, args),
        details={"reason": refusal.reason.value},
    )


def token_key(token: str) -> str:
    """The receipt key of a change confirmed by `token` (a tool without an idempotency_key)."""
    return "confirmed:" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:32]


def key_of_change(key: str, digest: str) -> str:
    """A key of one change's own when `key` already names another change: `key` with the digest
    of this change's arguments (`arguments_digest`), so every retry of this change derives the
    same key (and replays), and no other change does
    (docs/decisions/0025-a-reused-key-gets-a-key-of-its-own.md)."""
    return f"{key[:100]}-{digest[:12]}"


async def own_key(
    durability: Durability, *, tool: str, principal: str, key: str, args: BaseModel
) -> str | None:
    """The key of this change's own (`key_of_change`) when the call's idempotency_key already names
    a change with other arguments (its real run would be `idempotency_mismatch`); None when the key
    is free. A store that cannot tell counts as free: the real run checks again."""
    try:
        receipt = await durability.store.receipt(tool=tool, principal=principal, key=key)
    except StoreUnavailableError:
        return None
    digest = arguments_digest(identity(args))
    return key_of_change(key, digest) if receipt is not None and receipt.digest != digest else None


def mismatch_envelope(tool: str, mismatch: Mismatch, key: str, args: BaseModel) -> Envelope:
    """Refused: the key names another change. `repair` is this call with a key of its own
    (`key_of_change`); a confirm_token stays valid in it (a token is bound to the arguments, not
    to the key)."""
    fields = ", ".join(mismatch.fields) or "the arguments"
    arguments = args.model_dump(mode="json", exclude_none=True)
    arguments["idempotency_key"] = key_of_change(key, arguments_digest(identity(args)))
    return Envelope(
        "idempotency_mismatch",
        f"This idempotency_key was already used for {tool} with different {fields}.",
        hint=(
            f"To make this change, call {tool} as in `repair` (this call with a new "
            "idempotency_key of its own); to retry the first change, resend its original arguments."
        ),
        repair=Repair(tool, arguments, "new_idempotency_key_for_a_new_change"),
        issues=[
            Issue(
                path,
                "differs_from_original",
                f"'{path}' differs from the first call with this key.",
            )
            for path in mismatch.fields
        ],
    )


def undone_envelope(tool: str, replay: Replay, key: str, args: BaseModel) -> Envelope:
    """Refused: the key's first call made a record that a later call undid (docs/effects.md,
    "Undone since"; docs/decisions/0022-a-replay-says-what-was-undone.md). Nothing ran; the
    `repair` makes it again: this call, every argument kept, under a key of its own
    (`key_of_change`, so a retry of the repair replays it rather than make a third)."""
    undone = replay.undone
    assert undone is not None
    what = f"{undone.kind} {undone.entity_id}"
    arguments = args.model_dump(mode="json", exclude_none=True)
    arguments["idempotency_key"] = key_of_change(key, arguments_digest(identity(args)))
    when = datetime.datetime.fromtimestamp(undone.at, datetime.UTC).isoformat(timespec="seconds")
    return Envelope(
        "change_undone",
        f"The {what} that the first {tool} call with this idempotency_key made was undone "
        f"since by {undone.by}; nothing ran now.",
        hint=(
            f"To make it again, call {tool} as in `repair` (the same arguments under a new "
            f"idempotency_key of its own); if the user did not ask for it again, tell them the "
            f"{undone.kind} was undone by {undone.by}."
        ),
        repair=Repair(tool, arguments, "make_it_again_under_a_new_key"),
        details={
            "made": {"kind": undone.kind, "id": undone.entity_id},
            "undone_by": undone.by,
            "undone_at": when.replace("+00:00", "Z"),
            "first_result": replay.result,
        },
    )


def in_progress_envelope(tool: str, waiting: InProgress) -> Envelope:
    return Envelope(
        "in_progress",
        f"A call to {tool} with this idempotency_key is still running.",
        hint=f"Call {tool} again with the same idempotency_key and arguments after retry_after_ms.",
        retry_after_ms=waiting.retry_after_ms,
    )


def unavailable_envelope(tool: str, down: StoreUnavailable) -> Envelope:
    """The message says what happened to the call, not to the store; the store's reason is in
    `details` (docs/decisions/0024-how-a-next-step-is-said.md, 5)."""
    return Envelope(
        "unavailable",
        f"{tool} could not run just now; nothing was applied.",
        hint=(
            f"Call {tool} again after retry_after_ms with the same arguments (and the same "
            "idempotency_key); nothing was applied."
        ),
        retry_after_ms=down.retry_after_ms,
        details={"reason": down.reason.value},
    )


Effect = Callable[[Transaction | None], Awaitable[dict[str, Any]]]


async def run_keyed(
    durability: Durability,
    *,
    tool: str,
    principal: str,
    key: str,
    args: BaseModel,
    effect: Effect,
) -> tuple[dict[str, Any] | None, Envelope | None, Mapping[str, Any] | None]:
    """Run `effect` at most once per key: (result, None, receipt meta) or (None, envelope, None)."""

    async def inside(tx: Transaction) -> Mapping[str, Any]:
        return await effect(tx)

    try:
        outcome = await durability.store.run_idempotent(
            tool=tool,
            principal=principal,
            key=key,
            arguments=identity(args),
            effect=inside,
            window_s=durability.window_s,
        )
    except Refused as rejected:
        return None, rejected.envelope, None
    if isinstance(outcome, Executed):
        return outcome.result, None, {"replayed": False}
    if isinstance(outcome, Replay):
        if outcome.undone is not None:
            return None, undone_envelope(tool, outcome, key, args), None
        return outcome.result, None, {"replayed": True, "recorded_at": outcome.recorded_at}
    if isinstance(outcome, Mismatch):
        return None, mismatch_envelope(tool, outcome, key, args), None
    if isinstance(outcome, InProgress):
        return None, in_progress_envelope(tool, outcome), None
    return None, unavailable_envelope(tool, outcome), None


def check_token(durability: Durability, *, tool: str, principal: str, args: BaseModel) -> None:
    """Refuse early a confirm_token that cannot confirm this call whatever its arguments settle
    to (missing, forged, expired, another tool or principal); raise Refused if so."""
    claims = durability.tokens.verify(getattr(args, "confirm_token", None), tool, None, principal)
    if isinstance(claims, Refusal):
        raise Refused(refusal_envelope(tool, args, claims))


async def spend_token(
    durability: Durability,
    *,
    tool: str,
    principal: str,
    args: BaseModel,
    transaction: Transaction | None,
) -> None:
    """Redeem the call's confirm_token (in the effect's transaction); raise Refused if refused.

    The token is bound to the digest of `identity(args)`: call it after the handler settled every
    deferred value, or before the handler when there is none."""
    token = getattr(args, "confirm_token", None)
    refused = await durability.tokens.redeem(
        token, tool, arguments_digest(identity(args)), principal, transaction=transaction
    )
    if refused is None:
        return
    if isinstance(refused, Refusal):
        raise Refused(refusal_envelope(tool, args, refused))
    raise Refused(unavailable_envelope(tool, refused))


def issue_token(durability: Durability, *, tool: str, principal: str, args: BaseModel) -> str:
    return durability.tokens.issue(tool, arguments_digest(identity(args)), principal)
