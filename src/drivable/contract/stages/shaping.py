"""Stage: the handler's result as structuredContent, with the call's notes, warnings and rejected
entries beside the domain fields. A result outside the tool's output model is the server's bug:
`internal_error` for the caller, the detail in the log."""

from __future__ import annotations

import logging
from typing import Any

from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.stages.handler import internal_error
from drivable.contract.strict import StrictError

log = logging.getLogger("drivable.contract")


def shape(attempt: Attempt, result: Any) -> dict[str, Any]:
    spec, call = attempt.tool, attempt.context
    try:
        if not isinstance(result, spec.output_model):
            result = spec.output_model.model_validate(result)
        structured: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
    except Exception as error:
        if attempt.contract.strict:
            raise StrictError(
                f"{spec.name} returned a result outside its output model "
                f"{spec.output_model.__name__}: {error}"
            ) from error
        log.exception(
            "tool %s returned a result outside its outputSchema (%s)", spec.name, call.request_id
        )
        raise Refused(internal_error(spec.name, call.request_id)) from None
    if call.notes:
        structured["notes"] = call.notes
    if call.warnings:
        structured["warnings"] = call.warnings
    if call.rejected:
        structured["rejected"] = call.rejected
    if attempt.contract.strict:
        check_output(spec.name, spec.output_schema, structured)
    return structured


def check_output(name: str, schema: dict[str, Any], structured: dict[str, Any]) -> None:
    """Strict mode: the result validates against the advertised outputSchema."""
    import jsonschema

    try:
        jsonschema.validate(structured, schema)
    except jsonschema.ValidationError as error:
        where = "/".join(str(p) for p in error.absolute_path) or "(result)"
        raise StrictError(
            f"{name}'s result does not validate against its outputSchema at {where}: "
            f"{error.message}"
        ) from None
