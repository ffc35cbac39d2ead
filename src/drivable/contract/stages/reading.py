"""Stage: read the arguments through the tool's input model (the kinds read leniently, with notes;
the fields of one required item sent at the top level read as that item, `as_one_item`).

A rejection becomes `invalid_arguments` whose issues name each field, and whose hint names the one
next call: both readings of an ambiguous value, a placeholder to omit, or a `repair` when the fix is
certain (a property's name spelled another way; on a read-only tool, a property no declared one
means, left out and said so; a refused cursor, left out) and validates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from drivable.contract.call import Call
from drivable.contract.collections import REJECTED_KEY
from drivable.contract.envelope import Envelope, Issue, Repair
from drivable.contract.relax import reader
from drivable.contract.repairs import RETRY_CONTROLS, one_item, repaired_arguments
from drivable.contract.stages.base import Attempt, Refused, StageContext
from drivable.contract.tool import field_kinds
from drivable.contract.validation import callable_repair, issues_from, placeholder_said
from drivable.kinds import validate
from drivable.kinds.idempotency_key import fresh_key
from drivable.kinds.identifier import lookup_of

if TYPE_CHECKING:
    from drivable.contract.tool import ToolSpec
    from drivable.kinds import Validated


def read_arguments(attempt: Attempt) -> Validated[Any]:
    """Validate `attempt.raw`; record the model and the handler's `Call` on the attempt."""
    spec = attempt.tool
    try:
        validated = validate(spec.input_model, attempt.raw, intent=spec.intent)
    except ValidationError as error:
        item = as_one_item(spec, attempt.raw, error)
        if item is None:
            raise Refused(invalid_arguments(spec, attempt.raw, error, attempt.contract)) from None
        validated = item
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


def as_one_item(
    spec: ToolSpec, raw: Mapping[str, Any], error: ValidationError
) -> Validated[Any] | None:
    """The call read with the fields of one item of a list (or object) it requires sent at the top
    level as that item, when that is certain (`repairs.one_item`) and the call then reads whole:
    a lone item is a list of one, as a lone string is for a string list. Said in a note.
    docs/decisions/0051-an-item-spelled-at-the-top-level-is-read-as-that-item.md"""
    found = one_item(raw, issues_from(error, raw, spec.input_schema), spec.input_schema)
    if found is None:
        return None
    into, value, moved = found
    nested = {k: v for k, v in raw.items() if k not in moved} | {into: value}
    try:
        validated = validate(spec.input_model, nested, intent=spec.intent)
    except ValidationError:
        return None  # still refused: the refusal's repair nests them and fixes the rest
    shape = "its one item" if isinstance(value, list) else "it"
    validated.notes.append(f"{into}: Read {', '.join(moved)} sent beside {into} as {shape}.")
    return validated


