"""The schema-to-kind binding over generated upstream schemas: every one gives a closed, valid
listed schema, and every value the upstream schema accepts, written canonically, is read back to
the same value and sent upstream as it was."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from drivable.kinds import validate
from drivable.kinds.absence import placeholder_of
from drivable.target import Target
from drivable.wrap.build import Listing, contract_of
from drivable.wrap.config import ToolConfig, WrapConfig
from drivable.wrap.schema import DATE_NAMES, input_model, to_upstream
from tests.wrap.conftest import closed_everywhere

NAMES = st.from_regex(r"[a-z][a-zA-Z]{0,7}(_[a-z]{1,6})?", fullmatch=True).filter(
    lambda n: (
        not n.endswith("_id")
        and n != "id"
        and n not in ("cursor", "dry_run")
        # a name that binds a kind by itself (a day) takes only that kind's values
        and not DATE_NAMES.match(n)
    )
)
WORDS = (
    st.text("abcdefghijklmnopqrstuvwxyz ÄéžŁ0123456789-", min_size=1, max_size=20)
    .map(str.strip)
    # a placeholder ("null", "n/a", "<name>") is an ask by the runtime's rule, never a value
    .filter(lambda s: s and placeholder_of(s) is None)
)
DAYS = st.dates(dt.date(1900, 1, 1), dt.date(2200, 12, 31))
INSTANTS = st.datetimes(dt.datetime(1970, 1, 1), dt.datetime(2200, 1, 1)).map(
    lambda d: d.replace(microsecond=0, tzinfo=dt.UTC)
)


@st.composite
def scalar(draw: st.DrawFn) -> tuple[dict[str, Any], st.SearchStrategy[Any]]:
    """A property schema and the canonical values it accepts."""
    choice = draw(
        st.sampled_from(["str", "date", "datetime", "uuid", "enum", "int", "num", "bool", "list"])
    )
    if choice == "str":
        return {"type": "string", "description": "words"}, WORDS
    if choice == "date":
        return {"type": "string", "format": "date"}, DAYS.map(dt.date.isoformat)
    if choice == "datetime":
        return {"type": "string", "format": "date-time"}, INSTANTS.map(dt.datetime.isoformat)
    if choice == "uuid":
        return {"type": "string", "format": "uuid"}, st.uuids().map(str)
    if choice == "enum":
        members = draw(
            st.lists(
                st.from_regex(r"[a-z]{2,8}", fullmatch=True), min_size=1, max_size=5, unique=True
            )
        )
        return {"type": "string", "enum": members}, st.sampled_from(members)
    if choice == "int":
        low = draw(st.integers(-1000, 1000))
        high = low + draw(st.integers(0, 1000))
        return {"type": "integer", "minimum": low, "maximum": high}, st.integers(low, high)
    if choice == "num":
        return {"type": "number"}, st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3))
    if choice == "bool":
        return {"type": "boolean"}, st.booleans()
    return {"type": "array", "items": {"type": "string"}}, st.lists(WORDS, max_size=4)


@st.composite
def object_schema(draw: st.DrawFn, depth: int = 0) -> tuple[dict[str, Any], st.SearchStrategy[Any]]:
    names = draw(st.lists(NAMES, min_size=0, max_size=5, unique=True))
    properties: dict[str, Any] = {}
    values: dict[str, st.SearchStrategy[Any]] = {}
    for name in names:
        if depth < 2 and draw(st.integers(0, 5)) == 0:
            sub, strategy = draw(object_schema(depth + 1))
        else:
            sub, strategy = draw(scalar())
        if draw(st.booleans()) and sub.get("type") in ("string", "integer"):
            sub = {**sub, "type": [sub["type"], "null"]}
            if "enum" in sub:
                sub["enum"] = [*sub["enum"], None]
            strategy = st.none() | strategy
        properties[name] = sub
        values[name] = strategy
    required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    schema = {"type": "object", "properties": properties, "required": required}

    @st.composite
    def value(inner: st.DrawFn) -> dict[str, Any]:
        out = {}
        for name in names:
            if name in required or inner(st.booleans()):
                out[name] = inner(values[name])
        return out

    return schema, value()


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(object_schema())
def test_every_upstream_schema_gives_a_closed_valid_listed_schema(
    generated: tuple[dict[str, Any], Any],
) -> None:
    schema, _ = generated
    listing = Listing("gen", "1", None, [{"name": "update_record", "inputSchema": schema}])
    contract = contract_of(listing, WrapConfig(), Target(command=("true",)))
    listed = contract.tools["update_record"].input_schema
    jsonschema.Draft202012Validator.check_schema(listed)
    assert closed_everywhere(listed)
    # an unannotated tool is a keyed write
    assert "idempotency_key" in listed["required"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), object_schema())
def test_every_canonical_value_is_read_back_and_sent_as_it_was(
    data: st.DataObject, generated: tuple[dict[str, Any], Any]
) -> None:
    schema, values = generated
    value = data.draw(values)
    jsonschema.validate(value, schema)  # the generator writes what the upstream accepts
    model = input_model("update_record", schema)
    read = validate(model, value, intent="write")
    sent = to_upstream(
        read.value.model_dump(mode="json", by_alias=True, exclude_unset=True), schema, schema
    )
    assert _same(sent, value), (sent, value)


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON values; instants equal as instants, numbers as numbers."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, str) and isinstance(right, str) and left != right:
        try:
            return dt.datetime.fromisoformat(left) == dt.datetime.fromisoformat(right)
        except ValueError:
            try:
                return uuid.UUID(left) == uuid.UUID(right)
            except ValueError:
                return False
    return bool(left == right)


ID_PATTERNS = [r"[a-z]{1,8}/[0-9]{1,4}", r"[a-z]{1,6}@[a-z]{1,6}\.org", r"[A-Z]{2}\.[0-9]{3}"]


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(ID_PATTERNS))
def test_an_id_the_upstream_shapes_itself_is_read_as_it_states(
    data: st.DataObject, pattern: str
) -> None:
    """An `*_id` property with a pattern takes every value the pattern admits, sent as it was
    (the shared id kind's own shape refuses '/', '.' and '@')."""
    schema = {
        "type": "object",
        "properties": {"record_id": {"type": "string", "pattern": f"^{pattern}$"}},
        "required": ["record_id"],
    }
    value = data.draw(st.from_regex(f"^{pattern}$", fullmatch=True))
    read = validate(input_model("update_record", schema), {"record_id": value}, intent="write")
    assert read.value.model_dump(by_alias=True) == {"record_id": value}


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(r"[a-z0-9]{1,6}[/.@][a-z0-9]{1,6}", fullmatch=True))
def test_the_config_binds_an_id_as_text_or_any_property_as_an_id(value: str) -> None:
    schema = {
        "type": "object",
        "properties": {"record_id": {"type": "string"}, "ref": {"type": "string"}},
        "required": ["record_id"],
    }
    default = input_model("update_record", schema)
    as_text = input_model("update_record", schema, kinds={"record_id": "text"})
    as_id = input_model("update_record", schema, kinds={"ref": "id"})
    read = validate(as_text, {"record_id": value}, intent="write")
    assert read.value.model_dump(by_alias=True, exclude_none=True) == {"record_id": value}
    for model, arguments in (
        (default, {"record_id": value}),
        (as_id, {"record_id": "r1", "ref": value}),
    ):
        try:
            validate(model, arguments, intent="write")
        except ValidationError:
            continue
        raise AssertionError(f"{arguments} read as an id")


