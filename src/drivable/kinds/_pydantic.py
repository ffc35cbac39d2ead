"""The seam to pydantic: kinds as field types, name binding, and validation that keeps the notes.

A field declared `Annotated[date, Kind("date")]` advertises the strict JSON Schema of the kind
(what an agent should send) and validates through the kind's one reader (what agents do send).
`KindModel` binds kinds implied by property names (limit, date_from, *_id, ...) and reads every
optional property's placeholders as absence, so a new tool inherits both without saying so.
"""

from __future__ import annotations

import datetime
import types
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ConfigDict, ValidationError

from drivable.kinds._apply import NOTES_KEY, WARNINGS_KEY
from drivable.kinds._kind import INTENT_KEY, Kind
from drivable.kinds._reading import Warning_
from drivable.kinds._registry import Intent, Options, bound_kind
from drivable.kinds.time_range import TimeRange


class KindModel(BaseModel):
    """A closed input model whose fields read through kinds, bound by type or by property name."""

    model_config = ConfigDict(extra="forbid")

    # Property names exempt from name binding in a subclass (declare them with an explicit Kind).
    unbound: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if _bind_fields(cls):
            cls.model_rebuild(force=True)


def _bind_fields(model: type[BaseModel]) -> bool:
    """Attach a kind to every field that has one: by property name first, then by Python type.

    `limit: int` clamps as a page size, `date_to: date` reads "2020" as 2020-12-31, any `date`,
    `datetime`, `time`, `TimeRange`, `bool`, `int`, `float`, `UUID`, `Literal[...]` or
    `list[str]` reads through its kind, `email: str` as an address, and an
    optional `str` reads placeholders as absence. Bounds move into the kind (it clamps or refuses
    with them); other constraints stay and are still advertised.
    """
    changed = False
    unbound: frozenset[str] = getattr(model, "unbound", frozenset())
    for name, info in model.model_fields.items():
        declared = [m for m in info.metadata if isinstance(m, Kind)]
        if declared:
            # a constraint written before the Kind ("Field(max_length=100)" on an Annotated
            # kind) would check the value the kind discards: place it after, as for bound kinds,
            # and tell the kind the field's bounds (it names them when they are exceeded)
            if _misplaced(info.metadata, declared[0]):
                _place(info.metadata, declared[0].name, dict(declared[0].options), declared[0])
                changed = True
            continue
        if name in unbound or _declares_kind(info.annotation):
            continue
        chosen: tuple[str, dict[str, Any]] | None = None
        bound = bound_kind(name)
        if bound is not None and _binds(bound[0], info.annotation):
            chosen = (bound[0], dict(bound[1]))
        else:
            chosen = _kind_of_type(info.annotation, required=info.is_required())
        if chosen is None:
            continue
        kind_name, options = chosen
        _place(info.metadata, kind_name, options)
        changed = True
    return changed


def _misplaced(metadata: list[Any], declared: Kind) -> bool:
    """The kind is not first, or a constraint after it is not yet in its options."""
    if metadata[0] is not declared:
        return True
    known = declared.options.get("json_extra") or {}
    return any(
        key not in known for m in metadata[1:] for key in _constraint_schema(m, declared.name)
    )


def _place(
    metadata: list[Any], kind_name: str, options: dict[str, Any], replaced: Kind | None = None
) -> None:
    """`metadata` as [the kind, the constraints left after it]: bounds move into the kind (it
    clamps or refuses with them), the others stay, advertised and checked on what it read."""
    kept: list[Any] = []
    extra_schema: dict[str, Any] = dict(options.get("json_extra") or {})
    for m in metadata:
        if m is replaced:
            continue
        if isinstance(m, annotated_types.Ge) and kind_name in _BOUNDED:
            options["minimum"] = m.ge
        elif isinstance(m, annotated_types.Le) and kind_name in _BOUNDED:
            options["maximum"] = m.le
        else:
            kept.append(m)
            extra_schema.update(_constraint_schema(m, kind_name))
    if extra_schema:
        options["json_extra"] = extra_schema
    # The kind comes first: the constraints left after it check the value it read.
    metadata[:] = [Kind(kind_name, **options), *kept]


_BOUNDED = frozenset({"integer", "number", "date", "money"})


