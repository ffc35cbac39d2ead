"""The author API with nothing hidden: one namespace, plain annotated parameters, visible control
fields, ids as annotations. Served to the SDK's own client (`drivable.testing.connect`)."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import subprocess
import sys
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

import drivable
from drivable import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Confirmed,
    ConfirmToken,
    Contract,
    ContractError,
    DryRun,
    Id,
    IdempotencyKey,
    IdOf,
    Keyed,
    KindModel,
    Output,
    Page,
    Summary,
)
from drivable.testing import call_error, call_ok, connect


def _contract() -> Contract:
    return Contract(
        "author",
        version="1.0.0",
        summary=Summary("Author API tests.", does=["test"], does_not=["anything else"]),
    )


class Said(Output):
    said: str


# -- one namespace ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", drivable.__all__)
def test_every_name_of_the_namespace_is_its_owners_object(name: str) -> None:
    owner = importlib.import_module(drivable._OWNERS[name])
    assert getattr(drivable, name) is getattr(owner, name)
    assert name in dir(drivable)


def test_the_namespace_names_only_what_it_exports() -> None:
    assert sorted(drivable._OWNERS) == sorted(drivable.__all__)
    with pytest.raises(AttributeError, match="no attribute 'Contrakt'"):
        _ = drivable.Contrakt


def test_importing_drivable_imports_nothing_else_of_it() -> None:
    """`import drivable` (and so `drivable --help`) loads no submodule, pydantic or typing."""
    code = "import sys, drivable; print(sorted(m for m in sys.modules if m.split('.')[0] in ('drivable', 'pydantic', 'typing', 'mcp')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == ["drivable"]


# -- plain annotated parameters --------------------------------------------------------------------


def _parameters_contract() -> Contract:
    contract = _contract()

    @contract.tool(effects=READ_ONLY)
    async def search_rooms(
        call: Call,
        day: dt.date,
        start: Annotated[dt.time | None, Field(description="Free from this time.")] = None,
        seats: int = Field(2, ge=1, le=20, description="People to seat."),
        *,
        floor: Annotated[int, Field(ge=0, le=9)] = 0,
    ) -> Said:
        """Find rooms free on a day from a time; use it before booking. No room is an empty page.
        Example: {"day": "<YYYY-MM-DD>"}."""
        assert isinstance(call, Call) and call.tool == "search_rooms"
        return Said(said=f"{day.isoformat()} {start} {seats} {floor}")

    @contract.tool(effects=READ_ONLY)
    def count_rooms(building: str) -> Said:
        """Count the rooms of a building by its name; use it to size a search. Example:
        {"building": "<building>"}."""
        return Said(said=f"{building}: 3")

    return contract


def test_the_input_model_is_the_parameters_in_their_order() -> None:
    spec = _parameters_contract().tools["search_rooms"]
    schema = spec.input_schema
    assert list(schema["properties"]) == ["day", "start", "seats", "floor"]
    assert schema["required"] == ["day"]
    assert schema["properties"]["start"]["description"] == "Free from this time."
    assert schema["properties"]["seats"]["default"] == 2
    assert schema["properties"]["seats"]["maximum"] == 20
    assert schema["additionalProperties"] is False


async def test_a_handler_gets_each_parameter_by_name_and_the_call_where_it_stands() -> None:
    async with connect(_parameters_contract()) as client:
        # the kinds read a parameter exactly as they read a model's field: "3/2/2026" is asked
        # about, 2026-03-02 read as it is, "9:30" as 09:30 with a note
        out = await call_ok(client, "search_rooms", {"day": "2026-03-02", "start": "9:30"})
        assert out["said"] == "2026-03-02 09:30:00 2 0"
        assert out["notes"]
        env = await call_error(
            client, "search_rooms", {"day": "03/02/2026"}, code="invalid_arguments"
        )
        assert env["issues"][0]["code"] == "ambiguous_date"
        out = await call_ok(client, "count_rooms", {"building": "Mill"})
        assert out["said"] == "Mill: 3"


@settings(max_examples=40, deadline=None)
@given(
    seats=st.integers(-5, 40),
    floor=st.integers(-3, 12),
    day=st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31)),
)
def test_parameters_validate_as_the_same_fields_of_a_model_do(
    seats: int, floor: int, day: dt.date
) -> None:
    """A signature's input and the model with the same fields accept and refuse alike."""

    class Same(KindModel):
        day: dt.date
        start: Annotated[dt.time | None, Field(description="Free from this time.")] = None
        seats: int = Field(2, ge=1, le=20, description="People to seat.")
        floor: Annotated[int, Field(ge=0, le=9)] = 0

    contract = _parameters_contract()
    built = contract.tools["search_rooms"].input_model
    sent: dict[str, Any] = {"day": day.isoformat(), "seats": seats, "floor": floor}
    from drivable.kinds import validate

    def outcome(model: Any) -> Any:
        try:
            read = validate(model, sent, intent="read")
        except Exception as error:
            return type(error).__name__
        return read.value.model_dump(), read.notes

    assert outcome(built) == outcome(Same)
    assert built.model_json_schema() == {**Same.model_json_schema(), "title": built.__name__}


