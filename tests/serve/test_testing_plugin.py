"""drivable.testing: the fixtures a server author uses, loaded through the pytest11 entry point."""

from __future__ import annotations

from typing import Any, Literal

import anyio
import pytest
from pydantic import BaseModel, ConfigDict, Field

from drivable.contract import READ_ONLY, Call, Contract, Effects, Summary
from drivable.kinds import KindModel
from drivable.testing import ClientFactory, Mode, assert_round_trip, call_error, call_ok
from tests.serve import serve_app

pytest_plugins = ["pytester"]

BOUND = 60.0


async def test_call_ok_and_call_error_in_both_modes(
    drivable_client: ClientFactory, drivable_mode: Mode
) -> None:
    with anyio.fail_after(BOUND):
        async with drivable_client(serve_app.contract, mode=drivable_mode) as client:
            assert client.protocol_version == (
                "2025-11-25" if drivable_mode == "legacy" else "2026-07-28"
            )
            out = await call_ok(client, "search_notes", {"query": "note", "limit": 2})
            assert len(out["results"]) == 2
            env = await call_error(client, "get_note", {"note_id": "note_999"}, code="not_found")
            assert env["repair"]["tool"] == "search_notes"
            env = await call_error(client, "search_notes", {"query": "x", "dateFrom": "2026"})
            assert env["repair"]["arguments"] == {"query": "x", "date_from": "2026"}
            with pytest.raises(AssertionError, match="not_found"):
                await call_ok(client, "get_note", {"note_id": "note_999"})
            with pytest.raises(AssertionError, match="expected not_found"):
                await call_error(client, "check_failure", {}, code="not_found")


async def test_progress_and_cancellation_in_process(
    drivable_client: ClientFactory, drivable_mode: Mode
) -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(float(progress))

    with anyio.fail_after(BOUND):
        async with drivable_client(serve_app.contract, mode=drivable_mode) as client:
            await call_ok(client, "list_count_events", {"clear": True})
            await client.call_tool(
                "count_slowly", {"steps": 3, "delay_ms": 0}, progress_callback=on_progress
            )
            assert seen == [1.0, 2.0, 3.0]
            await call_ok(client, "list_count_events", {"clear": True})
            with anyio.move_on_after(0.3):
                await client.call_tool("count_slowly", {"steps": 100, "delay_ms": 50})
            events: list[str] = []
            while "cancelled" not in events:
                await anyio.sleep(0.05)
                events = (await call_ok(client, "list_count_events", {}))["events"]
            assert events[-1] == "cancelled"
            assert len(events) < 100


def settings_contract(drift: bool) -> Contract:
    contract = Contract(
        "settings-example",
        version="1.0.0",
        summary=Summary(
            text="Read and change display settings.",
            does=["describe settings", "set settings"],
            does_not=["anything else"],
        ),
    )
    state: dict[str, Any] = {"timezone": "Europe/Paris", "page_size": 20, "week_starts": "monday"}

    class Settings(BaseModel):
        model_config = ConfigDict(extra="forbid")
        timezone: str
        page_size: int
        week_starts: Literal["monday", "sunday"]

    class Described(BaseModel):
        model_config = ConfigDict(extra="forbid")
        settings: Settings

    class DescribeInput(KindModel):
        pass

    class SetInput(KindModel):
        timezone: str = Field(min_length=1, max_length=64, description="IANA zone.")
        page_size: int = Field(ge=1, le=100, description="Rows per page.")
        week_starts: Literal["monday", "sunday"]

    @contract.tool(
        name="describe_settings",
        title="Describe settings",
        description=(
            "The current settings, as the exact payload set_settings accepts. Use it before "
            "set_settings and change only what must change. Example: {}."
        ),
        effects=READ_ONLY,
    )
    async def describe_settings(args: DescribeInput, call: Call) -> Described:
        return Described(settings=Settings(**state))

    @contract.tool(
        name="set_settings",
        title="Set settings",
        description=(
            "Replace the settings with the payload describe_settings returned, changed where "
            'needed. Example: {"timezone": "<timezone>", "page_size": "<page size>", "week_starts": "<week starts>"}.'
        ),
        effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
    )
    async def set_settings(args: SetInput, call: Call) -> Described:
        state.update(args.model_dump())
        if drift:  # a write that does not keep what it was given
            state["page_size"] = args.page_size + 1
        return Described(settings=Settings(**state))

    return contract


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_round_trip_is_a_fixed_point(mode: Mode) -> None:
    with anyio.fail_after(BOUND):
        payload = await assert_round_trip(
            settings_contract(drift=False),
            "describe_settings",
            {},
            "set_settings",
            lambda out: out["settings"],
            mode=mode,
        )
    assert payload == {"timezone": "Europe/Paris", "page_size": 20, "week_starts": "monday"}


async def test_round_trip_catches_a_drifting_write() -> None:
    with anyio.fail_after(BOUND), pytest.raises(AssertionError, match="not a fixed point"):
        await assert_round_trip(
            settings_contract(drift=True),
            "describe_settings",
            {},
            "set_settings",
            lambda out: out["settings"],
        )


def test_the_plugin_loads_from_its_entry_point(pytester: pytest.Pytester) -> None:
    """A user's test file, in a fresh pytest process, with nothing but the installed package."""
    pytester.makepyfile(
        test_user="""
        from drivable.contract import READ_ONLY, Call, Contract, Summary
        from drivable.kinds import KindModel
        from drivable.testing import call_ok
        from pydantic import BaseModel, ConfigDict

        contract = Contract("tiny", version="1", summary=Summary("Echo.", ["echo"], ["else"]))

        class In(KindModel):
            text: str

        class Out(BaseModel):
            model_config = ConfigDict(extra="forbid")
            text: str

        @contract.tool(name="echo_text", title="Echo", effects=READ_ONLY,
                       description="Returns the text it is given. Example: {\\"text\\": \\"<text>\\"}.")
        async def echo_text(args: In, call: Call) -> Out:
            return Out(text=args.text)

        async def test_echo(drivable_client, drivable_mode):
            async with drivable_client(contract, mode=drivable_mode) as client:
                assert (await call_ok(client, "echo_text", {"text": "hi"}))["text"] == "hi"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-o", "asyncio_mode=auto")
    result.assert_outcomes(passed=2)
    # a fresh project: no asyncio_mode, no marker (pytest-asyncio installed but strict, as by
    # default); the plugin runs the test itself rather than pytest skipping it
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-o", "asyncio_mode=strict")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=2)
