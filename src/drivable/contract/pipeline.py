"""The call pipeline: one tools/call through small stages, every refusal through one finalizer.

    bound_size -> resolve -> check_access -> read_arguments -> bound_read -> set_aside -> [effects]
    -> handler
    -> shape

Each stage is a function of the `Attempt` in its own module under `drivable.contract.stages`,
testable alone; a stage refuses by raising `Refused(envelope)`, and `run` hands every envelope to
the contract's finalizer (registered code, temporary/retry defaults, request id, fingerprint), so
no stage finishes an envelope itself. A new stage is one line here.

A temporary refusal (unavailable, a timeout, rate_limited, in_progress) of a call that is safe to
repeat carries that same call as its `repair`: shown only a hint saying to call again, the real
model answered the user with the hint in 2 of 6 replays; shown the call, it retried in 6 of 6.
"""

from __future__ import annotations

from drivable.contract.call import Outcome
from drivable.contract.client import ClientRound
from drivable.contract.envelope import Envelope, Repair
from drivable.contract.stages.access import check_access
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.stages.batches import set_aside
from drivable.contract.stages.bound import bound_read, bound_size
from drivable.contract.stages.effects import is_durable, run_effects
from drivable.contract.stages.handler import failure_envelope, invoke
from drivable.contract.stages.reading import read_arguments
from drivable.contract.stages.resolve import resolve
from drivable.contract.stages.shaping import outcome
from drivable.contract.strict import StrictError


async def run(attempt: Attempt) -> Outcome:
    """Answer one call: the shaped result, or the finished envelope of the stage that refused."""
    try:
        bound_size(attempt)
        resolve(attempt)
        check_access(attempt)
        validated = read_arguments(attempt)
        bound_read(attempt)
        set_aside(attempt, validated)
        try:
            if is_durable(attempt):
                return await run_effects(attempt)
            return outcome(attempt, await invoke(attempt))
        except (Refused, StrictError, ClientRound):
            raise  # a ClientRound is the transport's to answer (input_required, -32021)
        except Exception as failure:
            raise Refused(failure_envelope(attempt, failure)) from None
    except Refused as refused:
        envelope = with_retry(attempt, refused.envelope)
        return attempt.contract.finish(envelope, attempt.request_id, attempt.spec)


def with_retry(attempt: Attempt, envelope: Envelope) -> Envelope:
    """`envelope` with the same call as its repair, when its code is temporary, it names no
    repair of its own and the call is safe to send twice: it was sent an idempotency_key (when the
    tool takes one; a repeat replays the first receipt), or the tool is read-only or idempotent."""
    code = attempt.contract.codes.get(envelope.code)
    spec = attempt.spec
    if code is None or not code.temporary or envelope.repair is not None or spec is None:
        return envelope
    if "idempotency_key" in spec.input_model.model_fields:
        safe = bool(attempt.raw.get("idempotency_key"))
    else:
        safe = spec.effects.read_only or spec.effects.idempotent
    if safe:
        envelope.repair = Repair(spec.name, dict(attempt.raw), "retry_the_same_call")
    return envelope
