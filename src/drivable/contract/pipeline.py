"""The call pipeline: one tools/call through small stages, every refusal through one finalizer.

    bound_size -> resolve -> check_access -> read_arguments -> bound_read -> set_aside
    -> consent -> effects (preview | perform, or its dry run as the refusal) -> handler
    -> relax_empty -> shape

Each stage is a function of the `Attempt` in its own module under `drivable.contract.stages`,
testable alone; a stage refuses by raising `Refused(envelope)`, and `run` hands every envelope to
the contract's finalizer (registered code, temporary/retry defaults, request id, fingerprint), so
no stage finishes an envelope itself. The handler runs and its result is shaped in one place,
`answer`: a stage that acts around the handler is handed it (`consent` shows its dry run to the
user; `preview` leads its answer on with a confirm token; `perform` runs it inside the effect's
transaction, or not at all on a keyed replay). A new stage is one line here.
"""

from __future__ import annotations

from drivable.contract.call import Outcome
from drivable.contract.client import ClientRound
from drivable.contract.stages.access import check_access
from drivable.contract.stages.base import Attempt, Refused, Settled
from drivable.contract.stages.batches import set_aside
from drivable.contract.stages.bound import bound_read, bound_size
from drivable.contract.stages.consent import consent, through_dry_run
from drivable.contract.stages.effects import is_durable, perform, preview, previews
from drivable.contract.stages.handler import failure_envelope, invoke
from drivable.contract.stages.reading import read_arguments
from drivable.contract.stages.relaxing import relax_empty
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
            if not is_durable(attempt):
                return await answer(attempt)
            durability = await attempt.contract.durable()
            confirmed = await consent(attempt, durability, answer)
            if previews(attempt):
                return await preview(attempt, durability, answer)
            return await perform(attempt, durability, answer, confirmed=confirmed)
        except (Refused, StrictError, ClientRound):
            raise  # a ClientRound is the transport's to answer (input_required, -32021)
        except Exception as failure:
            raise Refused(failure_envelope(attempt, failure)) from None
    except Refused as refused:
        envelope = await through_dry_run(attempt, refused.envelope)
        return attempt.contract.finish(envelope, attempt.request_id, attempt.spec)


async def answer(attempt: Attempt, settled: Settled | None = None) -> Outcome:
    """The handler's result as the call's outcome: the one place the handler runs and is shaped
    (`Answer`); `settled` runs between the two."""
    result = await invoke(attempt)
    await relax_empty(attempt, result)
    if settled is not None:
        await settled()
    return outcome(attempt, result)
