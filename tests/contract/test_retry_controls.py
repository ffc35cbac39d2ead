"""A key sent to a tool that takes none (`repairs.RETRY_CONTROLS`,
docs/decisions/0035-a-key-an-idempotent-tool-does-not-take.md).

For every tool that declares itself idempotent and takes no `idempotency_key`, and every call to it
that is valid but for a key: the repair is that call without the key, every other argument as
sent, and it runs. (A mutation that is not idempotent must take a key: the declaration refuses it
otherwise.) No other unknown property leaves a mutation's repair.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import DELETE, UPDATE, Contract, Summary
from drivable.kinds import KindModel

contract = Contract(
    "keys",
    version="1.0.0",
    summary=Summary("Set and clear labels.", does=["set a label", "clear a label"], does_not=["x"]),
)


class Label(KindModel):
    item: str = Field(min_length=1, max_length=20, description="The item's name.")
    label: str = Field(min_length=1, max_length=20, description="The label.")


class Clear(KindModel):
    item: str = Field(min_length=1, max_length=20, description="The item's name.")


class Done(KindModel):
    ok: bool


@contract.tool(effects=UPDATE)
async def set_label(args: Label) -> Done:
    """Set an item's label (the same call twice leaves the same label)."""
    return Done(ok=True)


@contract.tool(effects=DELETE)
async def clear_label(args: Clear) -> Done:
    """Clear an item's label: the dry run shows it, the confirmed call clears it."""
    return Done(ok=True)


TEXT = st.text(st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=1, max_size=12)
# a key of any JSON type the boundary admits (integers beyond 64 bits are refused before reading)
KEYS = st.one_of(TEXT, st.integers(-(2**63), 2**63 - 1), st.booleans(), st.none())


@given(item=TEXT, label=TEXT, key=KEYS)
@settings(max_examples=60, deadline=None)
async def test_an_idempotent_tool_is_repaired_by_leaving_the_key_out(
    item: str, label: str, key: Any
) -> None:
    for tool, sent in (
        ("set_label", {"item": item, "label": label}),
        ("clear_label", {"item": item, "dry_run": True}),
    ):
        out = (await contract.call(tool, {**sent, "idempotency_key": key})).structured
        assert out["code"] == "invalid_arguments", out
        assert out["repair"] == {
            "tool": tool,
            "arguments": sent,
            "next_step": "resend_without_unknown_properties",
        }
        assert "idempotency_key" in out["hint"] and "idempotent" in out["hint"]
        assert not (await contract.call(tool, out["repair"]["arguments"])).is_error


@given(item=TEXT, label=TEXT, key=KEYS, other=st.sampled_from(["colour", "owner_name", "notify"]))
@settings(max_examples=40, deadline=None)
async def test_no_other_property_leaves_a_mutations_repair(
    item: str, label: str, key: Any, other: str
) -> None:
    sent = {"item": item, "label": label}
    # idempotent, but the property left out would be a constraint: the caller decides
    out = (await contract.call("set_label", {**sent, other: key})).structured
    assert out["code"] == "invalid_arguments" and "repair" not in out, out
