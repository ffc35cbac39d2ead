"""The call pipeline: one tools/call through small stages, every refusal through one finalizer.

    bound_size -> resolve -> check_access -> read_arguments -> bound_read -> set_aside -> [effects]
    -> handler
    -> shape

Each stage is a function of the `Attempt` in its own module under `drivable.contract.stages`,
testable alone; a stage refuses by raising `Refused(envelope)`, and `run` hands every envelope to
the contract's finalizer (registered code, temporary/retry defaults, request id, fingerprint), so
no stage finishes an envelope itself. A new stage is one line here.
"""

from __future__ import annotations

from drivable.contract.call import Outcome
from drivable.contract.client import ClientRound
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
        return attempt.contract.finish(refused.envelope, attempt.request_id, attempt.spec)
