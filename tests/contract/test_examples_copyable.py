"""A model copies an example call as it is (decision 0030): every value the user supplies is a
placeholder that names what goes there, so a copied example adds no constraint the user never gave.

Two properties: the declaration refuses an example with any concrete user value, over the whole
class of JSON values; and on every bundled server, a read tool called with its own example verbatim
answers as it does with no arguments at all (the copied example narrowed nothing)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import READ_ONLY, Contract, ContractError, Output, Summary
from drivable.contract.declare import examples_in
from drivable.contract.envelope import envelope_of
from drivable.eval.surfaces import load
from drivable.kinds import KindModel

SETS = ("example", "caselaw", "billing", "bookings", "tickets", "documents")


class Find(KindModel):
    query: str | None = Field(default=None, description="Words to look for.")
    limit: int = Field(default=10, description="Rows a page.")


class Found(Output):
    results: list[str]


# Every JSON value a model could copy as a constraint: numbers, booleans, and strings that do not
# open as a template does.
CONCRETE = (
    st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.text(min_size=1, max_size=30).filter(lambda s: s.strip()[:1] not in ("<", "{", "[", "$"))
)


def declare(example: dict[str, Any], *, in_text: bool, gap: str = " ") -> None:
    contract = Contract(
        "copy-check", version="1", summary=Summary("Copy checks.", does=["test"], does_not=["x"])
    )
    text = "Find things by words; use it first."
    if in_text:
        text += f" Example:{gap}{json.dumps(example)}."

    @contract.tool(effects=READ_ONLY, description=text, examples=() if in_text else [example])
    async def find_things(args: Find) -> Found:
        raise AssertionError


@settings(max_examples=60, deadline=None)
@given(
    value=CONCRETE,
    in_text=st.booleans(),
    key=st.sampled_from(["query", "limit"]),
    gap=st.sampled_from([" ", "\n        ", "  "]),  # a docstring wraps the example anywhere
)
def test_an_example_with_a_concrete_user_value_is_refused(
    value: Any, in_text: bool, key: str, gap: str
) -> None:
    with pytest.raises(ContractError, match=r"copies|validate|canonical"):
        declare({key: value}, in_text=in_text, gap=gap)


@settings(max_examples=40, deadline=None)
@given(
    words=st.text("abcdefghijklmnopqrstuvwxyz _'", min_size=1, max_size=30).filter(str.strip),
    in_text=st.booleans(),
)
def test_an_example_of_placeholders_is_accepted(words: str, in_text: bool) -> None:
    declare({"query": f"<{words.strip()}>", "limit": "<page size>"}, in_text=in_text)


def read_tools_with_examples(name: str) -> list[tuple[str, dict[str, Any]]]:
    contract = load(name)
    out: list[tuple[str, dict[str, Any]]] = []
    for tool, spec in contract.tools.items():
        wire = contract.tool_wire(spec)
        schema = wire["inputSchema"]
        if not (wire.get("annotations") or {}).get("readOnlyHint") or schema.get("required"):
            continue
        out.extend((tool, example) for example in examples_in(wire["description"]))
    return out


async def answer(client: Any, tool: str, arguments: dict[str, Any]) -> Any:
    """The answer without what only says how it was read (notes, warnings) or where to go on; a
    refusal by its code."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        envelope = envelope_of(result)
        assert envelope is not None, result
        return ("refused", envelope["code"])
    drop = {"notes", "warnings", "next_cursor", "next_call", "hint", "message"}
    return {k: v for k, v in (result.structured_content or {}).items() if k not in drop}


@pytest.mark.parametrize("name", SETS)
async def test_a_copied_example_narrows_nothing(name: str, drivable_client: Any) -> None:
    tools = read_tools_with_examples(name)
    assert tools, f"{name} has no read tool with an example: the property would hold vacuously"
    async with drivable_client(load(name), mode="legacy") as client:
        for tool, example in tools:
            copied = await answer(client, tool, example)
            assert copied == await answer(client, tool, {}), (tool, example)