def test_the_model_form_stays_and_its_untyped_second_parameter_is_the_call() -> None:
    contract = _contract()

    class Query(KindModel):
        query: str = Field(min_length=1, description="Words.")

    @contract.tool(effects=READ_ONLY)
    async def search_words(args: Query, call) -> Said:  # type: ignore[no-untyped-def]
        """Find words in the index by their spelling; no match is an empty result.
        Example: {"query": "<words>"}."""
        return Said(said=f"{args.query} {call.tool}")

    @contract.tool(effects=READ_ONLY)
    async def search_again(args: Query, call: Any) -> Said:
        """Find words in the index again by their spelling; no match is an empty result.
        Example: {"query": "<words>"}."""
        return Said(said=f"{args.query} {call.tool}")

    for name, handler in (("search_words", search_words), ("search_again", search_again)):
        spec = contract.tools[name]
        assert spec.input_model is Query
        assert spec.handler is handler  # taken as it is: the pipeline's own calling convention


@pytest.mark.parametrize(
    ("source", "refusal"),
    [
        ("def search_x(*words: str) -> Said: ...", r"\*words takes no property"),
        ("def search_x(**words: str) -> Said: ...", r"\*words takes no property"),
        ("def search_x(words) -> Said: ...", "parameter 'words' has no annotation"),
        ("def search_x(_words: str) -> Said: ...", "starts with '_'"),
        ("def search_x(words: str, page: Page) -> Said: ...", "returns it as `Paged"),
        ("def search_x(a: Call, b: Call) -> Said: ...", "one Call, not 2"),
        ("def search_x(args: Words, limit: int) -> Said: ...", "not both: move limit into Words"),
    ],
)
def test_a_signature_the_runtime_cannot_fill_is_refused_naming_the_fix(
    source: str, refusal: str
) -> None:
    class Words(KindModel):
        words: str

    scope: dict[str, Any] = {"Said": Said, "Page": Page, "Call": Call, "Words": Words}
    exec(source, scope)
    handler = scope["search_x"]
    handler.__doc__ = "Search things by words, for a test of what is refused. Example: {}."
    with pytest.raises(ContractError, match=refusal):
        _contract().tool(effects=READ_ONLY)(handler)


# -- the control fields, in the open -----------------------------------------------------------------


class Draft(KindModel):
    title: str = Field(min_length=1, max_length=50, description="A title.")


class KeyedDraft(Keyed):
    title: str = Field(min_length=1, max_length=50, description="A title.")


class ConfirmedDraft(Confirmed):
    title: str = Field(min_length=1, max_length=50, description="A title.")


