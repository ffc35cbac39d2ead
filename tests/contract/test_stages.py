"""Each stage of the call pipeline alone, on an `Attempt`, and the declaration conveniences."""

from __future__ import annotations

import datetime
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import (
    CREATE,
    DELETE,
    READ_ONLY,
    Call,
    Contract,
    ContractError,
    Output,
    Principal,
    Summary,
    ToolError,
)
from drivable.contract.stages.access import check_access
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.stages.bound import bound_size
from drivable.contract.stages.reading import read_arguments
from drivable.contract.stages.resolve import resolve, same_tools
from drivable.contract.stages.shaping import shape
from drivable.contract.strict import StrictError
from drivable.effects import open_store
from drivable.effects.backend import READING
from drivable.kinds import KindModel


def make(strict: bool | None = None) -> Contract:
    return Contract(
        "stages",
        version="1",
        summary=Summary("Stage tests.", does=["test"], does_not=["anything real"]),
        strict=strict,
    )


class Query(KindModel):
    query: str = Field(min_length=1, max_length=50, description="Words.")
    since: datetime.date | None = Field(None, description="First day.")


class Found(Output):
    count: int
    first: str | None  # required, and may be null
    last: str | None = None


contract = make()


@contract.tool(
    effects=READ_ONLY,
    examples=[{"query": "<the user's words>", "since": "<YYYY-MM-DD>"}],
    scopes=["read"],
)
def search_things(args: Query) -> Found:
    """Find things by words; a plain function, no Call, name and description from here."""
    return Found(count=len(args.query), first=None)


def attempt(name: str, raw: Any, principal: Principal | None = None) -> Attempt:
    return Attempt(contract, name, raw, principal or Principal(), "rid-1")


def test_resolve_records_the_spec_or_refuses_with_the_tool_it_spells() -> None:
    found = attempt("search_things", {})
    assert resolve(found).name == "search_things" and found.spec is not None
    with pytest.raises(Refused) as refused:
        resolve(attempt("find_things", {"query": "x"}))
    envelope = refused.value.envelope
    assert envelope.code == "unknown_tool" and envelope.repair is not None
    assert envelope.repair.tool == "search_things"


@given(st.text(min_size=1, max_size=12))
def test_same_tools_names_only_real_tools(name: str) -> None:
    same = same_tools(name, ["search_things", "get_thing"])
    assert set(same) <= {"search_things", "get_thing"}


def test_bound_refuses_a_non_object_and_an_oversized_payload() -> None:
    with pytest.raises(Refused) as refused:
        bound_size(attempt("search_things", ["not", "an", "object"]))
    assert refused.value.envelope.code == "invalid_arguments"
    big = attempt("search_things", {"query": "x" * (contract.max_inline_bytes + 1)})
    with pytest.raises(Refused) as refused:
        bound_size(big)
    assert refused.value.envelope.code == "payload_too_large"
    assert refused.value.envelope.details["limit_bytes"] == contract.max_inline_bytes
    bound_size(attempt("search_things", {"query": "x"}))  # within bounds: nothing happens


def test_access_names_the_missing_scopes() -> None:
    scoped = attempt("search_things", {}, Principal("p", frozenset()))
    resolve(scoped)
    with pytest.raises(Refused) as refused:
        check_access(scoped)
    assert refused.value.envelope.details == {"required_scopes": ["read"]}
    local = attempt("search_things", {})
    resolve(local)
    check_access(local)  # the local user holds every scope


def test_reading_builds_the_call_with_notes_or_refuses_with_issues() -> None:
    read = attempt("search_things", {"query": "x", "since": "2026/01/05"})
    resolve(read)
    read_arguments(read)
    assert read.args.since == datetime.date(2026, 1, 5)
    assert read.context.notes and read.context.tool == "search_things"
    bad = attempt("search_things", {"query": "x", "sinc": "2026-01-01"})
    resolve(bad)
    with pytest.raises(Refused) as refused:
        read_arguments(bad)
    assert refused.value.envelope.issues[0].path == "sinc"


