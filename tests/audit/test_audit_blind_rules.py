"""The rules that close issue 37's blind spots, each over its whole class, offline: the static
halves on surfaces, the probes' judgements on answers, the baseline's values on schemas. The
servers that carry each defect, and their clean twins, are audited in test_audit_planted.py."""

from __future__ import annotations

import base64
import binascii
import json
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.audit import heuristics as h
from drivable.audit.probes.call import ProbeCall
from drivable.audit.probes.leaks import leaks_in
from drivable.audit.probes.plan import plan_for, typo_of, wrong_type_field
from drivable.audit.probes.successes import empty_answer
from drivable.audit.probes.values import Knowledge, baseline_arguments
from drivable.audit.runner import audit_surface
from drivable.kinds.absence import placeholder_of
from drivable.verbs import MUTATING_VERBS

WORD = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=9)
NAME = st.lists(WORD, min_size=1, max_size=2).map("_".join)


def _findings(surface: dict[str, Any], rule: str) -> list[Any]:
    _, found = audit_surface(surface, offline=False)
    return [f for f in found if f.rule == rule]


def _tool(props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "additionalProperties": False}
    return {
        "name": "find_customer",
        "description": "Find a customer.",
        "inputSchema": schema,
        **extra,
    }


# --- 1.name: a version or mixed case in serverInfo.name --------------------------------------
DOMAIN = st.lists(WORD, min_size=1, max_size=3).map("-".join)


@given(DOMAIN, st.integers(1, 12), st.integers(0, 9))
def test_a_name_with_a_version_or_mixed_case_is_minor_and_a_plain_one_is_clean(
    name: str, major: int, minor: int
) -> None:
    def named(server_name: str) -> list[Any]:
        return _findings({"server": {"name": server_name, "version": "1.0.0"}}, "1.name")

    assert named(name) == []
    camel = "".join(w.capitalize() for w in name.split("-"))
    for spelled in (
        f"{name}-v{major}",
        f"{name}-{major}.{minor}",
        f"{name}_v{major}",
        f"{camel}V{major}",
        camel,
        f"{camel}Server-v{major}.{minor}",
    ):
        (found,) = named(spelled)
        assert found.severity == "minor", spelled
        fix = found.remediation.split("`")[1]
        assert fix == fix.lower() and not any(c.isdigit() for c in fix[len(name) :]), spelled


# --- 3.required-optional: exclusive optionals said only in prose ----------------------------
SAYINGS = (
    "Give either {a} or {b}, not both.",
    "Send {a} or {b} but never both.",
    "{a} and {b} are mutually exclusive.",
    "Exactly one of {a} and {b}.",
    "{a} and {b} cannot be used together.",
)


@given(st.lists(NAME, min_size=2, max_size=3, unique=True), st.sampled_from(SAYINGS), st.booleans())
def test_optionals_a_sentence_says_exclude_each_other_are_named(
    names: list[str], saying: str, in_tool: bool
) -> None:
    a, b = names[:2]
    sentence = saying.format(a=a, b=b)
    props = {n: {"type": "string", "description": "Omit for any."} for n in names}
    tool = _tool(props, description=f"Find a customer. {sentence}" if in_tool else "Find one.")
    if not in_tool:
        props[a]["description"] = sentence
    (found,) = _findings({"tools": [tool]}, "3.required-optional")
    assert found.evidence["exclusive"] == [a, b]
    assert "cross-field" in found.remediation  # the runtime refuses those; a union is asked for
    chosen = {**tool, "inputSchema": {**tool["inputSchema"], "oneOf": [{"required": [a]}]}}
    assert _findings({"tools": [chosen]}, "3.required-optional") == []
    one = _tool({a: {"type": "string", "description": "Either a name or an id."}})
    assert _findings({"tools": [one]}, "3.required-optional") == []


# --- 3.ap-mode-annotations: a destructive member of an action enum --------------------------
def test_the_destructive_verbs_are_the_vocabularys() -> None:
    assert h.DESTRUCTIVE_VERBS <= MUTATING_VERBS
    assert {"delete", "purge", "drop", "remove"} <= h.DESTRUCTIVE_VERBS


