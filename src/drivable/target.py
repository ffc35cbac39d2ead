"""Reach any MCP server and collect what an agent sees of it.

One owner for "connect to a target" (stdio command, streamable HTTP URL, or an in-process server in
tests) and for "collect the surface" (discover, tools, resources, templates, prompts as wire dicts).
The auditor, the surface snapshot and the eval all start here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TextIO, cast

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import RequestParamsMeta
from pydantic import BaseModel

from drivable import settings

Mode = Literal["auto", "legacy"]
HANDSHAKE_ERA = "handshake"
MODERN_VERSION = "2026-07-28"
# The tools/list `_meta` that lists a large drivable catalog whole (`drivable.contract.catalog`).
WHOLE_CATALOG: Final = cast(RequestParamsMeta, {"dev.drivable/catalog": "full"})


@dataclass(frozen=True)
class Target:
    """Where a server is and how to speak to it.

    `env` is passed to a stdio server explicitly, on top of the SDK's small safe set: the SDK passes
    nothing else, so a variable the user meant for the server must be named here.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    bearer_token: str | None = None
    mode: Mode = "auto"
    cwd: str | None = None
    server: Any = None  # an in-process `mcp.server.Server` (tests and benchmarks)

    def __post_init__(self) -> None:
        given = sum(
            1 for x in (bool(self.command), self.url is not None, self.server is not None) if x
        )
        if given != 1:
            raise ValueError("a target is exactly one of: a command, a URL, an in-process server")

    @classmethod
    def from_cli(
        cls,
        command: Sequence[str] = (),
        *,
        url: str | None = None,
        env_pairs: Sequence[str] = (),
        pass_env: Sequence[str] = (),
        bearer_token: str | None = None,
        mode: Mode = "auto",
    ) -> Target:
        """Build a target from command-line spellings: `KEY=VALUE` pairs and names to pass through."""
        env = settings.passed_through(pass_env)
        for pair in env_pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise ValueError(f"--env takes KEY=VALUE, got {pair!r}")
            env[key] = value
        return cls(command=tuple(command), url=url, env=env, bearer_token=bearer_token, mode=mode)

    @property
    def kind(self) -> Literal["stdio", "http", "in-process"]:
        if self.command:
            return "stdio"
        if self.url is not None:
            return "http"
        return "in-process"

    def describe(self) -> dict[str, Any]:
        """What a report says of the target: never the values of the variables, only their names."""
        out: dict[str, Any] = {"transport": self.kind}
        if self.command:
            out["command"] = list(self.command)
            out["env_passed"] = sorted(self.env)
            out["env_inherited"] = sorted(get_default_environment())
        if self.url is not None:
            out["url"] = self.url
            out["bearer_token"] = self.bearer_token is not None
        return out


@asynccontextmanager
async def connect(
    target: Target,
    *,
    errlog: TextIO | None = None,
    read_timeout_seconds: float | None = 60.0,
    mode: Mode | None = None,
    elicitation_callback: Any = None,
    sampling_callback: Any = None,
    list_roots_callback: Any = None,
    extensions: Sequence[Any] = (),
    message_handler: Any = None,
) -> AsyncIterator[Client]:
    """Open a client on the target; `mode` overrides the target's era choice for this connection.

    A stdio server's stderr goes to `errlog` (default: this process's stderr). Each callback given
    makes the client declare its capability (elicitation, sampling, roots) and answer with it;
    `extensions` (`mcp.client.extension.ClientExtension`s) are declared as the client's own.
    `message_handler` gets the server's notifications and what its transport could not read (a
    log line a stdio server printed on stdout arrives as an exception).
    """
    chosen: Mode = mode or target.mode
    server: Any
    if target.command:
        env = dict(get_default_environment())
        env.update(target.env)
        params = StdioServerParameters(
            command=target.command[0], args=list(target.command[1:]), env=env, cwd=target.cwd
        )
        server = stdio_client(params, errlog=errlog if errlog is not None else sys.stderr)
    elif target.url is not None:
        server = _HttpTransport(target.url, target.bearer_token)
    else:
        server = target.server
    given = {
        "elicitation_callback": elicitation_callback,
        "sampling_callback": sampling_callback,
        "list_roots_callback": list_roots_callback,
        "message_handler": message_handler,
    }
    callbacks: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if extensions:  # opt-in client extensions (the eval's host of the tasks extension)
        callbacks["extensions"] = list(extensions)
    async with Client(
        server, mode=chosen, cache=None, read_timeout_seconds=read_timeout_seconds, **callbacks
    ) as client:
        yield client