def test_shaping_keeps_a_required_null_and_refuses_a_result_outside_the_model() -> None:
    shaped = attempt("search_things", {"query": "x"})
    resolve(shaped)
    read_arguments(shaped)
    assert shape(shaped, Found(count=1, first=None)) == {"count": 1, "first": None}
    with pytest.raises(StrictError, match="outside its output model Found"):
        shape(shaped, {"count": "many"})  # strict (the plugin): the server's own bug, loudly
    lenient = make(strict=False)
    graceful = Attempt(lenient, "search_things", {"query": "x"}, Principal(), "rid-2")
    graceful.spec, graceful.call = shaped.spec, shaped.call
    with pytest.raises(Refused) as refused:
        shape(graceful, {"count": "many"})
    assert refused.value.envelope.code == "internal_error"


def test_the_declaration_defaults_come_from_the_function() -> None:
    spec = contract.tools["search_things"]
    assert spec.title == "Search things"
    wire = contract.tool_wire(spec)
    assert wire["description"].startswith("Find things by words")
    assert (
        'Example: {"query": "<the user\'s words>", "since": "<YYYY-MM-DD>"}.' in wire["description"]
    )
    # an example with placeholders is no JSON Schema instance: it stays in the text only
    assert "examples" not in spec.input_schema


async def test_a_plain_function_without_call_runs() -> None:
    out = await contract.call("search_things", {"query": "abc"})
    assert not out.is_error and out.structured == {"count": 3, "first": None}


def test_an_example_that_does_not_validate_is_refused_at_import() -> None:
    fresh = make()
    with pytest.raises(ContractError, match="example 0 does not validate"):

        @fresh.tool(effects=READ_ONLY, examples=[{"query": ""}])
        async def search_more(args: Query) -> Found:
            """Find more things by words; the example is empty, so it cannot be copied."""
            raise AssertionError

    with pytest.raises(ContractError, match="canonical form"):

        @fresh.tool(effects=READ_ONLY, examples=[{"query": "x", "since": "2026/01/05"}])
        async def search_again(args: Query) -> Found:
            """Find things again by words; the example spells the date leniently."""
            raise AssertionError


def test_refusals_name_the_fix() -> None:
    fresh = make()
    with pytest.raises(ContractError, match="write a docstring"):

        @fresh.tool(effects=READ_ONLY)
        async def search_silently(args: Query) -> Found:
            raise AssertionError

    with pytest.raises(ContractError, match="declare effects="):

        @fresh.tool()
        async def search_loosely(args: Query) -> Found:
            """Find things by words without saying what the tool does to the world."""
            raise AssertionError

    with pytest.raises(
        ContractError, match=r"input model alone .* not both: move extra into Query"
    ):

        @fresh.tool(effects=READ_ONLY)
        async def search_wrongly(args: Query, call: Call, extra: int) -> Found:
            """Find things by words, with a parameter the runtime cannot fill."""
            raise AssertionError


class Draft(KindModel):
    title: str = Field(min_length=1, max_length=50, description="A title.")


class Made(Output):
    title: str
    runs: int


async def test_presets_add_their_control_fields_and_their_codes(tmp_path: Path) -> None:
    from drivable.effects import open_store as opened

    fresh = make()
    fresh.use_effects(opened(str(tmp_path / "effects.sqlite")), b"secret-for-tests")
    runs = []

    @fresh.tool(effects=CREATE)
    async def create_thing(args: Draft, call: Call) -> Made:
        """Create a thing with a title; retried calls replay the first result."""
        runs.append(args.title)
        return Made(title=args.title, runs=len(runs))

    @fresh.tool(effects=DELETE, errors=["not_found"])
    async def delete_thing(args: Draft) -> Made:
        """Delete the thing with this title, in two steps: preview, then confirm."""
        if args.title == "missing":
            raise ToolError("not_found", "No such thing.", hint="Call create_thing first.")
        return Made(title=args.title, runs=0)

    create = fresh.tools["create_thing"]
    assert "idempotency_key" in create.input_schema["required"]
    assert {"idempotency_key", "idempotency_mismatch"} <= {
        *create.input_schema["properties"],
        *fresh.tool_codes(create),
    }
    delete = fresh.tools["delete_thing"]
    assert {"dry_run", "confirm_token"} <= set(delete.input_schema["properties"])
    assert "confirmation_invalid" in fresh.tool_codes(delete)
    args = {"title": "a", "idempotency_key": "key-00000001"}
    first = await fresh.call("create_thing", args)
    again = await fresh.call("create_thing", args)
    assert first.structured["runs"] == 1 and again.structured["runs"] == 1 and runs == ["a"]
    preview = await fresh.call("delete_thing", {"title": "a", "dry_run": True})
    token = preview.structured["next_call"]["arguments"]["confirm_token"]
    done = await fresh.call(
        "delete_thing", {"title": "a", "dry_run": False, "confirm_token": token}
    )
    assert not done.is_error, done.structured