EFFECT_HINTS = [
    {"readOnlyHint": True},
    {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True},
    {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(ID_PATTERNS),
    st.sampled_from(EFFECT_HINTS),
    st.sampled_from(["", "text"]),
    st.data(),
)
def test_a_tool_whose_ids_the_upstream_shapes_is_served_whatever_it_does(
    pattern: str, hints: dict[str, bool], bound: str, data: st.DataObject
) -> None:
    # an `*_id` read as the upstream states it (its pattern, or bound as text by the config) is
    # declared like any wrapped tool, a destructive one too: the wrapper started refusing such
    # a server ("must be declared with the shared id type") once ids were read as stated
    prop: dict[str, Any] = {"type": "string"}
    if not bound:
        prop["pattern"] = f"^{pattern}$"
    schema = {"type": "object", "properties": {"record_id": prop}, "required": ["record_id"]}
    tool = {"name": "drop_record", "inputSchema": schema, "annotations": hints}
    config = WrapConfig(
        tools={"drop_record": ToolConfig(kinds={"record_id": bound})} if bound else {}
    )
    contract = contract_of(Listing("gen", "1", None, [tool]), config, Target(command=("true",)))
    spec = contract.tools["drop_record"]
    value = data.draw(st.from_regex(f"^{pattern}$", fullmatch=True))
    sent = {"record_id": value}
    if "idempotency_key" in spec.input_model.model_fields:
        sent["idempotency_key"] = "drop-record-0001"
    read = validate(spec.input_model, sent, intent="write")
    assert read.value.model_dump(by_alias=True, exclude_none=True)["record_id"] == value


def _listed_properties(listed: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """The listed properties of an object node, through a `$ref` or an optional's `anyOf`."""
    for variant in node.get("anyOf", [node]):
        ref = variant.get("$ref")
        if isinstance(ref, str):
            variant = listed["$defs"][ref.rsplit("/", 1)[-1]]
        if "properties" in variant:
            return dict(variant["properties"])
    return {}


def _null_defaulted(data: st.DataObject, schema: dict[str, Any]) -> set[tuple[str, ...]]:
    """Give some optional properties (at any depth) `default: null`, as pydantic writes an
    optional argument; the paths of those given it."""
    out: set[tuple[str, ...]] = set()

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        required = set(node.get("required") or ())
        for name, sub in node["properties"].items():
            if sub.get("type") == "object":
                walk(sub, (*path, name))
            if name not in required and data.draw(st.booleans()):
                sub["default"] = None
                out.add((*path, name))

    walk(schema, ())
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), object_schema())
def test_a_null_default_the_upstream_lists_is_listed_and_no_other(
    data: st.DataObject, generated: tuple[dict[str, Any], Any]
) -> None:
    # a model fills every property it is shown: listed bare, git_log's optional end_timestamp
    # was filled with the start's value (an empty range); listed with the upstream's
    # `default: null`, it was sent as null (docs/decisions/0060-a-null-default-as-stated.md)
    schema, _ = generated
    stated = _null_defaulted(data, schema)
    tool = {"name": "list_records", "inputSchema": schema, "annotations": {"readOnlyHint": True}}
    contract = contract_of(
        Listing("gen", "1", None, [tool]), WrapConfig(), Target(command=("true",))
    )
    listed = contract.surface.tool_wire(contract.tools["list_records"])["inputSchema"]
    found: set[tuple[str, ...]] = set()

    def walk(properties: dict[str, Any], upstream: dict[str, Any], path: tuple[str, ...]) -> None:
        for name, sub in upstream["properties"].items():
            shown = properties[name]
            if sub.get("type") == "object":
                walk(_listed_properties(listed, shown), sub, (*path, name))
            if "default" in shown and shown["default"] is None:
                found.add((*path, name))
                # a host that checks arguments against the listing accepts the default it lists
                jsonschema.validate(None, {**shown, "$defs": listed.get("$defs", {})})

    walk(listed["properties"], schema, ())
    assert found == stated, (listed, schema)


