"""A read-only call sent another read-only tool's properties names that tool, and where that tool
takes every argument sent, its repair is that tool with every argument as sent
(docs/decisions/0069-a-property-of-another-tool-names-that-tool.md), over generated catalogs.

Three tools whose properties are drawn from words no two of which are spellings of one name
(no rename applies), one of them sometimes a write. The expectations are the test's own set
arithmetic over the generated schemas: the one other read-only tool declaring every unknown name
is named, nothing sent is left out of its repair, and a write (called or calling) is never
involved. Otherwise the runtime's own rules (a read-only tool leaves out a name nothing means)
answer, and never with another tool.
"""

from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, create_model

from drivable.contract import Call, Contract, Effects, Summary
from drivable.kinds import KindModel

WORDS = ("harbour", "lantern", "meadow", "quarry", "saddle", "thimble", "walnut", "zephyr")
READ = Effects(read_only=True, destructive=False, idempotent=True, open_world=False)
WRITE = Effects(read_only=False, destructive=False, idempotent=True, open_world=False)
TOOLS = ("list_boats", "list_sheds", "set_flags")


class Echo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sent: list[str]


def catalog(shapes: dict[str, tuple[list[str], list[str], bool]]) -> Contract:
    """Tools by name: (optional properties, required ones, read-only)."""
    contract = Contract(
        "elsewhere",
        version="1.0.0",
        summary=Summary(text="Boats and sheds.", does=["list them"], does_not=["sell them"]),
    )
    for name, (optional, required, read_only) in shapes.items():
        fields: dict[str, Any] = {
            p: (str | None, Field(None, max_length=40, description=f"The {p}.")) for p in optional
        }
        fields |= {p: (str, Field(max_length=40, description=f"The {p}.")) for p in required}
        model = create_model(f"{name}_input", __base__=KindModel, **fields)

        async def handler(args: Any, call: Call) -> Echo:
            return Echo(sent=sorted(k for k, v in args.model_dump().items() if v is not None))

        handler.__annotations__ = {"args": model, "call": Call, "return": Echo}
        contract.tool(
            name=name,
            title=name.replace("_", " ").capitalize(),
            description=f"{name.replace('_', ' ').capitalize()} of the yard, by any of their fields.",
            effects=READ if read_only else WRITE,
        )(handler)
    return contract


@st.composite
def shapes(draw: st.DrawFn) -> dict[str, tuple[list[str], list[str], bool]]:
    out = {}
    for name in TOOLS:
        props = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
        required = draw(st.lists(st.sampled_from(props), max_size=1, unique=True))
        optional = [p for p in props if p not in required]
        out[name] = (optional, required, name != "set_flags" or draw(st.booleans()))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes(), data=st.data())
def test_another_read_only_tools_properties_name_that_tool_and_keep_every_argument(
    shape: dict[str, tuple[list[str], list[str], bool]], data: st.DataObject
) -> None:
    contract = catalog(shape)
    called = data.draw(st.sampled_from(TOOLS))
    optional, required, read_only = shape[called]
    own = set(optional) | set(required)
    keys = data.draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
    sent = {k: f"{k} value" for k in keys}
    unknown = set(sent) - own
    owners = [
        name
        for name, (o, r, ro) in shape.items()
        if name != called and ro and unknown <= set(o) | set(r)
    ]

    async def go() -> None:
        out = await contract.call(called, sent)
        env = out.structured
        if not unknown:
            return  # the called tool's own properties: answered or refused by its own rules
        assert out.is_error and env["code"] == "invalid_arguments", env
        repair = env.get("repair")
        if read_only and len(owners) == 1:
            (owner,) = owners
            o, r, _ = shape[owner]
            assert owner in env["hint"], env
            takes_all = set(sent) <= set(o) | set(r) and set(r) <= set(sent)
            if takes_all:
                assert repair == {
                    "tool": owner,
                    "arguments": sent,
                    "next_step": "call_the_tool_that_takes_these_properties",
                }, env
                done = await contract.call(owner, repair["arguments"])
                assert not done.is_error and done.structured["sent"] == sorted(sent)
            else:
                assert repair is None, env
        else:
            assert repair is None or repair["tool"] == called, env

    anyio.run(go)


def test_a_log_sent_a_branch_listings_filters_is_sent_to_the_branch_listing() -> None:
    # the shape of the git server's tools: git_log sent git_branch's `contains` and
    # `branch_type`; without the rule the repair left both out, and the listing answered another
    # question than the one asked
    contract = catalog(
        {
            "list_boats": (["harbour"], ["walnut"], True),
            "list_sheds": (["lantern", "meadow"], ["walnut"], True),
            "set_flags": (["lantern"], ["walnut"], False),
        }
    )
    sent = {"walnut": "shop", "lantern": "local", "meadow": "2dd897c"}

    async def go() -> None:
        out = await contract.call("list_boats", sent)
        assert out.structured["repair"] == {
            "tool": "list_sheds",
            "arguments": sent,
            "next_step": "call_the_tool_that_takes_these_properties",
        }
        assert "list_sheds" in out.structured["hint"]
        # sent to the write, the same names are no reason to call a read elsewhere
        write = await contract.call("set_flags", sent)
        assert (write.structured.get("repair") or {}).get("tool") in (None, "set_flags")

    anyio.run(go)