def invalid_arguments(
    spec: ToolSpec,
    raw: Mapping[str, Any],
    error: ValidationError,
    contract: StageContext | None = None,
) -> Envelope:
    issues = issues_from(error, raw, spec.input_schema)
    droppable = (
        True if spec.effects.read_only else RETRY_CONTROLS if spec.effects.idempotent else False
    )
    keyed, rest = minted_key(spec, raw, issues)
    fix = repaired_arguments(keyed, rest, spec.input_schema, drop_unknown=droppable)
    repair = None
    if fix is not None and accepted(spec, fix.arguments):
        step = (
            "restart_paging_from_the_first_page"
            if fix.restarted
            else "resend_with_the_fields_inside_their_item"
            if fix.nested
            else "resend_without_unknown_properties"
            if fix.dropped and not fix.renamed
            else "resend_with_corrected_property_names"
            if fix.renamed or fix.dropped
            else "resend_with_a_new_idempotency_key"
        )
        repair = Repair(spec.name, fix.arguments, step)
    moved = moved_value(spec, raw, issues) if repair is None else None
    if moved is not None:
        repair = Repair(spec.name, moved.arguments, "resend_with_the_value_in_its_field")
    minted = repair is not None and keyed is not raw
    if repair is not None and fix is not None and fix.nested:
        issues = nested_issues(issues, fix.nested, fix.arguments[fix.nested])
    first = issues[0] if issues else None
    count = len(issues)
    looked_up = id_lookup(spec, first, contract) if repair is None else None
    if looked_up is not None and first is not None and first.code == "missing_property":
        # a placeholder where the id goes ("<id>", "room_xxx"): the call that lists the ids
        hint = (
            f"{placeholder_said(first.received, first.path)}: find one with {looked_up.tool} (the call in "
            f"`repair`), then call {spec.name} again with the id it returns."
        )
        repair = looked_up
    elif looked_up is not None and first is not None:
        # a name where the id goes ("Wilson Trading" as customer_id): the call that finds the id
        repair = looked_up
        hint = (
            f"{first.path} takes an id, not a name: find it with {looked_up.tool} (the call in "
            f"`repair`), then call {spec.name} again with the id it returns."
        )
    elif first is None:
        hint = f"Check the arguments against {spec.name}'s inputSchema and call it again."
    elif moved is not None:
        value = json.dumps(moved.value.strip(), ensure_ascii=False)
        read = json.dumps(moved.read, ensure_ascii=False)
        said = f"it is a {moved.field}" if read == value else f"{moved.field} reads it as {read}"
        hint = (
            f"{moved.sent_as} takes no {value}; {said}: the call in `repair` sends it as "
            f"{moved.field}, every other argument as sent."
        )
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
    elif repair is not None and fix is not None and fix.nested:
        whole = fix.arguments[fix.nested]
        shape = "a list of objects" if isinstance(whole, list) else "an object"
        fields = ", ".join(whole[0] if isinstance(whole, list) else whole)
        hint = (
            f"{spec.name} takes {fix.nested} as {shape}; {fields} sent beside it are "
            f"{'one item of it' if isinstance(whole, list) else 'its fields'}: the call in "
            "`repair` puts them there, every value as sent."
        )
    elif minted and fix is not None and not (fix.renamed or fix.dropped or fix.restarted):
        hint = (
            f"{spec.name} needs an idempotency_key, and none usable was sent: the call in "
            f"`repair` is this call with a new one. {_KEY_ADDED}"
        )
    elif repair is not None and fix is not None and fix.restarted:
        hint = (
            f"{first.message.rstrip('.')}. The next page comes from the previous page's "
            f"next_call (its next_cursor as `cursor`); the call in `repair` is {spec.name} "
            "from the first page, every other argument kept."
        )
    elif (
        repair is not None
        and fix is not None
        and fix.dropped
        and set(fix.dropped) <= RETRY_CONTROLS
    ):
        names = ", ".join(fix.dropped)
        hint = (
            f"{spec.name} is idempotent: it does the same on a retry without a key, so it takes "
            f"no {names}. The call in `repair` leaves it out, every other argument as sent."
        )
    elif repair is not None and fix is not None and fix.dropped:
        names = ", ".join(fix.dropped)
        hint = (
            f"{spec.name} has no property that means {names}: the call in `repair` leaves it "
            "out, so that constraint is not applied; tell the user if it matters."
        )
    elif repair is not None:
        hint = f"Call {spec.name} again with the corrected property names (the call in `repair`)."
    else:
        hint = f"Fix {first.path} ({first.message.rstrip('.')}) and call {spec.name} again."
    if minted and _KEY_ADDED not in hint:
        hint = f"{hint} It also adds a new idempotency_key. {_KEY_ADDED}"
    return Envelope(
        "invalid_arguments",
        f"{count} argument{'s' if count != 1 else ''} of {spec.name} did not validate.",
        hint=hint,
        issues=issues,
        repair=repair,
    )


@dataclass(frozen=True)
class Moved:
    """A value sent in a field that does not read it, which one other field reads (`moved_value`)."""

    sent_as: str
    field: str
    value: str
    read: Any
    arguments: dict[str, Any]


# Issues about the value itself: a placeholder, a missing or unknown name are other refusals.
_NOT_A_VALUE = frozenset({"missing_property", "unknown_property", "placeholder_value"})