def _kind_of_type(annotation: Any, *, required: bool) -> tuple[str, dict[str, Any]] | None:
    members = [a for a in _flatten(annotation) if a is not type(None)]
    if len(members) != 1:
        return None
    member = members[0]
    if member is bool:
        return "boolean", {}
    if member is int:
        return "integer", {}
    if member is float:
        return "number", {}
    if member is datetime.date:
        return "date", {}
    if member is datetime.datetime:
        return "datetime", {}
    if member is datetime.time:
        return "time", {}
    if member is TimeRange:
        return "time_range", {}
    if member is uuid.UUID:
        return "uuid", {}
    if get_origin(member) is Literal:
        choices = get_args(member)
        if choices and all(isinstance(c, str) for c in choices):
            return "enum", {"choices": tuple(choices)}
        return None
    if get_origin(member) is list:
        (item,) = get_args(member) or (None,)
        if item is str:
            return "string_list", {}
        if get_origin(item) is Literal and all(isinstance(c, str) for c in get_args(item)):
            return "string_list", {"choices": tuple(get_args(item))}
        return None
    if member is str and not required:
        return "text", {}
    return None


def _constraint_schema(meta: Any, kind_name: str) -> dict[str, Any]:
    """The JSON Schema keywords of a constraint that stays on the field after the kind."""
    is_list = kind_name == "string_list"
    if isinstance(meta, annotated_types.MinLen):
        return {"minItems" if is_list else "minLength": meta.min_length}
    if isinstance(meta, annotated_types.MaxLen):
        return {"maxItems" if is_list else "maxLength": meta.max_length}
    if isinstance(meta, annotated_types.Gt):
        return {"exclusiveMinimum": meta.gt}
    if isinstance(meta, annotated_types.Lt):
        return {"exclusiveMaximum": meta.lt}
    if isinstance(meta, annotated_types.Ge):
        return {"minimum": meta.ge}
    if isinstance(meta, annotated_types.Le):
        return {"maximum": meta.le}
    pattern = getattr(meta, "pattern", None)
    if isinstance(pattern, str):
        return {"pattern": pattern}
    return {}


def _declares_kind(annotation: Any) -> bool:
    """True when the annotation (or a member of its union) already carries a Kind."""
    for arg in _flatten(annotation):
        if any(isinstance(m, Kind) for m in getattr(arg, "__metadata__", ())):
            return True
    return False


def _flatten(annotation: Any) -> list[Any]:
    """The members of a union (`X | None`, `Optional[X]`), or the annotation itself."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [x for a in get_args(annotation) for x in _flatten(a)]
    return [annotation]


# A name binds its kind only when the declared Python type is the kind's own: `date_from: date`
# reads as a range bound, `invoice_id: UUID` as a uuid; `invoice_id: str` binds nothing (and the
# runtime refuses it: ids are declared with the shared id kinds).
_BINDABLE_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "money": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "date": (datetime.date,),
    "uuid": (uuid.UUID,),
    "cursor": (str,),
    "locale": (str,),
    "country": (str,),
    "eli": (str,),
    "idempotency_key": (str,),
    "time": (datetime.time,),
    "datetime": (datetime.datetime,),
    "time_range": (TimeRange,),
    "email": (str,),
}


def _binds(kind_name: str, annotation: Any) -> bool:
    members = [a for a in _flatten(annotation) if a is not type(None)]
    return len(members) == 1 and members[0] in _BINDABLE_TYPES.get(kind_name, ())


M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@dataclass(frozen=True)
class Validated(Generic[T]):
    """A validated input and what reading it noticed."""

    value: T
    notes: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    # What other field types recorded while reading (e.g. entries a best-effort list set aside).
    context: dict[str, Any] = field(default_factory=dict)


def validate(
    model: type[M], data: Mapping[str, Any] | Any, *, intent: Intent = "read"
) -> Validated[M]:
    """Validate `data` against `model` as the handler, the tests and the eval all do.

    Raises pydantic's ValidationError; asks carry `received`, `expected`, `hint` and `readings` in
    each error's `ctx`.
    """
    context: dict[str, Any] = {INTENT_KEY: intent, NOTES_KEY: [], WARNINGS_KEY: []}
    value = model.model_validate(data, context=context)
    return Validated(value, context[NOTES_KEY], context[WARNINGS_KEY], context)


__all__ = [
    "INTENT_KEY",
    "NOTES_KEY",
    "WARNINGS_KEY",
    "Kind",
    "KindModel",
    "Options",
    "Validated",
    "ValidationError",
    "Warning_",
    "validate",
]