@given(
    st.sampled_from(sorted(h.DESTRUCTIVE_VERBS)),
    st.sampled_from(["", "hard_", "{}_all"]),
    st.sampled_from(["action", "mode", "operation"]),
)
def test_a_destructive_mode_under_a_harmless_annotation_is_reported(
    verb: str, shape: str, param: str
) -> None:
    member = shape.format(verb) if "{}" in shape else f"{shape}{verb}"
    modes = ["add", "rename", member]

    def found(**hints: bool) -> list[str]:
        annotations = {"idempotentHint": True, "openWorldHint": False, **hints}
        tool = {
            "name": "manage_tags",
            "description": "Manage tags.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    param: {"type": "string", "enum": modes},
                    "dry_run": {"type": "boolean"},
                },
                "additionalProperties": False,
            },
            "annotations": annotations,
        }
        return [f.severity for f in _findings({"tools": [tool]}, "3.ap-mode-annotations")]

    assert found(readOnlyHint=False, destructiveHint=False) == ["major"]
    assert found(readOnlyHint=True, destructiveHint=False) == ["critical"]
    assert found(readOnlyHint=False, destructiveHint=True) == []
    assert found(readOnlyHint=False) == []  # undeclared: hosts assume destructive


# --- 3.strict-types: a free list of strings whose values are only in prose ------------------
@given(st.lists(WORD, min_size=2, max_size=4, unique=True), st.sampled_from(["'", '"', "`"]))
def test_a_list_whose_values_are_in_prose_is_asked_to_be_an_enum(
    values: list[str], quote: str
) -> None:
    quoted = [f"{quote}{v}{quote}" for v in values]
    doc = "Labels to match: " + ", ".join(quoted[:-1]) + " or " + quoted[-1] + "."
    free = {"type": "array", "items": {"type": "string"}, "description": doc}
    (found,) = _findings({"tools": [_tool({"labels": free})]}, "3.strict-types")
    assert found.evidence["listed"] == values and "`items`" in found.remediation
    enum = {**free, "items": {"type": "string", "enum": values}}
    assert _findings({"tools": [_tool({"labels": enum})]}, "3.strict-types") == []
    # the probes send a listed value and the same with a typo no listed value is
    plans = {p.probe: p for p in plan_for(_tool({"labels": free}))}
    assert plans["listed-value"].arguments["labels"] == [values[0]]
    typo = plans["typo-value"].arguments["labels"][0]
    assert typo.casefold() not in {v.casefold() for v in values}


@given(st.lists(WORD, min_size=1, max_size=5, unique=True))
def test_a_typo_is_no_listed_value(values: list[str]) -> None:
    for value in values:
        assert typo_of(value, values).casefold() not in {v.casefold() for v in values}


@given(st.sampled_from(["results", "items", "notes"]), st.integers(0, 3))
def test_an_empty_answer_is_one_whose_lists_are_empty(key: str, rows: int) -> None:
    data = {key: [{"id": i} for i in range(rows)], "has_more": False}
    call = ProbeCall(
        "typo-value", "t", {}, "success", result={"content": [], "structuredContent": data}
    )
    assert empty_answer(call) is (rows == 0)
    warned = {**data, "warnings": [{"code": "no_match", "message": "no label 'bgu'"}]}
    call.result = {"content": [], "structuredContent": warned}
    assert empty_answer(call) is False


# --- 6.field-feedback: the wrong-type probe ------------------------------------------------
@given(
    st.lists(
        st.sampled_from(["string", "integer", "boolean", "array", "object"]), min_size=1, max_size=5
    )
)
def test_the_wrong_type_goes_to_a_typed_property_never_the_key(types: list[str]) -> None:
    props = {f"p{i}": {"type": t} for i, t in enumerate(types)}
    props["idempotency_key"] = {"type": "string"}
    schema = {"type": "object", "properties": props}
    chosen = wrong_type_field(schema)
    order = ("boolean", "integer", "number", "string", "array", "object")
    assert chosen is not None and chosen != "idempotency_key"
    assert props[chosen]["type"] == min(types, key=order.index)
    (plan,) = [p for p in plan_for({"name": "t", "inputSchema": schema}) if p.probe == "wrong-type"]
    assert plan.field == chosen and plan.arguments[chosen] != sch_sample_of(props[chosen])


def sch_sample_of(node: dict[str, Any]) -> Any:
    from drivable.schema import sample

    return sample(node)


# --- dv.substrate-leak: a runtime's raw exception message ----------------------------------
def _refused(text: str, sent: dict[str, Any]) -> ProbeCall:
    result = {"content": [{"type": "text", "text": text}], "isError": True}
    return ProbeCall("invented-cursor", "list_events", sent, "error-result", result=result)


