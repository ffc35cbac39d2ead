"""drivable.testing: test your own tools in a few lines (a pytest plugin, loaded automatically).

```python
from drivable.testing import call_error, call_ok

async def test_search(drivable_client, drivable_mode):
    async with drivable_client(contract, mode=drivable_mode) as client:
        out = await call_ok(client, "search_notes", {"query": "budget"})
        assert out["results"]
        env = await call_error(client, "get_note", {"note_id": "note_999"}, code="not_found")
        assert env["repair"]["tool"] == "search_notes"
```

`drivable_client(contract, mode=...)` connects the SDK's own `mcp.Client` in process to
`build_server(contract)`: `mode="legacy"` is the serialized path (JSON-RPC messages over memory
streams, the 2025-11-25 handshake), `mode="auto"` the 2026-07-28 era through the SDK's direct
dispatcher. `drivable_mode` runs a test once per mode. `call_ok` and `call_error` assert the shapes
a model relies on (structuredContent conforming to outputSchema plus its JSON text mirror; on a
refusal no structuredContent, the pinned envelope as text and in `_meta`, with a literally callable
repair); `assert_round_trip` pins a read-back (describe -> configure) as a fixed point. Strict mode
is on while the plugin is loaded (see `pytest_configure`).
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

import pytest

# pytest loads this module in every run of every project that has drivable installed: the SDK and
# the runtime are imported when a fixture or helper is first used, never at plugin load.
if TYPE_CHECKING:
    from mcp import Client

    from drivable.contract import Contract


def pytest_configure(config: pytest.Config) -> None:
    """Strict mode for every contract under test (`drivable.contract.strict`): a tool that emits a
    code it does not declare, offers a repair that does not validate, or returns a result outside
    its outputSchema fails the test instead of degrading quietly. `Contract(strict=False)` opts a
    contract out (a test of the graceful production behaviour)."""
    from drivable.contract import strict

    strict.enable()


@pytest.hookimpl
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run an `async def` test that asks for `drivable_client`, when no async plugin took it.

    A fresh project has no `asyncio_mode = "auto"` and no marker: pytest itself would skip the
    test as "async def functions are not natively supported". A test another plugin runs
    (anyio's answers this hook first; pytest-asyncio hands pytest a plain function in place of
    the coroutine) is left to it."""
    test = pyfuncitem.obj
    if not inspect.iscoroutinefunction(test) or "drivable_client" not in pyfuncitem.fixturenames:
        return None
    import anyio

    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    anyio.run(functools.partial(test, **arguments))
    return True


Mode = Literal["legacy", "auto"]
MODES: tuple[Mode, ...] = ("legacy", "auto")

# tools/list per live client (a Client is a dataclass: unhashable, so keyed by id until collected).
_tools: dict[int, dict[str, Any]] = {}


@asynccontextmanager
async def connect(
    contract: Contract, *, mode: Mode = "legacy", read_timeout_seconds: float = 30.0
) -> AsyncIterator[Client]:
    """An `mcp.Client` connected in process to the contract's server (no response cache).

    A failure in the body (an assertion) surfaces as itself, not wrapped in the exception group
    of the client's task group, so `pytest.raises` and pytest's report see it plainly.
    """
    from mcp import Client

    from drivable.serve.mount import build_server

    try:
        async with Client(
            build_server(contract),
            mode=mode,
            cache=None,
            read_timeout_seconds=read_timeout_seconds,
        ) as client:
            yield client
    except BaseExceptionGroup as group:
        leaf = _single_leaf(group)
        if leaf is None:
            raise
        raise leaf from None


def _single_leaf(group: BaseExceptionGroup[BaseException]) -> Exception | None:
    found: BaseException = group
    while isinstance(found, BaseExceptionGroup):
        if len(found.exceptions) != 1:
            return None
        found = found.exceptions[0]
    return found if isinstance(found, Exception) else None


ClientFactory = Callable[..., "AbstractAsyncContextManager[Client]"]


async def _tool(client: Client, name: str) -> dict[str, Any] | None:
    known = _tools.get(id(client))
    if known is None:
        listed = await client.list_tools()
        known = {t.name: t.model_dump(by_alias=True, mode="json") for t in listed.tools}
        _tools[id(client)] = known
        weakref.finalize(client, _tools.pop, id(client), None)
    return known.get(name)


def _mirror(result: Any) -> Any:
    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
    assert texts, "the result has no text content mirroring structuredContent"
    try:
        return json.loads(texts[0])
    except json.JSONDecodeError as error:
        raise AssertionError(
            f"content[0] is not the JSON mirror of structuredContent: {error}"
        ) from None


