"""Registration refuses, at import time, every tool a model could not drive."""

from __future__ import annotations

import datetime
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, model_validator

from drivable.contract import READ_ONLY, Call, Contract, ContractError, Effects, Summary
from drivable.kinds import Kind, KindModel


def _contract() -> Contract:
    return Contract(
        "t",
        version="1",
        summary=Summary(text="Test.", does=["test"], does_not=["anything else"]),
    )


class In(KindModel):
    query: str


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool


DESCRIPTION = 'Searches things by words; use it first. Example: {"query": "<query>"}.'


async def _handler(args: In, call: Call) -> Out:
    return Out(ok=True)


def _register(contract: Contract, handler: Any = _handler, **overrides: Any) -> None:
    options: dict[str, Any] = {
        "name": "search_things",
        "title": "Search things",
        "description": DESCRIPTION,
        "effects": READ_ONLY,
    }
    options.update(overrides)
    contract.tool(**options)(handler)


def test_a_well_formed_tool_registers() -> None:
    contract = _contract()
    _register(contract)
    assert "search_things" in contract.tools


@pytest.mark.parametrize("description", ["", "   ", "Search."])
def test_refuses_a_missing_or_trivial_description(description: str) -> None:
    with pytest.raises(ContractError, match="description"):
        _register(_contract(), description=description)


@pytest.mark.parametrize(
    "name", ["searchThings", "Search_things", "things", "things_searcher", "search-things"]
)
def test_refuses_names_that_are_not_snake_case_verb_noun(name: str) -> None:
    with pytest.raises(ContractError, match="name"):
        _register(_contract(), name=name)


def test_accepts_a_prefixed_verb_noun_name() -> None:
    contract = _contract()
    _register(contract, name="notes_search_things")
    assert "notes_search_things" in contract.tools


def test_refuses_undeclared_annotations() -> None:
    with pytest.raises(ContractError, match="effects"):
        _register(_contract(), effects=None)


def test_refuses_a_read_only_tool_marked_destructive() -> None:
    effects = Effects(read_only=True, destructive=True, idempotent=True, open_world=False)
    with pytest.raises(ContractError, match="read-only"):
        _register(_contract(), effects=effects)


def test_refuses_an_id_input_without_the_shared_id_type() -> None:
    class Get(KindModel):
        invoice_id: str

    async def get(args: Get, call: Call) -> Out:
        return Out(ok=True)

    with pytest.raises(ContractError, match="shared id type"):
        _register(_contract(), handler=get)


def test_accepts_an_id_declared_with_the_shared_id_kinds() -> None:
    class Get(KindModel):
        invoice_id: Annotated[str, Kind("identifier", prefix="inv_")]
        other_id: Annotated[Any, Kind("uuid")] = None

    async def get(args: Get, call: Call) -> Out:
        return Out(ok=True)

    contract = _contract()
    _register(contract, handler=get)
    schema = contract.tools["search_things"].input_schema
    assert schema["properties"]["invoice_id"]["pattern"].startswith("^inv_")


def test_refuses_cross_field_checks_mutually_exclusive_optionals() -> None:
    class Either(KindModel):
        by_name: str | None = None
        by_email: str | None = None

        @model_validator(mode="after")
        def one_of(self) -> Either:
            return self

    async def find(args: Either, call: Call) -> Out:
        return Out(ok=True)

    with pytest.raises(ContractError, match="discriminated union"):
        _register(_contract(), handler=find)


def test_refuses_an_open_input_model() -> None:
    class Open(BaseModel):
        query: str

    async def find(args: Open, call: Call) -> Out:
        return Out(ok=True)

    with pytest.raises(ContractError, match="KindModel"):
        _register(_contract(), handler=find)


def test_refuses_an_open_nested_model() -> None:
    class Inner(BaseModel):
        x: int

    class Outer(KindModel):
        inner: Inner

    async def find(args: Outer, call: Call) -> Out:
        return Out(ok=True)

    with pytest.raises(ContractError, match="closed"):
        _register(_contract(), handler=find)


def test_refuses_a_handler_without_an_output_model() -> None:
    async def find(args: In, call: Call) -> dict[str, Any]:
        return {}

    with pytest.raises(ContractError, match="outputSchema"):
        _register(_contract(), handler=find)


@pytest.mark.parametrize(
    "field", ["message", "hint", "notes", "warnings", "rejected", "confirm_token", "next_call"]
)
def test_refuses_an_output_field_the_runtime_reserves(field: str) -> None:
    # confirm_token too, though a preview carries its token only inside next_call: a field of
    # that name beside it would read as the token.
    Taken = type(
        "Taken",
        (BaseModel,),
        {"__annotations__": {field: str}, "model_config": ConfigDict(extra="forbid")},
    )

    async def find(args: In, call: Call) -> Any:
        return Taken(**{field: "x"})

    find.__annotations__ = {"args": In, "call": Call, "return": Taken}
    with pytest.raises(ContractError, match=f"output field '{field}' is reserved"):
        _register(_contract(), handler=find)


def test_refuses_unregistered_error_codes() -> None:
    with pytest.raises(ContractError, match="unregistered"):
        _register(_contract(), errors=["no_such_code"])


def test_refuses_a_tool_declared_twice() -> None:
    contract = _contract()
    _register(contract)
    with pytest.raises(ContractError, match="twice"):
        _register(contract)


def test_advertised_schemas_are_strict_closed_and_declare_their_dialect() -> None:
    class Nested(KindModel):
        day: datetime.date

    class Search(KindModel):
        query: str
        date_from: datetime.date | None = None
        limit: int = 10
        nested: list[Nested] | None = None

    async def find(args: Search, call: Call) -> Out:
        return Out(ok=True)

    contract = _contract()
    _register(contract, handler=find)
    spec = contract.tools["search_things"]
    schema = spec.input_schema
    assert schema["$schema"].endswith("2020-12/schema")

    def objects(node: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        if isinstance(node, dict):
            if node.get("type") == "object":
                found.append(node)
            for value in node.values():
                found.extend(objects(value))
        elif isinstance(node, list):
            for value in node:
                found.extend(objects(value))
        return found

    for schema_ in (spec.input_schema, spec.output_schema):
        assert objects(schema_), "no object schemas found"
        assert all(o.get("additionalProperties") is False for o in objects(schema_))
        assert "title" not in schema_
    date_from = schema["properties"]["date_from"]
    # An optional bound advertises the strict kind (omit it to leave it unset); null still reads.
    assert date_from["type"] == "string"
    assert date_from["format"] == "date"
    assert "notes" in spec.output_schema["properties"]
    assert "warnings" in spec.output_schema["properties"]