def test_cursor_codes_are_inferred_from_a_cursor_input() -> None:
    fresh = make()

    class Page(KindModel):
        cursor: str | None = Field(None, description="next_cursor of the previous page.")

    class Rows(Output):
        rows: list[str]

    @fresh.tool(effects=READ_ONLY)
    async def list_rows(args: Page) -> Rows:
        """List rows a page at a time; pass next_cursor back as cursor."""
        return Rows(rows=[])

    assert {"invalid_cursor", "cursor_expired"} <= set(fresh.tool_codes(fresh.tools["list_rows"]))


async def test_a_read_only_tool_reads_while_a_writer_holds_the_lock(tmp_path: Path) -> None:
    """SQLite: a read-only tool's transaction does not queue behind a long write."""
    path = tmp_path / "store.sqlite"
    store = open_store(str(path))
    async with store.transaction() as tx:
        await tx.execute("CREATE TABLE t (v INTEGER)")
    writer = sqlite3.connect(path, isolation_level=None, timeout=0.1)
    writer.execute("BEGIN IMMEDIATE")  # a refund in flight, holding the write lock
    try:
        token = READING.set(True)
        try:
            with anyio.fail_after(30):
                async with store.transaction() as tx:
                    rows = await tx.execute("SELECT count(*) FROM t")
        finally:
            READING.reset(token)
        assert rows.first() == (0,)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        await store.close()


def slips(strict: bool | None) -> Contract:
    fresh = Contract(
        "slips",
        version="1",
        summary=Summary("Strict tests.", does=["slip"], does_not=["keep its word"]),
        strict=strict,
    )

    @fresh.tool(effects=READ_ONLY)
    async def get_undeclared(args: Query) -> Found:
        """Answers not_found although the tool declares no such code."""
        raise ToolError("not_found", "Nothing.", hint="Call get_undeclared again.")

    @fresh.tool(effects=READ_ONLY, errors=["not_found"])
    async def get_bad_repair(args: Query) -> Found:
        """Answers not_found with a repair whose arguments the named tool refuses."""
        from drivable.contract import Repair

        raise ToolError(
            "not_found", "Nothing.", hint="Search.", repair=Repair("get_undeclared", {}, "x")
        )

    return fresh


async def test_strict_mode_raises_on_each_slip_and_production_degrades() -> None:
    strict = slips(None)  # the plugin switched strict mode on for this run
    assert strict.strict
    with pytest.raises(StrictError, match="does not declare"):
        await strict.call("get_undeclared", {"query": "x"})
    with pytest.raises(StrictError, match="do not validate"):
        await strict.call("get_bad_repair", {"query": "x"})
    lenient = slips(False)
    undeclared = await lenient.call("get_undeclared", {"query": "x"})
    assert undeclared.is_error and undeclared.structured["code"] == "not_found"
    dropped = await lenient.call("get_bad_repair", {"query": "x"})
    assert dropped.is_error and "repair" not in dropped.structured


def test_the_verb_lists_agree_on_what_reads_and_what_writes() -> None:
    """The runtime's fixed verbs, the synonyms a misnamed call is resolved through and the audit's
    verb classes are three lists; they must agree: every runtime verb is one the audit classifies,
    and a synonym never leads from a reading verb to a writing one (or back)."""
    from drivable.contract.stages.resolve import VERB_SYNONYMS
    from drivable.verbs import LEADING, MUTATING_VERBS, READ_VERBS

    assert LEADING <= READ_VERBS | MUTATING_VERBS
    for said, meant in VERB_SYNONYMS.items():
        assert set(meant) <= LEADING, (said, meant)
        reads = said in READ_VERBS
        assert reads or said in MUTATING_VERBS, said
        assert all((m in READ_VERBS) == reads for m in meant), (said, meant)
    from drivable.audit.heuristics import LISTING_VERBS

    assert set(LISTING_VERBS) <= READ_VERBS
