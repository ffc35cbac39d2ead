"""A catalog larger than its limit is entered through find_tools, describe_tool and call_tool
(`drivable.contract.catalog`, docs/decisions/0042-a-large-catalog-is-entered.md), over a real
client: what a host lists, what each entry tool answers, and that nothing of the catalog is lost."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable import READ_ONLY, Contract, Output, Summary
from drivable.contract import catalog
from drivable.contract.envelope import envelope_of
from drivable.contract.tool import ContractError
from drivable.eval.catalog import among
from drivable.serve.mount import build_server
from drivable.surface import snapshot
from drivable.target import WHOLE_CATALOG, Target, collect_surface, connect

SOME = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Echoed(Output):
    said: str


def code_of(result: Any) -> str | None:
    envelope = envelope_of(result)
    return None if envelope is None else str(envelope["code"])


def small() -> Contract:
    contract = Contract(
        "notes",
        version="1.0.0",
        summary=Summary("Keep notes.", does=["echo a note"], does_not=["store anything"]),
    )

    @contract.tool(effects=READ_ONLY)
    def echo_note(text: str) -> Echoed:
        """Echo a note back as it was written, to check what the server reads. Example:
        {"text": "<note>"}."""
        return Echoed(said=text)

    return contract


async def listing(contract: Contract, meta: Any = None) -> list[dict[str, Any]]:
    async with connect(Target(server=build_server(contract))) as client:
        listed = await client.list_tools(meta=meta, cache_mode="bypass")
    return [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]


def test_a_catalog_is_entered_only_where_its_author_set_a_limit() -> None:
    assert dict(WHOLE_CATALOG) == {catalog.FULL_KEY: catalog.FULL}
    plain = Contract("plain", version="1", summary=Summary("Plain.", does=[], does_not=[]))
    wide = among(small(), 100, limit=None)
    assert plain.catalog_limit is None and not catalog.entered(wide)
    names = [t["name"] for t in anyio.run(listing, wide)]
    assert len(names) == 100 and not set(catalog.ENTRY) & set(names)


@SOME
@given(st.integers(1, 45), st.integers(1, 40))
def test_a_catalog_over_its_limit_lists_the_entry_tools_and_the_whole_on_request(
    size: int, limit: int
) -> None:
    contract = among(small(), size, limit=limit)

    async def run() -> tuple[list[str], list[str]]:
        shown = [t["name"] for t in await listing(contract)]
        whole = [t["name"] for t in await listing(contract, WHOLE_CATALOG)]
        return shown, whole

    shown, whole = anyio.run(run)
    assert whole == list(contract.tools)  # the whole catalog, in the declared order
    if len(contract.tools) > limit:
        assert shown == list(catalog.ENTRY)
    else:
        assert shown == whole


@SOME
@given(st.data())
def test_every_tool_is_found_described_and_called_through_the_entry(data: st.DataObject) -> None:
    contract = among(small(), 40, limit=10)
    name = data.draw(st.sampled_from(sorted(contract.tools)))

    async def run() -> tuple[Any, Any, Any, Any, Any]:
        async with connect(Target(server=build_server(contract))) as client:
            found = await client.call_tool("find_tools", {"query": name.replace("_", " ")})
            described = await client.call_tool("describe_tool", {"name": name})
            whole = await client.list_tools(meta=WHOLE_CATALOG, cache_mode="bypass")
            spec = contract.tools[name]
            arguments = {p: "a" for p in spec.input_schema.get("required", [])}
            if name == "echo_note":
                arguments = {"text": "hello"}
            direct = await client.call_tool(name, arguments)
            through = await client.call_tool("call_tool", {"name": name, "arguments": arguments})
        return found, described, whole, direct, through

    found, described, whole, direct, through = anyio.run(run)
    assert found.structured_content is not None
    hits = [t["name"] for t in found.structured_content["tools"]]
    assert name in hits, (name, hits)
    listed = next(
        t.model_dump(by_alias=True, exclude_none=True) for t in whole.tools if t.name == name
    )
    shown = json.loads(described.content[0].text)
    assert shown == {k: v for k, v in listed.items() if k != "_meta"}
    # call_tool answers exactly as the tool does (a request id aside, on an error)
    assert through.is_error == direct.is_error
    if direct.is_error:
        assert code_of(through) == code_of(direct)
    else:
        assert through.structured_content == direct.structured_content


def test_call_tool_of_a_tool_the_catalog_lacks_names_the_search_that_finds_it() -> None:
    contract = among(small(), 40, limit=10)

    async def run() -> tuple[Any, Any, Any]:
        async with connect(Target(server=build_server(contract))) as client:
            missing = await client.call_tool(
                "call_tool", {"name": "search_order", "arguments": {"query": "x"}}
            )
            nameless = await client.call_tool("call_tool", {"arguments": {}})
            as_text = await client.call_tool(
                "call_tool", {"name": "echo_note", "arguments": '{"text": "hi"}'}
            )
        return missing, nameless, as_text

    missing, nameless, as_text = anyio.run(run)
    envelope = envelope_of(missing)
    assert missing.is_error and envelope is not None and envelope["code"] == "not_found"
    assert envelope["repair"] == {
        "tool": "find_tools",
        "arguments": {"query": "search order"},
        "next_step": "find the tool",
    }
    assert nameless.is_error and code_of(nameless) == "invalid_arguments"
    # arguments sent as the JSON text of an object are that object
    assert not as_text.is_error and as_text.structured_content == {"said": "hi"}


@SOME
@given(st.from_regex(r"zq[a-z]{1,6}(_zq[a-z]{1,6}){0,2}", fullmatch=True))
def test_a_name_no_tool_has_is_found_with_what_tools_list_shows(name: str) -> None:
    """Calling a name that is no tool and spells none another way: where the catalog is entered,
    the refusal names none of the unlisted tools and its repair, find_tools with the name's
    words, answers; where every tool is listed, the hint names them all."""
    entered, whole = among(small(), 40, limit=10), among(small(), 40, limit=None)

    async def run(contract: Contract) -> tuple[list[str], dict[str, Any], Any]:
        async with connect(Target(server=build_server(contract))) as client:
            listed = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
            refused = envelope_of(await client.call_tool(name, {"text": "hi"}))
            assert refused is not None
            repair = refused.get("repair")
            followed = repair and await client.call_tool(repair["tool"], repair["arguments"])
        return listed, refused, followed

    listed, refused, followed = anyio.run(run, entered)
    assert refused["code"] == "unknown_tool" and set(listed) == set(catalog.ENTRY)
    assert not [n for n in entered.tools if n in refused["hint"]], refused["hint"]
    assert refused["repair"] == {
        "tool": "find_tools",
        "arguments": {"query": name.replace("_", " ")},
        "next_step": "find the tool",
    }
    assert not followed.is_error and followed.structured_content["catalog_size"] == 40
    listed, refused, followed = anyio.run(run, whole)
    assert refused["code"] == "unknown_tool" and followed is None
    assert all(n in refused["hint"] for n in listed) and len(listed) == 40


@SOME
@given(st.integers(129, 200_000), st.sampled_from(["zq", "echo_note_", "q "]))
def test_a_name_longer_than_mcp_allows_is_echoed_cut(length: int, unit: str) -> None:
    """However long the name a call sends, its refusal stays the size of a refusal (the name is
    said cut to MCP's 128 characters, in the message, the hint and the repair's search)."""
    name = (unit * length)[:length]

    async def run(contract: Contract) -> Any:
        async with connect(Target(server=build_server(contract))) as client:
            return await client.call_tool(name, {"text": "hi"})

    for limit in (10, None):
        refused = anyio.run(run, among(small(), 40, limit=limit))
        envelope = envelope_of(refused)
        assert envelope is not None and envelope["code"] == "unknown_tool"
        assert len(json.dumps(envelope)) < 4_000


def test_a_name_spelling_a_catalog_tool_another_way_is_repaired_to_it_when_entered() -> None:
    contract = among(small(), 40, limit=10)

    async def run() -> dict[str, Any] | None:
        async with connect(Target(server=build_server(contract))) as client:
            return envelope_of(await client.call_tool("EchoNotes", {"text": "hi"}))

    refused = anyio.run(run)
    assert refused is not None and refused["code"] == "unknown_tool"
    assert refused["repair"]["tool"] == "echo_note"
    assert refused["hint"].startswith("'EchoNotes' is what this server calls echo_note")
    assert not [n for n in contract.tools if n != "echo_note" and n in refused["hint"]]


def test_a_snapshot_sees_the_whole_catalog_whatever_the_limit() -> None:
    async def take(limit: int) -> dict[str, Any]:
        contract = among(small(), 40, limit=limit)
        async with connect(Target(server=build_server(contract))) as client:
            return snapshot.canonical(await collect_surface(client))

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        return await take(10), await take(100)

    entered, flat = anyio.run(run)
    assert len(entered["tools"]) == 40
    assert snapshot.dumps(entered) == snapshot.dumps(flat)


def test_discover_says_which_listing_a_client_gets() -> None:
    contract = among(small(), 40, limit=10)

    async def run() -> Any:
        async with connect(Target(server=build_server(contract)), mode="auto") as client:
            return client.session.discover_result

    meta = anyio.run(run).meta
    assert meta[catalog.FULL_KEY] == {
        "tools": 40,
        "limit": 10,
        "listed": list(catalog.ENTRY),
        "full": {"method": "tools/list", "_meta": {catalog.FULL_KEY: catalog.FULL}},
    }


@SOME
@given(st.data())
def test_a_found_tool_says_every_argument_it_takes(data: st.DataObject) -> None:
    contract = among(small(), 60, limit=10)
    name = data.draw(st.sampled_from(sorted(contract.tools)))
    schema = contract.tool_wire(contract.tools[name])["inputSchema"]
    line = catalog.signature(name, schema)
    assert line.startswith(f"{name}(") and line.endswith(")")
    required = set(schema.get("required") or ())
    for prop in schema.get("properties") or {}:
        spelled = f"{prop}: " if prop in required else f"{prop}?: "
        assert spelled in line, (prop, line)
    assert line.count(": ") == len(schema.get("properties") or {})


@SOME
@given(st.data(), st.sampled_from(["s", "es", "ed", "ing"]))
def test_a_tool_is_found_by_its_name_words_inflected(data: st.DataObject, suffix: str) -> None:
    contract = among(small(), 60, limit=10)
    name = data.draw(st.sampled_from(sorted(contract.tools)))
    parts = [w for w in catalog.words(name) if len(w) >= 4]
    query = " ".join(w + suffix for w in parts) or name
    assert all(catalog.same_word(w, w + suffix) for w in parts)
    found = [s.name for s in catalog.search(contract, query, 20)]
    assert name in found, (query, found)


# A vowel of each word written with a mark a model's keyboard adds ("ínvoíces", "bookíng").
MARKS = st.sampled_from(["\u0301", "\u030c", "\u0308", "\u0300"])


@SOME
@given(st.data(), MARKS)
def test_a_query_written_with_diacritics_finds_what_it_finds_without(
    data: st.DataObject, mark: str
) -> None:
    contract = among(small(), 60, limit=10)
    name = data.draw(st.sampled_from(sorted(contract.tools)))
    query = name.replace("_", " ")
    marked = "".join(c + mark if c in "aeiou" else c for c in query)
    assert marked != query
    found = [s.name for s in catalog.search(contract, query, 20)]
    assert [s.name for s in catalog.search(contract, marked, 20)] == found and name in found


@settings(SOME, max_examples=6)
@given(st.integers(catalog.QUERY + 1, 200_000))
def test_a_query_longer_than_its_bound_is_refused_before_any_search(length: int) -> None:
    """Every word of a query is sought in every tool's fields: a 200,000-character query took
    over a minute of a core before it was bounded."""
    contract = among(small(), 100, limit=10)

    async def run() -> Any:
        async with connect(Target(server=build_server(contract))) as client:
            return await client.call_tool("find_tools", {"query": ("invoice " * length)[:length]})

    refused = anyio.run(run)
    envelope = envelope_of(refused)
    assert refused.is_error and envelope is not None
    assert envelope["code"] == "invalid_arguments"
    assert [i["path"] for i in envelope["issues"]] == ["query"], envelope
    assert len(refused.content[0].text) < 2_000


WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9)


@SOME
@given(WORD, st.sampled_from(["s", "es", "ed", "ing"]), st.sampled_from(["get", "list", "find"]))
def test_a_word_as_written_outranks_the_same_word_inflected(
    word: str, suffix: str, verb: str
) -> None:
    """Two tools alike but for one word of their names, one as asked and one inflected: whichever
    order they are declared in, the one that holds the word as asked ranks first."""
    for names in ([f"{verb}_{word}", f"{verb}_{word}{suffix}"],
                  [f"{verb}_{word}{suffix}", f"{verb}_{word}"]):  # fmt: skip
        contract = Contract("alike", version="1", summary=Summary("Alike.", does=[], does_not=[]))
        for name in names:
            contract.tool(effects=READ_ONLY, name=name)(_echo(name))
        for asked in (word, word + suffix):
            found = [s.name for s in catalog.search(contract, asked, 2)]
            assert found[0] == f"{verb}_{asked}", (names, asked, found)


def _echo(name: str) -> Any:
    def echo(text: str) -> Echoed:
        return Echoed(said=text)

    echo.__doc__ = f'Echo a text back ({name}). Example: {{"text": "<text>"}}.'
    return echo


def test_a_catalog_tool_named_like_an_entry_tool_is_refused() -> None:
    contract = Contract(
        "shadow",
        version="1",
        summary=Summary("Shadow.", does=["find tools"], does_not=["anything else"]),
        catalog_limit=1,
    )

    @contract.tool(effects=READ_ONLY)
    def find_tools(query: str) -> Output:
        """Find the tools of the shop's workshop by their words. Example: {"query": "<words>"}."""
        return Output()

    @contract.tool(effects=READ_ONLY)
    def list_items() -> Output:
        """List the items of the shop, newest first, all at once. Example: {}."""
        return Output()

    with pytest.raises(ContractError, match="find_tools share a name with the entry tools"):
        catalog.entry_contract(contract)
