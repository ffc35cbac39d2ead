"""Declaring tools: one pydantic input model and one output model per tool, checked at import time.

The input model is what tools/list shows, what the handler receives, and what tests and the eval
validate (`Contract.validate`). Registration refuses a tool a model could not drive: no
description, a name that is not verb_noun, undecided annotations, a read-only tool marked
destructive, an id input not declared with the shared id kinds, cross-field checks (mutually
exclusive optionals belong in one discriminated union), an open schema, no output model.

A handler declared to return `drivable.contract.content.Text` answers prose for the model to read
(a greeting, a diff, a page of markdown): no outputSchema, no structuredContent, its text as the
first content block. Data always has an output model; prose is for what has no structure.

Every import-time refusal of a declaration sits beside the spec it checks, so an author learns
from one module what a tool must be and why it was refused. How tools/list abridges the schemas
built here is `drivable.contract.listing`'s; the fields the runtime adds to every output are
`drivable.contract.reserved`'s.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from drivable.contract.content import Text
from drivable.contract.long_running import LongRunning, TaskDeclarationError
from drivable.contract.reserved import (
    HINT_SCHEMA,
    MESSAGE_SCHEMA,
    NEXT_CALL_SCHEMA,
    NOTES_SCHEMA,
    REJECTED_SCHEMA,
    RESERVED_FIELDS,
    WARNINGS_SCHEMA,
)
from drivable.contract.schemas import nested_models, null_defaults_as_stated, strip_titles
from drivable.kinds import Kind, KindModel
from drivable.verbs import LEADING

ID_KINDS = frozenset({"uuid", "identifier"})
DIALECT = "https://json-schema.org/draft/2020-12/schema"

_NAME = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
# What any MCP tool name must be (SEP-986), whatever a naming exemption allows.
_WIRE_NAME = re.compile(r"^[A-Za-z0-9_./-]{1,64}$")

Stability = Literal["stable", "preview", "experimental"]


class ContractError(Exception):
    """A tool declaration a model could not drive; raised at import time, never at call time."""


@dataclass(frozen=True)
class Effects:
    """The four annotations, each decided by the author (no defaults on purpose)."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def annotations(self) -> dict[str, bool]:
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


READ_ONLY = Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
"""The effects of a tool that only reads: no control fields, safe to call again."""


@dataclass(frozen=True)
class Deprecation:
    """The discoverable deprecation marker ([9.deprecation-marker])."""

    since: str
    removal_at_or_after: str
    replaced_by: str | None
    migration: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "removal_at_or_after": self.removal_at_or_after,
            "replaced_by": self.replaced_by,
            "migration": self.migration,
        }


Handler = Callable[[Any, Any], Awaitable[Any]]


@dataclass
class ToolSpec:
    """A registered tool: everything the runtime needs to list it and to call it."""

    name: str
    title: str
    description: str
    effects: Effects
    input_model: type[KindModel]
    # None: the handler answers prose (`Text`), so the tool has no outputSchema.
    output_model: type[BaseModel] | None
    handler: Handler
    errors: tuple[str, ...]
    stability: Stability
    deprecation: Deprecation | None
    scopes: tuple[str, ...]
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] = field(default_factory=dict)
    best_effort: tuple[str, ...] = ()
    # Why this tool's name may break verb_noun (an explicit, documented exemption), or None.
    name_exempt: str | None = None
    # Long-running work (`LongRunning`, `drivable.tasks`): may answer with a task handle.
    task: Any = None
    # What tools/list leaves out of the description; server/discover publishes it.
    more: str = ""
    # The author's example calls (`examples=`), checked; the surface writes the first one out.
    examples: tuple[Mapping[str, Any], ...] = ()

    @property
    def prose(self) -> bool:
        """The tool answers prose for the model (a `Text`), not data with an outputSchema."""
        return self.output_model is None

    @property
    def keyed(self) -> bool:
        """Mutating and either not naturally idempotent, or idempotent *via* a declared
        idempotency_key (idempotentHint=true is then honest only because receipts replay)."""
        if self.effects.read_only:
            return False
        return not self.effects.idempotent or "idempotency_key" in self.input_model.model_fields

    @property
    def intent(self) -> Literal["read", "write"]:
        return "read" if self.effects.read_only else "write"


