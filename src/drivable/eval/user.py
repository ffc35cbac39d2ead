"""The workflow's user, answering what a server asks them (elicitation), as a person would.

A client that declares `elicitation` lets a server put a question to its user mid-call; a drivable
server asks before a destructive change (`drivable.contract.stages.consent`). In the eval that
user is the workflow's: they asked for the changes its steps name and for nothing else. So the
answer is yes to the call being made when a step of the workflow asks for it (`scorer.asks_for`,
the step's own reading of a call, or the values the question states), and no to any other
change; a form that is not a yes-or-no
question is declined, since the user has nothing to say to it.

`--user` on the eval and the side by side makes every side's client declare elicitation and
answer through this; a server that never asks is unaffected. Each answer is counted in the
trial's verdict (`user_said`, by the elicitation action sent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from drivable.eval.scorer import ANSWERS, Normalizer, asks_for
from drivable.eval.turns import ToolCall
from drivable.eval.workflow import Workflow


@dataclass
class WorkflowUser:
    """Answers the questions asked during one trial; `in_flight` is the call being answered."""

    workflow: Workflow
    normalize: Normalizer | None
    in_flight: ToolCall | None = None
    said: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ANSWERS, 0))

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        question = _yes_or_no(params)
        if question is None:
            return types.ElicitResult(action="decline")
        call = self.in_flight
        agrees = call is not None and asks_for(
            self.workflow, call, self.normalize, question=params.message
        )
        self.said["accept" if agrees else "decline"] += 1
        if not agrees:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={question: True})


def _yes_or_no(params: types.ElicitRequestParams) -> str | None:
    """The one boolean property a form asks for, if that is all it asks."""
    schema = params.requested_schema if isinstance(params, types.ElicitRequestFormParams) else None
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties") or {}
    if len(properties) != 1:
        return None
    ((name, spec),) = properties.items()
    return name if isinstance(spec, dict) and spec.get("type") == "boolean" else None
