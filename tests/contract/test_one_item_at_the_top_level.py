"""A call that spells one item of a required list of objects at the top level is read as that
list of one item, every value as sent, or, when the rest of it does not read, repaired to it
(`drivable.contract.repairs.one_item`, `stages.reading.as_one_item`;
docs/decisions/0048-a-repair-is-accepted-as-sent.md,
docs/decisions/0051-an-item-spelled-at-the-top-level-is-read-as-that-item.md). A model asked to add one observation sends
`{"entityName": ..., "contents": [...]}` where the tool takes
`{"observations": [{"entityName": ..., "contents": [...]}]}`.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from drivable.contract.envelope import Issue
from drivable.contract.repairs import one_item
from drivable.effects import open_store
from tests.contract.example_server import CREATED, contract

NAMES = st.from_regex(r"[a-m]{3,8}(_[a-m]{3,8})?", fullmatch=True)
# no letter in common with NAMES: a stranger is no spelling of any field
STRANGERS = st.from_regex(r"[n-z]{3,8}", fullmatch=True)
VALUES = st.one_of(st.text(max_size=12), st.integers(), st.lists(st.text(max_size=6), max_size=3))


def missing(path: str) -> Issue:
    return Issue(path, "missing_property", f"'{path}' is required.")


def unknown(path: str) -> Issue:
    return Issue(path, "unknown_property", f"'{path}' is not a property here.")


@st.composite
def tools(draw: st.DrawFn) -> tuple[dict[str, Any], str, list[str], list[str]]:
    """A schema with one required list of objects (by $ref or inline, or one object), the
    list's name, its item's field names and the ones it requires."""
    fields = draw(st.lists(NAMES, min_size=1, max_size=5, unique=True))
    container = draw(NAMES.filter(lambda n: n not in fields))
    required = draw(st.lists(st.sampled_from(fields), unique=True))
    item = {
        "type": "object",
        "properties": {f: {"type": "string"} for f in fields},
        "required": required,
        "additionalProperties": False,
    }
    by_ref = draw(st.booleans())
    listed = draw(st.booleans())
    node: dict[str, Any] = {"$ref": "#/$defs/Item"} if by_ref else item
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {container: {"type": "array", "items": node} if listed else node},
        "required": [container],
        "additionalProperties": False,
    }
    if by_ref:
        schema["$defs"] = {"Item": item}
    return schema, container, fields, required


@settings(max_examples=200, deadline=None)
@given(tool=tools(), data=st.data())
def test_an_items_fields_at_the_top_level_are_that_item(tool: Any, data: st.DataObject) -> None:
    schema, container, fields, required = tool
    extra = data.draw(st.lists(st.sampled_from(fields), unique=True))
    sent_fields = list(dict.fromkeys([*required, *extra]))
    assume(sent_fields)
    raw = {f: data.draw(VALUES) for f in sent_fields}
    issues = [missing(container), *(unknown(f) for f in raw)]
    found = one_item(raw, issues, schema)
    assert found is not None
    into, value, moved = found
    item = value[0] if isinstance(value, list) else value
    assert into == container and item == raw and sorted(moved) == sorted(raw)
    assert isinstance(value, list) == (schema["properties"][container].get("type") == "array")


@settings(max_examples=200, deadline=None)
@given(tool=tools(), data=st.data())
def test_any_doubt_leaves_the_call_to_the_caller(tool: Any, data: st.DataObject) -> None:
    """A name the item lacks, or a required field of it not sent: no item is made up."""
    schema, container, fields, required = tool
    stranger = data.draw(STRANGERS)
    lacking = data.draw(st.booleans()) and bool(required)
    sent_fields = [f for f in fields if not (lacking and f == required[0])]
    raw: dict[str, Any] = {f: "x" for f in sent_fields}
    if not lacking:
        raw[stranger] = "y"
    assume(raw)
    issues = [missing(container), *(unknown(f) for f in raw)]
    assert one_item(raw, issues, schema) is None


# one draft's fields, `title` spelled any way its reading takes
ONE_DRAFT = given(
    title=st.text(st.characters(categories=("L", "N")), min_size=1, max_size=20),
    day=st.dates().map(str),
    spelled=st.sampled_from(["title", "Title", "TITLE"]),
)


@pytest.fixture
def store(tmp_path: Path) -> None:
    contract.use_effects(
        open_store(str(tmp_path / "effects.sqlite")), b"test-secret-0123456789abcdef"
    )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@ONE_DRAFT
async def test_create_notes_with_one_drafts_fields_sent_flat_is_read_as_that_draft(
    store: None, title: str, day: str, spelled: str
) -> None:
    # decision 0051: the certain fix is a reading, said in a note; the key resent with the
    # draft nested replays it (the same change, spelled another way)
    key = str(uuid.uuid4())
    flat = await contract.call("create_notes", {spelled: title, "day": day, "idempotency_key": key})
    assert not flat.is_error, flat.structured
    made = flat.structured["created"]
    assert len(made) == 1
    assert CREATED[-1] == {"id": made[0], "title": title, "day": day}
    assert (
        f"drafts: Read {spelled}, day sent beside drafts as its one item."
        in flat.structured["notes"]
    )
    nested = await contract.call(
        "create_notes", {"drafts": [{"title": title, "day": day}], "idempotency_key": key}
    )
    assert nested.structured["created"] == made and CREATED[-1]["id"] == made[0]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@ONE_DRAFT
async def test_one_draft_sent_flat_without_a_key_is_refused_with_the_draft_nested_and_a_key(
    store: None, title: str, day: str, spelled: str
) -> None:
    before = len(CREATED)
    refused = await contract.call("create_notes", {spelled: title, "day": day})
    env = refused.structured
    assert refused.is_error and len(CREATED) == before
    assert env["repair"]["next_step"] == "resend_with_the_fields_inside_their_item"
    repaired = dict(env["repair"]["arguments"])
    assert repaired.pop("idempotency_key") and repaired == {
        "drafts": [{"title": title, "day": day}]
    }
    assert "one item of it" in env["hint"]
    # the issues say where each field goes, as the repair does
    said = {i["path"]: i["message"] for i in env["issues"]}
    assert (
        "a field of each item of drafts" in said[spelled] and "nothing takes" not in said[spelled]
    )
    assert "its one item" in said["drafts"]
    # the fields resent flat beside the repair's key read as the repair does
    resent = await contract.call(
        "create_notes",
        {
            spelled: title,
            "day": day,
            "idempotency_key": env["repair"]["arguments"]["idempotency_key"],
        },
    )
    assert not resent.is_error and CREATED[-1]["title"] == title and len(CREATED) == before + 1
