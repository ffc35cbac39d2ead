"""An upstream tool's JSON input schema read into a drivable input model, and back out.

Each property becomes a field of a closed `KindModel`, so it reads through the kind its type,
format, enum and name bind (`drivable.kinds`): a `format: date` string is a date, an integer
named `limit` a clamped page size, a string enum a choice read in any spelling, an array of
strings a string list, a nested object a closed model of its own. What the model read is sent
upstream in the upstream's own form (`to_upstream`): dates as ISO strings, an id the upstream
types as an integer as an integer, no null for a property that does not admit one.
"""

from __future__ import annotations

import datetime as dt
import keyword
import re
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from drivable.kinds import Kind, KindModel
from drivable.kinds.identifier import Id

JsonSchema = Mapping[str, Any]

# A string property whose name says it holds a day reads as a date even without `format: date`
# (the upstream receives the ISO day it would have been sent had the caller spelled it so). Only
# names whose words say "date": `reply_to` or `depends_on` bind no date here.
DATE_NAMES = re.compile(r"^(date|.*_date|date_from|date_to|.*Date)$")
# `format: time` stays a string: JSON Schema's time has seconds and an offset, drivable's is HH:MM.
# A time zone or a time of day is bound only by the config (`kinds = { tz = "timezone" }`): bound
# from a property's name or description, the held-out split fell (decision 0066). What such a
# property states of its form is read only after the upstream refused a value (`stated_forms`).
# A zone: a name that says it holds one, or a description that says it is IANA's.
ZONE_NAMES = re.compile(r"^(?:\w+_)?(?:time_?zone|tz)$|^[a-z]\w*(?:TimeZone|Timezone|Tz)$")
_IANA_ZONE = re.compile(r"\bIANA\b.{0,40}?\btime ?zone", re.IGNORECASE | re.DOTALL)
# A time of day: a description that states the HH:MM form and names no date.
_TIME_OF_DAY = re.compile(r"\bHH:MM\b", re.IGNORECASE)
_DATE_FORM = re.compile(r"\bYYYY|\bDD\b|\bdate", re.IGNORECASE)
_FORMATS: dict[str, Any] = {"date": dt.date, "date-time": dt.datetime, "uuid": uuid.UUID}
# Kinds a config may bind to a property by name (`kinds = {prop = "date"}`), as the Python type
# whose kind binds, or as the kind itself.
KIND_TYPES: dict[str, Any] = {
    "date": dt.date,
    "datetime": dt.datetime,
    "time": dt.time,
    "uuid": uuid.UUID,
    "integer": int,
    "number": float,
    "boolean": bool,
    "string_list": list[str],
    "text": str,  # a plain string: for an `*_id` property, its ids as the upstream spells them
}
_KIND_ONLY = frozenset({"email", "country", "locale", "money", "eli", "timezone"})
KINDS = frozenset({*KIND_TYPES, *_KIND_ONLY, "id"})  # every kind a config may name
MAX_DEPTH = 8  # a recursive schema ($ref to itself) is cut here: deeper values pass unread