@settings(max_examples=300)
@given(st.text(alphabet=string.ascii_letters + string.digits + '-_=+/{}":,é ', max_size=40))
def test_a_cursor_decoders_own_words_are_a_leak(junk: str) -> None:
    try:
        json.loads(base64.urlsafe_b64decode(junk))
    except (ValueError, binascii.Error) as exc:
        for text in (
            f"Bad cursor: {exc}",
            json.dumps({"code": "invalid_cursor", "message": str(exc)}),
        ):
            leaks = leaks_in(_refused(text, {"cursor": junk}))
            assert ("raw exception message", "major") in {(c, s) for c, s, _ in leaks}, text


def test_a_clean_refusal_of_a_cursor_is_no_leak() -> None:
    said = {"code": "invalid_cursor", "message": "This cursor was not issued by this server."}
    assert leaks_in(_refused(json.dumps(said), {"cursor": "dv-invented-cursor-0001"})) == []


# --- 3.idempotency-key: an unbounded key ---------------------------------------------------
def _key_findings(key: dict[str, Any]) -> list[Any]:
    tool = {
        "name": "create_note",
        "description": "Create a note.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "idempotency_key": key},
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True},
    }
    return [
        f for f in _findings({"tools": [tool]}, "3.idempotency-key") if "key_property" in f.evidence
    ]


def test_a_key_is_bounded_as_the_runtime_lists_it() -> None:
    from drivable.kinds import Options
    from drivable.kinds.idempotency_key import _schema

    listed = {
        k: v for k, v in _schema(Options()).items() if k != "pattern"
    }  # tools/list drops patterns
    assert _key_findings(listed) == []
    assert _key_findings({"type": "string", "maxLength": 128, "pattern": "^[a-z0-9-]{8,}$"}) == []
    for open_key in (
        {"type": "string"},
        {"type": "string", "minLength": 8},
        {"type": "string", "maxLength": 64},
    ):
        (found,) = _key_findings(open_key)
        assert found.severity == "minor" and "pattern" not in found.remediation


# --- the baseline: values from the schema and the server's own answers ---------------------
CREATE = {
    "name": "create_booking",
    "inputSchema": {
        "type": "object",
        "properties": {
            "room_id": {"type": "string"},
            "day": {"type": "string", "description": "The day, YYYY-MM-DD."},
            "start": {"type": "string", "enum": ["08:00", "09:00", "10:00"]},
            "end": {"type": "string", "enum": ["09:00", "10:00", "11:00"]},
            "title": {"type": "string", "minLength": 3},
            "organiser_email": {"type": "string"},
            "idempotency_key": {"type": "string"},
        },
        "required": [
            "room_id",
            "day",
            "start",
            "end",
            "title",
            "organiser_email",
            "idempotency_key",
        ],
    },
}


@given(
    st.dates().map(lambda d: d.isoformat()),
    st.lists(st.from_regex(r"room_[1-9][0-9]?", fullmatch=True), min_size=1, max_size=3),
)
def test_a_create_is_filled_from_what_the_server_showed(day: str, rooms: list[str]) -> None:
    know = Knowledge()
    know.learn("list_rooms", {"results": [{"room_id": r} for r in rooms]})
    know.learn("get_room", {"day": day, "free_times": [{"start": "09:00", "end": "11:00"}]})
    args = baseline_arguments(CREATE, know)
    assert args["room_id"] == rooms[0] and args["day"] == day
    assert (args["start"], args["end"]) == ("09:00", "11:00")
    assert "@" in args["organiser_email"]
    for value in args.values():
        assert placeholder_of(value) is None and value != "example"
    assert args["idempotency_key"] != baseline_arguments(CREATE, know)["idempotency_key"]


def test_an_end_comes_after_its_start_and_a_created_id_counts_up() -> None:
    args = baseline_arguments(CREATE, Knowledge())
    assert args["end"] > args["start"]
    know = Knowledge()
    know.learn("list_notes", {"results": [{"note_id": f"n{i}"} for i in (1, 2, 9)]})
    create: dict[str, Any] = {
        "name": "create_note",
        "inputSchema": {
            "type": "object",
            "properties": {"note_id": {"type": "string"}, "title": {"type": "string"}},
            "required": ["note_id", "title"],
        },
    }
    assert baseline_arguments(create, know) == {"note_id": "n10", "title": "Audit title"}
    read = {
        **create,
        "name": "get_note",
        "inputSchema": {**create["inputSchema"], "required": ["note_id"]},
    }
    assert baseline_arguments(read, know) == {"note_id": "n1"}  # a read takes a listed one