async def call_ok(
    client: Client, tool: str, arguments: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Call `tool`, assert it succeeded in the drivable shape, and return structuredContent."""
    import jsonschema

    from drivable.contract.envelope import envelope_of

    result = await client.call_tool(tool, dict(arguments or {}))
    structured = result.structured_content
    if result.is_error:
        raise AssertionError(
            f"{tool} failed: {json.dumps(envelope_of(result), ensure_ascii=False, indent=1)}"
        )
    assert isinstance(structured, dict), f"{tool} returned no structuredContent"
    assert _mirror(result) == structured, "the text mirror differs from structuredContent"
    described = await _tool(client, tool)
    assert described is not None, f"{tool} is not in tools/list"
    schema = described.get("outputSchema")
    assert schema, f"{tool} has no outputSchema"
    jsonschema.validate(structured, schema)
    return structured


async def call_text(client: Client, tool: str, arguments: Mapping[str, Any] | None = None) -> str:
    """Call a prose tool (one returning `Text`), assert it answered prose in the drivable shape
    (no outputSchema listed, no structuredContent, its text first), and return that text."""
    from drivable.contract.envelope import envelope_of

    result = await client.call_tool(tool, dict(arguments or {}))
    if result.is_error:
        raise AssertionError(
            f"{tool} failed: {json.dumps(envelope_of(result), ensure_ascii=False, indent=1)}"
        )
    assert result.structured_content is None, f"{tool} answered data, not prose"
    described = await _tool(client, tool)
    assert described is not None, f"{tool} is not in tools/list"
    assert not described.get("outputSchema"), f"{tool} lists an outputSchema but answers prose"
    first = result.content[0] if result.content else None
    assert first is not None and first.type == "text", f"{tool}'s answer does not start with text"
    return str(first.text)


async def call_error(
    client: Client,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    code: str | None = None,
) -> dict[str, Any]:
    """Call `tool`, assert it was refused with the pinned envelope, and return the envelope.

    Checks the envelope's shape, `code` when given, that `hint` is not empty, and that a `repair`
    names a listed tool with arguments its advertised inputSchema accepts (literally callable).
    """
    import jsonschema

    from drivable.contract import ERROR_CODES
    from drivable.contract.envelope import ENVELOPE_META_KEY, envelope_schema

    result = await client.call_tool(tool, dict(arguments or {}))
    assert result.is_error, (
        f"{tool} succeeded where a refusal was expected: {result.structured_content}"
    )
    # The shape every client accepts: no structuredContent on an error (the TypeScript SDK 1.x
    # validates it against the outputSchema even then), the envelope as text and in _meta.
    assert result.structured_content is None, f"{tool}'s refusal carries structuredContent"
    envelope = (result.meta or {}).get(ENVELOPE_META_KEY)
    assert isinstance(envelope, dict), f"{tool}'s refusal carries no envelope in _meta"
    assert _mirror(result) == envelope, "the text differs from the envelope in _meta"
    schema = envelope_schema(sorted(ERROR_CODES))
    schema["properties"]["code"] = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
    jsonschema.validate(envelope, schema)
    if code is not None:
        assert envelope["code"] == code, f"expected {code}, got {envelope['code']}: {envelope}"
    assert envelope["hint"].strip(), "the envelope's hint is empty"
    repair = envelope.get("repair")
    if repair is not None:
        target = await _tool(client, repair["tool"])
        assert target is not None, f"the repair names {repair['tool']}, which is not listed"
        jsonschema.validate(repair["arguments"], target["inputSchema"])
    return envelope


def assert_conforms(
    contract: Contract,
    tool: str,
    structured: dict[str, Any],
    is_error: bool,
    *,
    leaks: re.Pattern[str] | None = None,
) -> None:
    """One outcome of `contract.call` holds the contract: a success matches the tool's
    outputSchema; an error is the envelope, names the next call (a real tool in `hint`, or a
    `repair`), and any repair validates against its tool. `leaks` is what must never appear."""
    import jsonschema

    from drivable.contract.envelope import envelope_schema

    if is_error:
        jsonschema.validate(structured, envelope_schema(list(contract.codes)))
        names = set(contract.tools)
        assert any(n in structured["hint"] for n in names) or structured.get("repair"), structured
        repair = structured.get("repair")
        if repair:
            contract.validate(repair["tool"], repair["arguments"])  # literally callable
    else:
        jsonschema.validate(structured, contract.tools[tool].output_schema)
    if leaks is not None:
        assert not leaks.search(json.dumps(structured, ensure_ascii=False)), structured


async def assert_round_trip(
    contract: Contract,
    read_tool: str,
    read_args: Mapping[str, Any],
    write_tool: str,
    extract: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    mode: Mode = "legacy",
) -> dict[str, Any]:
    """Pin "echo the next call": what `read_tool` returns is what `write_tool` accepts, unchanged.

    Reads, takes the payload `extract` picks from the result, checks it against the write tool's
    advertised (strict) inputSchema, writes it, reads again, and asserts the payload is a fixed
    point: writing what was read changes nothing a read shows. Returns the payload.
    """
    import jsonschema

    async with connect(contract, mode=mode) as client:
        first = extract(await call_ok(client, read_tool, read_args))
        described = await _tool(client, write_tool)
        assert described is not None, f"{write_tool} is not in tools/list"
        jsonschema.validate(first, described["inputSchema"])
        written = await call_ok(client, write_tool, first)
        assert "notes" not in written, (
            f"{write_tool} had to read the payload {read_tool} returned leniently: "
            f"{written['notes']}; echo the canonical form instead"
        )
        second = extract(await call_ok(client, read_tool, read_args))
        assert second == first, (
            f"not a fixed point: {read_tool} -> {write_tool} -> {read_tool} changed "
            f"{json.dumps(first, ensure_ascii=False)} into {json.dumps(second, ensure_ascii=False)}"
        )
        return first


@pytest.fixture
def drivable_client() -> ClientFactory:
    """`async with drivable_client(contract, mode="legacy") as client:` (mode "legacy" | "auto")."""
    return connect


@pytest.fixture(params=MODES)
def drivable_mode(request: pytest.FixtureRequest) -> Mode:
    """Runs the test once over the serialized handshake path and once over the 2026 era."""
    mode: Mode = request.param
    return mode


# What a test imports (docs/api.md); the fixtures are requested by name, as pytest does.
__all__ = [
    "assert_conforms",
    "assert_round_trip",
    "call_error",
    "call_ok",
    "call_text",
    "connect",
    "drivable_client",
    "drivable_mode",
]