class UpstreamInput(KindModel):
    """An upstream tool's input: kinds bind as on any drivable tool, except the cursor kind,
    which reads drivable's own signed cursors; an upstream's cursor is its own, passed on; and
    an id whose shape the upstream states is read as stated. Its
    values dump under the upstream's property names (a `next_call` or `repair` the runtime builds
    from them names `from`, not the field standing in for it)."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True)
    unbound: ClassVar[frozenset[str]] = frozenset({"cursor", "page_token"})
    # an `*_id` with a pattern or a format (or bound as text by the config) reads as the upstream
    # states it, not through the shared id kind, which the runtime otherwise requires
    ids_as_stated: ClassVar[bool] = True
    # the properties the upstream lists with `default: null`: listed with it here too, where the
    # runtime lists no null default (docs/decisions/0060-a-null-default-as-stated.md)
    null_defaults: ClassVar[frozenset[str]] = frozenset()


class SchemaError(ValueError):
    """An upstream schema no input model can be built from (said when the wrapper starts)."""


def python_name(name: str) -> str | None:
    """The field name a property can have in a model, or None when it needs an alias."""
    if (
        not name.isidentifier()
        or keyword.iskeyword(name)
        or name.startswith("_")
        or name.startswith("model_")
        or hasattr(BaseModel, name)
    ):
        return None
    return name


class Reader:
    """Builds input models from one tool's schema (its `$defs` resolve against the root)."""

    def __init__(self, tool: str, root: JsonSchema) -> None:
        self.tool = tool
        self.root = root
        self.count = 0

    def model(
        self,
        schema: JsonSchema,
        *,
        hidden: frozenset[str] = frozenset(),
        kinds: Mapping[str, str] | None = None,
        depth: int = 0,
    ) -> type[KindModel]:
        """The closed model of an object schema, without `hidden` properties."""
        schema = self.resolve(schema)
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        fields: dict[str, Any] = {}
        null_defaults: set[str] = set()
        for index, (name, sub) in enumerate(properties.items()):
            if name in hidden:
                if name in required and "default" not in (sub or {}):
                    raise SchemaError(
                        f"tool {self.tool!r}: {name} is required upstream, so it cannot be hidden"
                    )
                continue
            sub = self.resolve(sub if isinstance(sub, Mapping) else {})
            annotation = self.annotation(name, sub, (kinds or {}).get(name), depth)
            info: dict[str, Any] = {}
            if isinstance(sub.get("description"), str):
                info["description"] = sub["description"]
            field_name = python_name(name)
            if field_name is None:
                field_name = f"property_{index}"
                info["alias"] = name
            # A required property that admits null: drivable reads null as no value, so it is
            # optional here and sent upstream as null when left out (`to_upstream`).
            if name in required and not _admits_null(sub):
                default: Any = ...
            else:
                annotation = annotation | None
                default = sub.get("default") if _json_scalar(sub.get("default")) else None
                if "default" in sub and sub["default"] is None:
                    null_defaults.add(name)
            fields[field_name] = (annotation, Field(default, **info))
        self.count += 1
        title = "".join(w.capitalize() for w in re.split(r"[^A-Za-z0-9]+", self.tool) if w)
        try:
            model = create_model(
                f"{title or 'Tool'}Input{self.count if depth else ''}",
                __base__=UpstreamInput,
                __module__=__name__,
                **fields,
            )
        except (TypeError, ValueError) as error:
            raise SchemaError(
                f"tool {self.tool!r}: its input schema has no model ({error})"
            ) from None
        model.null_defaults = frozenset(null_defaults)
        return model

    def annotation(self, name: str, schema: JsonSchema, kind: str | None, depth: int) -> Any:
        """The type of one property: its kind from the config, else its type, format, enum, name."""
        schema = self.resolve(schema)
        if kind is not None:
            return self._configured(name, kind)
        if depth >= MAX_DEPTH:
            return Any
        if "const" in schema and _json_scalar(schema["const"]):
            return Literal[schema["const"]]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum and all(_json_scalar(v) for v in enum):
            members = [v for v in enum if v is not None]
            if not members:
                return type(None)
            choice: Any = Literal[tuple(members)]
            return choice | None if None in enum else choice
        variants = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(variants, list):
            kept = [v for v in variants if not _is_null(v)]
            if len(kept) == 1 and isinstance(kept[0], Mapping):
                inner = self.annotation(name, kept[0], None, depth)
                return inner | None if len(kept) < len(variants) else inner
            return Any
        types = schema.get("type")
        if isinstance(types, list):
            kept_types = [t for t in types if t != "null"]
            if len(kept_types) != 1:
                return Any
            inner = self.annotation(name, {**schema, "type": kept_types[0]}, None, depth)
            return inner | None if "null" in types else inner
        if types == "string":
            return self._string(name, schema)
        if types == "integer":
            return Annotated[int, Field(**_bounds(schema))] if _bounds(schema) else int
        if types == "number":
            return Annotated[float, Field(**_bounds(schema))] if _bounds(schema) else float
        if types == "boolean":
            return bool
        if types == "null":
            return type(None)
        if types == "array":
            items = schema.get("items")
            item: Any = (
                self.annotation(name, items, None, depth + 1) if isinstance(items, Mapping) else Any
            )
            sizes: dict[str, Any] = {
                k: v
                for k, v in (
                    ("min_length", schema.get("minItems")),
                    ("max_length", schema.get("maxItems")),
                )
                if isinstance(v, int)
            }
            if item is str and schema.get("uniqueItems") is not True:
                # drivable's string list drops repeats; an upstream list that keeps them is
                # passed as sent, each item a string
                item = Annotated[str, Field()]
            listed: Any = list[item]
            return Annotated[listed, Field(**sizes)] if sizes else listed
        if types == "object" and schema.get("properties"):
            return self.model(schema, depth=depth + 1)
        # A free-form object (a map, arbitrary JSON) has no properties to close: it is passed on
        # as the caller sent it, and the upstream judges it.
        return Any

    def _string(self, name: str, schema: JsonSchema) -> Any:
        fmt = schema.get("format")
        if is_id_name(name) and fmt is None and not isinstance(schema.get("pattern"), str):
            # the shared id kind's own shape (no '/', '.', '@') holds only where the upstream
            # states none: a pattern or a format is the upstream's word on what its ids look like
            return Annotated[str, Id("")]
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        if fmt == "email":
            return Annotated[str, Kind("email")]
        if fmt is None and DATE_NAMES.match(name):
            return dt.date
        constraints: dict[str, Any] = {}
        if isinstance(schema.get("minLength"), int):
            constraints["min_length"] = schema["minLength"]
        if isinstance(schema.get("maxLength"), int):
            constraints["max_length"] = schema["maxLength"]
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and _compiles(pattern):
            constraints["pattern"] = pattern
        return Annotated[str, Field(**constraints)] if constraints else str

    def _configured(self, name: str, kind: str) -> Any:
        if kind == "id":
            return Annotated[str, Id("")]
        if kind in KIND_TYPES:
            return KIND_TYPES[kind]
        if kind in _KIND_ONLY:
            base: Any = int if kind == "money" else str
            return Annotated[base, Kind(kind)]
        raise SchemaError(
            f"tool {self.tool!r}: property {name} is given kind {kind!r}; the kinds a property "
            f"may take: {', '.join(sorted(KINDS))}"
        )

    def resolve(self, schema: Any, seen: int = 0) -> Mapping[str, Any]:
        """`schema` with a local `$ref` (`#/$defs/X`, `#/definitions/X`) followed."""
        if not isinstance(schema, Mapping):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str) or seen > MAX_DEPTH:
            return schema
        node: Any = self.root
        if not ref.startswith("#/"):
            return {}
        for part in ref[2:].split("/"):
            node = (
                node.get(part.replace("~1", "/").replace("~0", "~"))
                if isinstance(node, Mapping)
                else None
            )
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {**self.resolve(node, seen + 1), **rest} if isinstance(node, Mapping) else {}