def check_name(name: str, allow_name: str | None = None, verbs: frozenset[str] = LEADING) -> None:
    """verb_noun ([3.verbs]: the verb one of `drivable.verbs.LEADING` or the author's own
    `Contract(verbs=...)`), unless the author states why this exact name is required
    (`allow_name`).

    The exemption is for names fixed from outside (a test suite, a client that calls a tool by
    name, a migration alias); the name must still be a valid MCP tool name.
    """
    if allow_name is not None:
        if len(allow_name.strip()) < 10:
            raise ContractError(
                f"tool {name!r}: allow_name needs the reason the name must break verb_noun "
                "(who requires this exact name), in a sentence"
            )
        if not _WIRE_NAME.match(name):
            raise ContractError(
                f"tool name {name!r} is not a valid MCP tool name (1-64 of A-Z a-z 0-9 _ . / -)"
            )
        return
    if not _NAME.match(name):
        raise ContractError(
            f"tool name {name!r} is not snake_case verb_noun (e.g. 'search_decisions', "
            "'billing_refund_invoice')"
        )
    parts = name.split("_")
    if not (parts[0] in verbs or (len(parts) > 2 and parts[1] in verbs)):
        raise ContractError(
            f"tool name {name!r} does not start with a verb (or prefix_verb) drivable knows "
            f"({len(verbs)} of them, `drivable.verbs.LEADING`). If {parts[0]!r} is a verb of "
            f"your domain, declare it: Contract(..., verbs=[{parts[0]!r}]); if the name is "
            "fixed from outside, pass allow_name='<who requires it>' to the tool."
        )


def check_description(name: str, description: str | None, example: str = "") -> str:
    """The author's description, stripped; with the example call written after it (`example`),
    at least 40 characters."""
    text = (description or "").strip()
    if len(f"{text} {example}".strip()) < 40:
        raise ContractError(
            f"tool {name!r} needs a description of at least 40 characters: when to use it, its "
            "edge cases, and an example call"
        )
    return text


def field_kinds(info: FieldInfo) -> list[Kind]:
    """Every kind a model field reads through: on the field, and inside its type (through
    unions: `CustomerId | None`)."""
    return [m for m in info.metadata if isinstance(m, Kind)] + _annotated_kinds(info.annotation)


def _annotated_kinds(annotation: Any) -> list[Kind]:
    found: list[Kind] = []
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, Kind):
            found.append(meta)
    for arg in typing.get_args(annotation):
        found.extend(_annotated_kinds(arg))
    return found


def check_input_model(tool: str, model: type[BaseModel], seen: set[type] | None = None) -> None:
    """Closed objects, shared id kinds, no cross-field checks — at every level."""
    seen = seen if seen is not None else set()
    if model in seen:
        return
    seen.add(model)
    if model.model_config.get("extra") != "forbid":
        raise ContractError(
            f"tool {tool!r}: input model {model.__name__} must be closed (subclass "
            "drivable.kinds.KindModel, or set extra='forbid')"
        )
    decorators = model.__pydantic_decorators__
    if decorators.model_validators:
        raise ContractError(
            f"tool {tool!r}: {model.__name__} has a cross-field check; mutually exclusive "
            "optionals belong in one discriminated union (or the tool has more than one job)"
        )
    # a model whose ids another server states (a wrapped upstream's pattern or format) reads
    # them as stated: the shared id kind is an author's choice, not the upstream's
    stated = bool(getattr(model, "ids_as_stated", False))
    for name, info in model.model_fields.items():
        kinds = field_kinds(info)
        is_id = name == "id" or name.endswith("_id")
        if is_id and not stated and not any(k.name in ID_KINDS for k in kinds):
            raise ContractError(
                f"tool {tool!r}: id input {model.__name__}.{name} must be declared with the shared "
                "id type (drivable.kinds.uuid.Uuid or drivable.kinds.identifier.IdOf(prefix))"
            )
        for nested in nested_models(info.annotation):
            check_input_model(tool, nested, seen)