class _HttpTransport:
    """Streamable HTTP through a client this module owns, so headers (a bearer token) can ride along."""

    def __init__(self, url: str, bearer_token: str | None) -> None:
        self._url = url
        headers = {"Authorization": f"Bearer {bearer_token}"} if bearer_token else {}
        self._http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0))

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        self._cm = streamable_http_client(self._url, http_client=self._http)
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self._cm.__aexit__(*exc)
        finally:
            await self._http.__aexit__(*exc)


def era_of(client: Client) -> str:
    """`2026-07-28` when the stateless era was spoken, `handshake` for the initialize era."""
    return MODERN_VERSION if client.protocol_version == MODERN_VERSION else HANDSHAKE_ERA


def wire(model: Any) -> Any:
    """A result model as it travels: camelCase aliases, no unset optionals."""
    if isinstance(model, BaseModel):
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return model


async def _all_pages(
    fetch: Callable[[str | None], Awaitable[Any]], attr: str, max_pages: int = 1000
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    items: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(max_pages):
        result = await fetch(cursor)
        pages.append(wire(result))
        items.extend(wire(x) for x in getattr(result, attr))
        cursor = getattr(result, "next_cursor", None)
        if not cursor:
            break
    return items, pages


async def collect_surface(client: Client) -> dict[str, Any]:
    """Everything an agent sees, as wire dicts in the server's order.

    Lists the server does not support come back empty, with the reason under `unsupported`.
    `tools_list_bytes` counts the serialized tools/list result pages, as a client receives them.
    """
    caps = client.server_capabilities
    surface: dict[str, Any] = {
        "protocol_version": client.protocol_version,
        "era": era_of(client),
        "server": wire(client.server_info) if client.server_info is not None else {},
        "capabilities": wire(caps),
        "instructions": client.instructions,
        "discover": None,
        "tools": [],
        "resources": [],
        "resource_templates": [],
        "prompts": [],
        "list_results": {},
        "unsupported": {},
    }
    discovered = getattr(client.session, "_discover_result", None)
    if discovered is not None:
        surface["discover"] = wire(discovered)

    async def tools(c: str | None) -> Any:
        # the whole catalog of a server that lists a large one through entry tools
        # (`drivable.contract.catalog`); any other server ignores the `_meta` key
        return await client.list_tools(cursor=c, meta=WHOLE_CATALOG, cache_mode="bypass")

    async def resources(c: str | None) -> Any:
        return await client.list_resources(cursor=c, cache_mode="bypass")

    async def templates(c: str | None) -> Any:
        return await client.list_resource_templates(cursor=c, cache_mode="bypass")

    async def prompts(c: str | None) -> Any:
        return await client.list_prompts(cursor=c, cache_mode="bypass")

    plan: list[tuple[str, str, Callable[[str | None], Awaitable[Any]], str, bool]] = [
        ("tools", "tools", tools, "tools/list", caps.tools is not None),
        ("resources", "resources", resources, "resources/list", caps.resources is not None),
        (
            "resource_templates",
            "resource_templates",
            templates,
            "resources/templates/list",
            caps.resources is not None,
        ),
        ("prompts", "prompts", prompts, "prompts/list", caps.prompts is not None),
    ]
    for key, attr, fetch, method, advertised in plan:
        if not advertised:
            surface["unsupported"][key] = "capability not advertised"
            continue
        try:
            items, pages = await _all_pages(fetch, attr)
        except Exception as exc:  # a server that advertises a list but fails it is evidence
            surface["unsupported"][key] = f"{method} failed: {type(exc).__name__}"
            continue
        surface[key] = items
        surface["list_results"][method] = pages
    surface["tools_list_bytes"] = sum(
        len(json.dumps(p, separators=(",", ":"), ensure_ascii=False).encode())
        for p in surface["list_results"].get("tools/list", [])
    )
    return surface


def load_surface_file(path: str | Path) -> dict[str, Any]:
    """Read an offline dump: a collected surface, a tools/list result, or a bare list of tools."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, list):
        data = {"tools": data}
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        raise ValueError("expected a tools/list result, a list of tools, or a collected surface")
    if "era" in data and "list_results" in data:
        return data
    tools = data["tools"]
    return {
        "protocol_version": None,
        "era": "offline",
        "server": data.get("server", {}),
        "capabilities": data.get("capabilities", {}),
        "instructions": data.get("instructions"),
        "discover": data.get("discover"),
        "tools": tools,
        "resources": data.get("resources", []),
        "resource_templates": data.get("resource_templates", data.get("resourceTemplates", [])),
        "prompts": data.get("prompts", []),
        "list_results": {"tools/list": [{"tools": tools}]},
        "unsupported": {},
        "tools_list_bytes": len(
            json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False).encode()
        ),
    }