def stated_forms(schema: JsonSchema) -> dict[str, str]:
    """Each plain string property whose schema states the form of a kind it is not bound to
    (a time zone, a time of day), with that kind: where the upstream refuses such a value, the
    same value spelled in that form is the refusal's repair (`failures.refusal`, decision 0068)."""
    forms: dict[str, str] = {}
    for name, node in (schema.get("properties") or {}).items():
        if not isinstance(node, Mapping) or node.get("type") != "string":
            continue
        if node.get("format") is not None or node.get("enum") or node.get("pattern"):
            continue
        described = node.get("description")
        stated = described if isinstance(described, str) else ""
        if ZONE_NAMES.match(name) or _IANA_ZONE.search(stated):
            forms[name] = "timezone"
        elif _TIME_OF_DAY.search(stated) and not _DATE_FORM.search(stated):
            forms[name] = "time"
    return forms


def is_id_name(name: str) -> bool:
    """The property's name says it holds an id (`id`, `*_id`)."""
    return name == "id" or name.endswith("_id")


def input_model(
    tool: str,
    schema: JsonSchema,
    *,
    hidden: frozenset[str] = frozenset(),
    kinds: Mapping[str, str] | None = None,
) -> type[KindModel]:
    """The closed input model of an upstream tool's inputSchema."""
    reader = Reader(tool, schema)
    unknown = set(kinds or {}) - set(reader.resolve(schema).get("properties") or {})
    if unknown:
        raise SchemaError(
            f"tool {tool!r}: kinds name no property of it: {', '.join(sorted(unknown))}"
        )
    return reader.model(schema, hidden=hidden, kinds=kinds)


def to_upstream(value: Any, schema: Any, root: JsonSchema, depth: int = 0) -> Any:
    """A value as read (JSON-dumped from the model) in the form the upstream schema states:
    nulls left out where the property does not admit one, an integer id sent as an integer."""
    reader = Reader("", root)
    node = reader.resolve(schema)
    if depth > MAX_DEPTH * 2:
        return value
    if isinstance(value, dict):
        properties = node.get("properties") or {}
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = reader.resolve(properties.get(key, {}))
            if item is None and not _admits_null(sub):
                continue
            out[key] = to_upstream(item, sub, root, depth + 1)
        for key in node.get("required") or ():
            if (
                key not in out
                and key in properties
                and _admits_null(reader.resolve(properties[key]))
            ):
                out[key] = None
        return out
    if isinstance(value, list):
        items = node.get("items")
        return [
            to_upstream(x, items if isinstance(items, Mapping) else {}, root, depth + 1)
            for x in value
        ]
    declared = _types(node)
    if isinstance(value, str) and "integer" in declared and "string" not in declared:
        return int(value) if re.fullmatch(r"-?\d{1,18}", value) else value
    return value


def _types(schema: Mapping[str, Any]) -> set[str]:
    found = schema.get("type")
    return {found} if isinstance(found, str) else set(found) if isinstance(found, list) else set()


def _admits_null(schema: Mapping[str, Any]) -> bool:
    if "null" in _types(schema):
        return True
    if None in (schema.get("enum") or ()):
        return True
    variants = schema.get("anyOf") or schema.get("oneOf") or ()
    return any(_is_null(v) for v in variants) or not schema


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "null"


def _json_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _bounds(schema: JsonSchema) -> dict[str, Any]:
    names = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt"}
    return {
        names[k]: v
        for k, v in schema.items()
        if k in names and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True
