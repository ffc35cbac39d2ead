"""Stage: read the arguments through the tool's input model (the kinds read leniently, with notes).

A rejection becomes `invalid_arguments` whose issues name each field, and whose hint names the one
next call: both readings of an ambiguous value, a placeholder to omit, or a `repair` when the fix is
certain (a near-miss property name) and validates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from drivable.contract.call import Call
from drivable.contract.envelope import Envelope, Repair
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.validation import issues_from, repaired_arguments
from drivable.kinds import validate

if TYPE_CHECKING:
    from drivable.contract.tool import ToolSpec
    from drivable.kinds import Validated


def read_arguments(attempt: Attempt) -> Validated[Any]:
    """Validate `attempt.raw`; record the model and the handler's `Call` on the attempt."""
    spec = attempt.tool
    try:
        validated = validate(spec.input_model, attempt.raw, intent=spec.intent)
    except ValidationError as error:
        raise Refused(invalid_arguments(spec, attempt.raw, error)) from None
    attempt.args = validated.value
    attempt.call = Call(
        tool=spec.name,
        principal=attempt.principal,
        request_id=attempt.request_id,
        contract=attempt.contract,
        notes=list(validated.notes),
        warnings=list(validated.warnings),
        progress=attempt.progress,
        client=attempt.client,
    )
    return validated


def invalid_arguments(spec: ToolSpec, raw: Mapping[str, Any], error: ValidationError) -> Envelope:
    issues = issues_from(error, raw, spec.input_schema)
    fixed = repaired_arguments(raw, issues, spec.input_schema)
    repair = None
    if fixed is not None:
        try:
            validate(spec.input_model, fixed, intent=spec.intent)
            repair = Repair(spec.name, fixed, "resend_with_corrected_property_names")
        except ValidationError:
            repair = None
    first = issues[0] if issues else None
    count = len(issues)
    if first is None:
        hint = f"Check the arguments against {spec.name}'s inputSchema and call it again."
    elif first.code == "placeholder_value":
        hint = (
            f"Omit {first.path} to leave it unset, or send its real value, and call "
            f"{spec.name} again."
        )
    elif first.readings and all(str(r) in first.message for r in first.readings):
        # the issue says when each reading is the one meant ("2021-02-01 if the day is written
        # first"): the hint repeats it, where "whichever was meant" left a model to guess
        hint = f"{first.message.rstrip('.')}: resend {spec.name} with {first.path} set to the one meant."
    elif first.readings:
        choices = " or ".join(json.dumps(r, ensure_ascii=False) for r in first.readings)
        hint = f"Resend {spec.name} with {first.path} as {choices}, whichever was meant."
    elif repair is not None:
        hint = f"Call {spec.name} again with the corrected property names (the call in `repair`)."
    else:
        hint = f"Fix {first.path} ({first.message.rstrip('.')}) and call {spec.name} again."
    return Envelope(
        "invalid_arguments",
        f"{count} argument{'s' if count != 1 else ''} of {spec.name} did not validate.",
        hint=hint,
        issues=issues,
        repair=repair,
    )
