"""A value sent in a field that does not read it, which one other field reads, is moved there in
the repair (docs/decisions/0057-a-value-in-another-fields-place.md), over generated vocabularies.

A write tool with three vocabulary fields (colour, shape, finish), a free-text note and a
required id. For every value sent as the colour that the colour's vocabulary does not hold: the
refusal's repair sends it as the shape (or the finish) exactly when that one field's vocabulary
holds it, the other's does not, and it was not sent, in the form that field's advertised schema
takes, every other argument as sent, and that repair validates against the listed inputSchema
and is accepted as sent; otherwise no repair moves it (the free-text note, which reads
anything, never takes it). The expectations are the test's own set
arithmetic over the generated vocabularies, not the runtime's reader.
"""

from typing import Annotated, Any

import anyio
import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from drivable.contract import Call, Contract, Effects, Summary
from drivable.kinds import Kind, KindModel
from drivable.kinds.identifier import IdOf
from drivable.kinds.vocabulary import Vocabulary

# words with no shared four-letter start, so no word reads as another's inflection
POOL = ("amber", "cobalt", "maroon", "teal", "circle", "square", "oval", "star", "velvet")
WRITE = Effects(read_only=False, destructive=False, idempotent=True, open_world=False)


def paint_contract(colours: list[str], shapes: list[str], finishes: list[str]) -> Contract:
    contract = Contract(
        "moved-values",
        version="1.0.0",
        summary=Summary(text="Paint items.", does=["paint an item"], does_not=["delete items"]),
    )
    colour_words = Vocabulary.of([{"value": c} for c in colours], name="colour")
    shape_words = Vocabulary.of([{"value": s} for s in shapes], name="shape")
    finish_words = Vocabulary.of([{"value": f} for f in finishes], name="finish")

    class PaintInput(KindModel):
        item_id: IdOf("item_") = Field(description="The item to update.")  # type: ignore[valid-type]
        colour: Annotated[str, Kind("vocabulary", vocabulary=colour_words)] | None = Field(
            None, description="The colour to paint it."
        )
        shape: Annotated[str, Kind("vocabulary", vocabulary=shape_words)] | None = Field(
            None, description="The stencil's shape."
        )
        finish: Annotated[str, Kind("vocabulary", vocabulary=finish_words)] | None = Field(
            None, description="The paint's finish."
        )
        note: str | None = Field(None, max_length=200, description="Anything to remember.")
        coats: int | None = Field(None, ge=1, le=10_000, description="How many coats.")

    class PaintOutput(BaseModel):
        model_config = ConfigDict(extra="forbid")
        item_id: str
        colour: str | None
        shape: str | None
        finish: str | None

    @contract.tool(
        name="update_item",
        title="Update an item",
        description="Set an item's colour, stencil shape and finish.",
        effects=WRITE,
    )
    async def update_item(args: PaintInput, call: Call) -> PaintOutput:
        return PaintOutput(
            item_id=args.item_id, colour=args.colour, shape=args.shape, finish=args.finish
        )

    return contract


def spelled(word: str) -> Any:
    return st.sampled_from([word, word.upper(), word.title(), f" {word} "])


WORDS = st.lists(st.sampled_from(POOL), min_size=1, max_size=4, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    colours=WORDS,
    shapes=WORDS,
    finishes=WORDS,
    value=st.sampled_from(POOL).flatmap(spelled),
    shape_sent=st.none() | st.sampled_from(POOL),
    note=st.none() | st.just("keep this"),
)
def test_a_value_in_another_fields_place_is_moved_there_only_when_one_field_reads_it(
    colours: list[str],
    shapes: list[str],
    finishes: list[str],
    value: str,
    shape_sent: str | None,
    note: str | None,
) -> None:
    contract = paint_contract(colours, shapes, finishes)
    sent: dict[str, Any] = {"item_id": "item_1", "colour": value}
    if shape_sent is not None and shape_sent in shapes:
        sent["shape"] = shape_sent
    if note is not None:
        sent["note"] = note
    word = value.strip().lower()

    async def go() -> None:
        out = await contract.call("update_item", sent)
        if word in colours:
            assert not out.is_error, out.structured
            return
        env = out.structured
        assert out.is_error and env["code"] == "invalid_arguments", env
        repair = env.get("repair")
        readers = [
            name for name, words in (("shape", shapes), ("finish", finishes)) if word in words
        ]
        if len(readers) == 1 and readers[0] not in sent:
            (field,) = readers
            expected = {k: v for k, v in sent.items() if k != "colour"} | {field: word}
            assert repair == {
                "tool": "update_item",
                "arguments": expected,
                "next_step": "resend_with_the_value_in_its_field",
            }, env
            assert field in env["hint"] and "repair" in env["hint"]
            jsonschema.validate(repair["arguments"], listed_schema(contract))
            done = await contract.call(repair["tool"], repair["arguments"])
            assert not done.is_error, done.structured
            assert done.structured[field] == word and done.structured["colour"] is None
        else:
            assert repair is None or repair["next_step"] != "resend_with_the_value_in_its_field"

    anyio.run(go)


def listed_schema(contract: Contract) -> dict[str, Any]:
    (spec,) = contract.listed_tools()
    return dict(contract.tool_wire(spec)["inputSchema"])


@settings(max_examples=40, deadline=None)
@given(coats=st.integers(1_000, 10_000), separator=st.sampled_from([" ", "\u00a0", "\u202f", "'"]))
def test_a_number_moves_as_the_number_its_field_reads(coats: int, separator: str) -> None:
    # "4 000" (a number with a separator: a bare "4" reads as the id item_4 too, and so moves
    # nowhere) sent as the colour is the coats' 4000: the repair carries the number, which the
    # listed schema (an integer) takes; the spelling sent would not validate
    contract = paint_contract(["amber"], ["circle"], ["velvet"])
    spelled_number = f"{coats:,}".replace(",", separator)

    async def go() -> None:
        out = await contract.call("update_item", {"item_id": "item_1", "colour": spelled_number})
        repair = out.structured["repair"]
        assert repair["arguments"] == {"item_id": "item_1", "coats": coats}, out.structured
        jsonschema.validate(repair["arguments"], listed_schema(contract))

    anyio.run(go)


def test_a_value_two_fields_read_moves_nowhere_and_free_text_never_takes_one() -> None:
    contract = paint_contract(["amber"], ["circle", "velvet"], ["velvet"])

    async def go() -> None:
        one = await contract.call("update_item", {"item_id": "item_1", "colour": "circle"})
        assert one.structured["repair"]["arguments"] == {"item_id": "item_1", "shape": "circle"}
        two = await contract.call("update_item", {"item_id": "item_1", "colour": "velvet"})
        assert two.is_error and two.structured.get("repair") is None, two.structured
        # read by no vocabulary: the free-text note reads anything and counts for none
        none = await contract.call("update_item", {"item_id": "item_1", "colour": "teal"})
        assert none.is_error and none.structured.get("repair") is None, none.structured

    anyio.run(go)
