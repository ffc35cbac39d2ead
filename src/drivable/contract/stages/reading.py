"""Stage: read the arguments through the tool's input model (the kinds read leniently, with notes).

A rejection becomes `invalid_arguments` whose issues name each field, and whose hint names the one
next call: both readings of an ambiguous value, a placeholder to omit, or a `repair` when the fix is
certain (a near-miss property name; on a read-only tool, a property it does not take, left out)
and validates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from drivable.contract.call import Call
from drivable.contract.envelope import Envelope, Issue, Repair
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.tool import field_kinds
from drivable.contract.validation import callable_repair, issues_from, repaired_arguments
from drivable.kinds import validate
from drivable.kinds.identifier import lookup_of

if TYPE_CHECKING:
    from drivable.contract.runtime import Contract
    from drivable.contract.tool import ToolSpec
    from drivable.kinds import Validated


def read_arguments(attempt: Attempt) -> Validated[Any]:
    """Validate `attempt.raw`; record the model and the handler's `Call` on the attempt."""
    spec = attempt.tool
    try:
        validated = validate(spec.input_model, attempt.raw, intent=spec.intent)
    except ValidationError as error:
        raise Refused(invalid_arguments(spec, attempt.raw, error, attempt.contract)) from None
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


def invalid_arguments(
    spec: ToolSpec,
    raw: Mapping[str, Any],
    error: ValidationError,
    contract: Contract | None = None,
) -> Envelope:
    issues = issues_from(error, raw, spec.input_schema)
    certain = repaired_arguments(
        raw, issues, spec.input_schema, drop_unknown=spec.effects.read_only
    )
    fixed, dropped = certain if certain is not None else (None, [])
    repair = None
    if fixed is not None:
        try:
            validate(spec.input_model, fixed, intent=spec.intent)
            step = (
                "resend_without_unknown_properties"
                if dropped
                else "resend_with_corrected_property_names"
            )
            repair = Repair(spec.name, fixed, step)
        except ValidationError:
            repair = None
    first = issues[0] if issues else None
    count = len(issues)
    looked_up = id_lookup(spec, first, contract) if repair is None else None
    if looked_up is not None and first is not None:
        # a name where the id goes ("Wilson Trading" as customer_id): the call that finds the id
        repair = looked_up
        hint = (
            f"{first.path} takes an id, not a name: find it with {looked_up.tool} (the call in "
            f"`repair`), then call {spec.name} again with the id it returns."
        )
    elif first is None:
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
    elif repair is not None and dropped:
        names = ", ".join(dropped)
        hint = f"{spec.name} takes no {names}: send the call in `repair`, which leaves it out."
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


def id_lookup(spec: ToolSpec, issue: Issue | None, contract: Contract | None) -> Repair | None:
    """The call that looks up the id a refused id field wanted, when its kind names one
    (`IdOf(prefix, lookup=(tool, parameter))`), what was sent does not start like an id (a name,
    not a mistyped id) and that call validates: the text that was sent as the parameter that
    finds an id by name, or no argument at all."""
    if issue is None or issue.code != "invalid_id" or contract is None or "." in issue.path:
        return None
    options = _identifier_options(spec.input_model, issue.path)
    lookup = lookup_of(options) if options is not None else None
    if options is None or lookup is None:
        return None
    sent = issue.received
    prefix = str(options.get("prefix", ""))
    if isinstance(sent, str) and prefix and sent.strip().lower().startswith(prefix.lower()):
        return None
    tool, parameter = lookup
    arguments = {parameter: sent.strip()} if parameter and isinstance(sent, str) else {}
    repair = Repair(tool, arguments, "look_the_id_up_first")
    return repair if callable_repair(contract, repair) else None


def _identifier_options(model: type[BaseModel], name: str) -> dict[str, Any] | None:
    """The options of the identifier kind a field of `model` reads through, if it does."""
    field = model.model_fields.get(name)
    if field is None:
        return None
    return next((k.options for k in field_kinds(field) if k.name == "identifier"), None)