def moved_value(spec: ToolSpec, raw: Mapping[str, Any], issues: list[Issue]) -> Moved | None:
    """The call with a refused value moved to the one field that reads it: the only issue is a
    top-level field that does not read the text sent, no other field of the tool was sent that
    reads it, and exactly one field not sent reads it as a value through its kinds (a free-text
    or id field reads anything and counts for none). "urgent" sent as a ticket's status is its
    priority. The value moves as its field reads it (the same value, in the form the advertised
    schema takes: "4 000" as 4000), every other argument as sent; the repair must read whole.
    docs/decisions/0057-a-value-in-another-fields-place.md"""
    if len(issues) != 1:
        return None
    (issue,) = issues
    sent = raw.get(issue.path)
    if "." in issue.path or issue.code in _NOT_A_VALUE or issue.readings:
        return None
    if not isinstance(sent, str) or not sent.strip():
        return None
    reads = reader(spec.input_model)
    if reads(issue.path, sent) is not None:
        return None
    found = [
        (name, got)
        for name in spec.input_model.model_fields
        if name != issue.path and (got := reads(name, sent)) is not None
    ]
    if len(found) != 1 or found[0][0] in raw:
        return None
    field, got = found[0]
    arguments = {k: v for k, v in raw.items() if k != issue.path} | {field: got}
    if not accepted(spec, arguments):
        return None
    return Moved(issue.path, field, sent, got, arguments)


def accepted(spec: ToolSpec, arguments: Mapping[str, Any]) -> bool:
    """`arguments` read whole: they validate and a best-effort list sets no entry aside."""
    try:
        read = validate(spec.input_model, arguments, intent=spec.intent)
    except ValidationError:
        return False
    return not read.context.get(REJECTED_KEY)


# docs/decisions/0044-a-missing-key-is-minted-in-the-repair.md
_KEY_ADDED = "Resend the repair's idempotency_key unchanged on every retry of this change."


def nested_issues(issues: list[Issue], into: str, value: Any) -> list[Issue]:
    """The issues of a call whose unknown top-level names are one item of `into`
    (`repairs.one_item`, which moves every one of them), saying where each goes, as the repair
    does: never "nothing takes its value"."""
    listed = isinstance(value, list)
    where = f"a field of each item of {into}" if listed else f"a field of {into}"
    whole = "one item" if listed else "value"
    out = []
    for issue in issues:
        if issue.code == "unknown_property":  # one_item moves every unknown name, or none
            message = (
                f"'{issue.path}' is {where}, not of the call: the call in `repair` puts it there."
            )
            issue = replace(issue, message=message, expected=None)
        elif issue.code == "missing_property" and issue.path == into:
            message = (
                f"'{into}' is required: the fields sent beside it are its {whole} in the call "
                "in `repair`."
            )
            issue = replace(issue, message=message)
        out.append(issue)
    return out


def minted_key(
    spec: ToolSpec, raw: Mapping[str, Any], issues: list[Issue]
) -> tuple[Mapping[str, Any], list[Issue]]:
    """The arguments with a freshly minted idempotency_key, and the issues left, when the tool
    takes a key and the call's is missing or no key (a placeholder, "uuid"); else `raw` and
    `issues` as they are. A key means nothing but "this change": a new one is no other value."""
    if "idempotency_key" not in spec.input_model.model_fields:
        return raw, issues
    at_key = [i for i in issues if i.path == "idempotency_key"]
    if len(at_key) != 1 or at_key[0].code not in {"missing_property", "invalid_key"}:
        return raw, issues
    return {**raw, "idempotency_key": fresh_key()}, [i for i in issues if i is not at_key[0]]


def id_lookup(spec: ToolSpec, issue: Issue | None, contract: StageContext | None) -> Repair | None:
    """The call that looks up the id a refused id field wanted, when its kind names one
    (`IdOf(prefix, lookup=(tool, parameter))`), what was sent does not start like an id (a name,
    not a mistyped id) and that call validates: the text that was sent as the parameter that
    finds an id by name, or no argument at all. A placeholder sent as a required id (read as
    no value) is looked up with no argument: it names nothing to find."""
    if issue is None or contract is None or "." in issue.path:
        return None
    if issue.code == "missing_property" and issue.has_received and issue.received is not None:
        options = _identifier_options(spec.input_model, issue.path)
        lookup = lookup_of(options) if options is not None else None
        if lookup is None:
            return None
        repair = Repair(lookup[0], {}, "look_the_id_up_first")
        return repair if callable_repair(contract, repair) else None
    if issue.code != "invalid_id":
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