def _check_closed(tool: str, node: Any, where: str) -> None:
    if isinstance(node, dict):
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            raise ContractError(f"tool {tool!r}: schema object at {where or '/'} is not closed")
        for key, value in node.items():
            _check_closed(tool, value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_closed(tool, value, f"{where}/{i}")


def cursor_field(model: type[BaseModel]) -> str | None:
    """The input property a paged tool reads its cursor from, or None (asked twice a call:
    found once a model class)."""
    return _cursor_field(model)


@functools.lru_cache(maxsize=4096)
def _cursor_field(model: Any) -> str | None:
    return next((f for f in CURSOR_FIELDS if f in model.model_fields), None)


def input_schema_of(tool: str, model: type[BaseModel]) -> dict[str, Any]:
    schema = strip_titles(model.model_json_schema())
    null_defaults_as_stated(schema, model)
    _check_closed(tool, schema, "")
    return {"$schema": DIALECT, **schema}


# The input property a paged tool takes its cursor in (the Pager scopes the same names).
CURSOR_FIELDS = ("cursor", "page_token")


def best_effort_fields(model: type[BaseModel]) -> list[str]:
    """Top-level list fields read entry by entry (`EachOnItsOwn`)."""
    from drivable.contract.collections import EACH_ON_ITS_OWN

    found = []
    for name, info in model.model_fields.items():
        metadata = list(info.metadata) + list(getattr(info.annotation, "__metadata__", ()))
        if any(m is EACH_ON_ITS_OWN for m in metadata):
            found.append(name)
    return found


def check_effect_inputs(tool: str, effects: Effects, model: type[BaseModel]) -> None:
    """Retries and accidents are designed out: keys on duplicating mutations, two steps on
    destructive ones ([3.idempotency-key], [3.sec-confirmation])."""
    fields = model.model_fields
    key = fields.get("idempotency_key")
    # Declared on an idempotent tool, the key is what makes it idempotent: required too.
    needs_key = not effects.read_only and (not effects.idempotent or key is not None)
    if needs_key and (key is None or not key.is_required()):
        raise ContractError(
            f"tool {tool!r} mutates and is not idempotent: declare a required "
            "`idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY` (drivable.contract.durable)"
        )
    if effects.destructive:
        dry_run = fields.get("dry_run")
        token = fields.get("confirm_token")
        if dry_run is None or dry_run.default is not False or token is None or token.is_required():
            raise ContractError(
                f"tool {tool!r} is destructive: declare `dry_run: bool = DRY_RUN` (default false) "
                "and `confirm_token: ConfirmToken = CONFIRM_TOKEN` (drivable.contract.durable)"
            )
    elif "dry_run" in fields or "confirm_token" in fields:
        raise ContractError(
            f"tool {tool!r}: dry_run/confirm_token belong to destructive tools; declare "
            "effects=Effects(destructive=True) or drop them"
        )


def output_schema_of(
    tool: str,
    model: type[BaseModel],
    *,
    best_effort: bool = False,
) -> dict[str, Any]:
    if model.model_config.get("extra") != "forbid":
        raise ContractError(
            f"tool {tool!r}: output model {model.__name__} must be closed (extra='forbid')"
        )
    schema = strip_titles(model.model_json_schema(mode="serialization"))
    props = dict(schema.get("properties", {}))
    for reserved in RESERVED_FIELDS:
        if reserved in props:
            raise ContractError(
                f"tool {tool!r}: output field {reserved!r} is reserved for the runtime"
            )
    props["notes"] = NOTES_SCHEMA
    props["warnings"] = WARNINGS_SCHEMA
    if best_effort:
        props["rejected"] = REJECTED_SCHEMA
    # every result may lead on (a next page, a dry run's confirmation, a tally's drill-down),
    # and say why in a refusal's words when it is not what the call wanted (`Call.follow`)
    props["message"] = MESSAGE_SCHEMA
    props["hint"] = HINT_SCHEMA
    props["next_call"] = NEXT_CALL_SCHEMA
    schema["properties"] = props
    _check_closed(tool, schema, "")
    return {"$schema": DIALECT, **schema}


def models_of(
    tool: str, handler: Handler, localns: Mapping[str, Any] | None = None
) -> tuple[type[KindModel], type[BaseModel] | None]:
    """The input model (first parameter) and output model (return type) of a handler; None for
    the output model of a handler that returns prose (`Text`).

    `localns` resolves models declared in the scope that declared the handler.
    """
    try:
        hints = typing.get_type_hints(handler, localns=dict(localns or {}), include_extras=False)
    except Exception as exc:
        raise ContractError(f"tool {tool!r}: cannot resolve the handler's annotations") from exc
    params = [p for p in hints if p != "return"]
    if not params:
        raise ContractError(f"tool {tool!r}: the handler's first parameter must be its input model")
    input_model = hints[params[0]]
    output_model = hints.get("return")
    if not (isinstance(input_model, type) and issubclass(input_model, KindModel)):
        raise ContractError(
            f"tool {tool!r}: the input model must subclass drivable.kinds.KindModel"
        )
    if output_model is Text:
        return input_model, None
    if not (isinstance(output_model, type) and issubclass(output_model, BaseModel)):
        raise ContractError(
            f"tool {tool!r}: the handler must return a pydantic model (its outputSchema), or "
            "drivable.contract.content.Text when its answer is prose with no structure"
        )
    return input_model, output_model


def check_prose(tool: str, spec: ToolSpec) -> None:
    """A prose answer has nowhere to carry a confirm token or a receipt's replay: tools that
    change things under a key or a confirmation answer with data."""
    if spec.effects.destructive or spec.keyed:
        raise ContractError(
            f"tool {tool!r}: a destructive or keyed tool answers with an output model (its "
            "confirm token and replayed receipt are fields of the result); return Text only "
            "from a tool that reads or changes nothing under a key"
        )


def build_spec(
    handler: Handler,
    *,
    name: str,
    title: str,
    description: str | None,
    effects: Effects | None,
    errors: Sequence[str],
    known_codes: Mapping[str, Any],
    example: str = "",
    stability: Stability,
    deprecation: Deprecation | None,
    scopes: Sequence[str],
    localns: Mapping[str, Any] | None = None,
    allow_name: str | None = None,
    task: Any = None,
    verbs: frozenset[str] = LEADING,
) -> ToolSpec:
    check_name(name, allow_name, verbs)
    text = check_description(name, description, example)
    if not isinstance(effects, Effects):
        raise ContractError(
            f"tool {name!r}: declare effects=Effects(read_only=..., destructive=..., "
            "idempotent=..., open_world=...); annotations are decided, never defaulted"
        )
    if effects.read_only and effects.destructive:
        raise ContractError(f"tool {name!r}: a read-only tool cannot be destructive")
    if not title.strip():
        raise ContractError(f"tool {name!r}: a title is required for people choosing tools")
    unknown = [c for c in errors if c not in known_codes]
    if unknown:
        raise ContractError(f"tool {name!r}: unregistered error codes {unknown}")
    input_model, output_model = models_of(name, handler, localns)
    check_input_model(name, input_model)
    check_effect_inputs(name, effects, input_model)
    spec = ToolSpec(
        name=name,
        title=title.strip(),
        description=text,
        effects=effects,
        input_model=input_model,
        output_model=output_model,
        handler=handler,
        errors=tuple(errors),
        stability=stability,
        deprecation=deprecation,
        scopes=tuple(scopes),
        name_exempt=allow_name.strip() if allow_name is not None else None,
    )
    spec.input_schema = input_schema_of(name, input_model)
    spec.best_effort = tuple(best_effort_fields(input_model))
    if output_model is None:
        check_prose(name, spec)
    else:
        spec.output_schema = output_schema_of(
            name,
            output_model,
            best_effort=bool(spec.best_effort),
        )
    if task is not None:
        if not isinstance(task, LongRunning):
            raise ContractError(f"tool {name!r}: task= takes a drivable.tasks.LongRunning")
        try:
            task.check_for(name, read_only=effects.read_only, keyed=spec.keyed)
        except TaskDeclarationError as error:
            raise ContractError(str(error)) from None
        spec.task = task
    return spec