ZONE_PROPERTY_NAMES = st.builds(
    lambda head, tail, camel: f"{head}{tail}" if camel else f"{head.lower()}_{tail.lower()}",
    st.sampled_from(["source", "target", "user", "meeting", "home"]),
    st.sampled_from(["Timezone", "TimeZone", "Tz"]),
    st.booleans(),
) | st.sampled_from(["timezone", "time_zone", "tz"])
CITY_SPELLINGS = {"Tokyo": "Asia/Tokyo", "new york": "America/New_York", "Prag": "Europe/Prague"}


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(ZONE_PROPERTY_NAMES, st.sampled_from(sorted(CITY_SPELLINGS)), st.booleans())
def test_a_time_zone_is_read_where_the_config_binds_it_and_sent_as_written_elsewhere(
    name: str, city: str, configured: bool
) -> None:
    """Bound from a property's name or an IANA description, the timezone kind cost held-out
    workflows (decision 0066): a zone is read as one only where the config says so."""
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "description": "IANA time zone name"}},
        "required": [name],
    }
    kinds = {name: "timezone"} if configured else None
    read = validate(input_model("convert", schema, kinds=kinds), {name: city}, intent="read")
    sent = to_upstream(read.value.model_dump(mode="json", by_alias=True), schema, schema)
    assert sent == {name: CITY_SPELLINGS[city] if configured else city}
