"""Stage: the handler's result as structuredContent, with the call's message, hint, next call,
notes, warnings and rejected entries beside the domain fields; a prose tool's `Text` as its text,
those entries apart. A result outside the tool's declaration is the server's bug: `internal_error`
for the caller, the detail in the log."""

from __future__ import annotations

import logging
from typing import Any, NoReturn

from drivable.contract import boundary
from drivable.contract.call import Outcome
from drivable.contract.content import Text
from drivable.contract.echo import NextCall
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.stages.handler import internal_error
from drivable.contract.strict import StrictError
from drivable.contract.tool import cursor_field

log = logging.getLogger("drivable.contract")


def outcome(attempt: Attempt, result: Any) -> Outcome:
    """The handler's result as the call's outcome: data (structuredContent) or prose."""
    attached = tuple(attempt.context.attachments)
    if not attempt.tool.prose:
        return data(attempt.tool.output_model, shape(attempt, result), content=attached)
    if not isinstance(result, Text):
        outside(attempt, f"declaration (a {type(result).__name__}, not Text)")
    return Outcome(said(attempt, {}), is_error=False, content=attached, prose=result.text)


def data(model: Any, structured: dict[str, Any], **fields: Any) -> Outcome:
    """A data tool's outcome: read as prose when its model names a prose field holding text."""
    field = getattr(model, "prose_field", None)
    prose = structured.get(field) if field is not None else None
    if not isinstance(prose, str):
        return Outcome(structured, is_error=False, **fields)
    return Outcome(structured, is_error=False, prose=prose, prose_from=field, **fields)


def outside(attempt: Attempt, error: object) -> NoReturn:
    """A result outside what the tool declares: the server's bug (strict: raised)."""
    spec, call = attempt.tool, attempt.context
    if attempt.contract.strict:
        raise StrictError(f"{spec.name} returned a result outside its {error}")
    boundary.log_failure(
        log,
        "tool %s returned a result outside its outputSchema (%s)",
        spec.name,
        call.request_id,
    )
    raise Refused(internal_error(spec.name, call.request_id)) from None


def said(attempt: Attempt, structured: dict[str, Any]) -> dict[str, Any]:
    """`structured` with what the runtime says about the call beside the handler's fields."""
    call = attempt.context
    declared = attempt.tool.output_schema.get("properties", {})
    following = next_page(attempt, structured)
    if following is None:
        following = call.following
        # why the result is not what the call wanted, in a refusal's words (`Call.follow`,
        # `Call.say`); never beside a next page
        for key, text in (("message", call.message), ("hint", call.hint)):
            if text and key in declared:
                structured[key] = text
    if following is not None and "next_call" in declared:
        structured["next_call"] = following.model_dump()
    if any(
        text and key in structured for key, text in (("message", call.message), ("hint", call.hint))
    ):
        # a result that is not what the call wanted leads with why and the call to make, as a
        # refusal does (docs/decisions/0036-why-before-the-rows.md)
        leading: tuple[str, ...] = ("message", "hint", "next_call")
        first: dict[str, Any] = {k: structured.pop(k) for k in leading if k in structured}
        structured = {**first, **structured}
    if call.notes:
        structured["notes"] = call.notes
    if call.warnings:
        structured["warnings"] = call.warnings
    if call.rejected:
        structured["rejected"] = call.rejected
    return structured


def next_page(attempt: Attempt, structured: dict[str, Any]) -> NextCall | None:
    """The call that gets the next page: the same arguments, the cursor the page issued.

    A model pages by copying a call, not by assembling one: shown has_more and next_cursor, the
    real model read each result instead, while it follows a repair literally."""
    token = structured.get("next_cursor")
    field = cursor_field(type(attempt.args)) if attempt.args is not None else None
    if not isinstance(token, str) or field is None:
        return None
    arguments = attempt.args.model_dump(
        mode="json", exclude={field}, exclude_defaults=True, exclude_none=True
    )
    arguments[field] = token
    return NextCall(tool=attempt.tool.name, arguments=arguments)


def shape(attempt: Attempt, result: Any) -> dict[str, Any]:
    spec = attempt.tool
    assert spec.output_model is not None, "a prose tool's result is shaped by `outcome`"
    try:
        if not isinstance(result, spec.output_model):
            result = spec.output_model.model_validate(result)
        structured: dict[str, Any] = said(attempt, result.model_dump(mode="json", by_alias=True))
    except Exception as error:
        outside(attempt, f"output model {spec.output_model.__name__}: {error}")
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