def _declared(effects: Any, handler: Any) -> dict[str, Any]:
    contract = _contract()
    handler.__doc__ = "Change the thing with this title; a retry is safe. Example: {}."
    contract.tool(effects=effects, name="change_thing")(handler)
    return contract.tools["change_thing"].input_schema


def test_a_visible_control_field_is_the_one_a_preset_would_add() -> None:
    """The bases and the parameter types declare exactly what the presets add to an input that
    lacks them (the older, hidden way): the same properties, words and bounds."""

    def injected(args: Draft) -> Said:
        raise AssertionError  # declared, never called

    def keyed(args: KeyedDraft) -> Said:
        raise AssertionError  # declared, never called

    def confirmed(args: ConfirmedDraft) -> Said:
        raise AssertionError  # declared, never called

    def keyed_parameters(title: Annotated[str, Field(min_length=1, max_length=50, description="A title.")], idempotency_key: IdempotencyKey) -> Said: raise AssertionError  # fmt: skip

    def confirmed_parameters(title: Annotated[str, Field(min_length=1, max_length=50, description="A title.")], dry_run: DryRun = False, confirm_token: ConfirmToken = None) -> Said: raise AssertionError  # fmt: skip

    def properties(schema: dict[str, Any]) -> dict[str, Any]:
        return dict(schema["properties"])

    hidden_key = properties(_declared(CREATE, injected))
    hidden_confirm = properties(_declared(DELETE, injected))
    for visible in (_declared(CREATE, keyed), _declared(CREATE, keyed_parameters)):
        assert properties(visible) == hidden_key
        assert "idempotency_key" in visible["required"]
    for visible in (_declared(DELETE, confirmed), _declared(DELETE, confirmed_parameters)):
        assert properties(visible) == hidden_confirm
        assert visible.get("required", ["title"]) == ["title"]


def test_a_declared_control_field_is_the_authors_own_model() -> None:
    """Nothing is added to an input that declares its controls: the handler's model is the one
    the runtime validates into, so `args.dry_run` is a field a type checker sees."""
    contract = _contract()

    @contract.tool(effects=DELETE)
    def delete_thing(args: ConfirmedDraft) -> Said:
        """Delete the thing with this title, in two steps: a dry run, then the real run.
        Example: {"title": "<title>"}."""
        return Said(said="dry" if args.dry_run else "done")

    assert contract.tools["delete_thing"].input_model is ConfirmedDraft


# -- ids as annotations ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_an_id_annotation_reads_as_the_id_type_of_the_older_call(body: str) -> None:
    class ByAnnotation(KindModel):
        booking_id: Annotated[str, Id("bk_")]

    class ByCall(KindModel):
        booking_id: IdOf("bk_")  # type: ignore[valid-type]

    from drivable.kinds import validate

    def outcome(model: Any) -> Any:
        try:
            read = validate(model, {"booking_id": body}, intent="write")
        except Exception as error:
            return str(error).replace(model.__name__, "M")
        return read.value.booking_id, read.notes

    assert outcome(ByAnnotation) == outcome(ByCall)
    assert (
        ByAnnotation.model_json_schema()["properties"] == ByCall.model_json_schema()["properties"]
    )


def test_an_id_annotation_is_the_shared_id_type_the_declaration_asks_for() -> None:
    contract = _contract()

    @contract.tool(effects=READ_ONLY)
    def get_booking(booking_id: Annotated[str, Id("bk_", lookup=("list_bookings", None))]) -> Said:
        """Read one booking by the id list_bookings returned; an unknown id is not_found.
        Example: {"booking_id": "<booking_id>"}."""
        return Said(said=booking_id)

    with pytest.raises(ContractError, match="shared id type"):

        @contract.tool(effects=READ_ONLY)
        def get_room(room_id: str) -> Said:
            """Read one room by the id a search returned; an unknown id is not_found.
            Example: {"room_id": "<room_id>"}."""
            return Said(said=room_id)
