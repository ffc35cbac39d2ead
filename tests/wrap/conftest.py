"""The wrapper on the wire: `drivable wrap -- CMD` run as a real process, reached by a real SDK
client over stdio, in front of a real upstream process."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from drivable.contract import envelope_of
from drivable.target import Target, connect
from tests.cli import CLI

HERE = Path(__file__).resolve().parent
UPSTREAM = HERE / "upstream_server.py"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "thirdparty: audits real third-party servers installed into var/thirdparty "
        "(skip with -m 'not thirdparty')",
    )


def wrap_command(
    upstream: Sequence[str], tmp: Path, *, env: dict[str, str] | None = None, config: str = ""
) -> tuple[str, ...]:
    """`drivable wrap` in front of `upstream`, its receipts in a store of the test's own."""
    options = ["--store", f"sqlite:///{tmp / 'effects.sqlite'}"]
    for key, value in (env or {}).items():
        options += ["--env", f"{key}={value}"]
    if config:
        path = tmp / "wrap.toml"
        path.write_text(config, encoding="utf-8")
        options += ["--config", str(path)]
    return (*CLI, "wrap", *options, "--", *upstream)


@asynccontextmanager
async def wrapped(
    upstream: Sequence[str],
    tmp: Path,
    *,
    env: dict[str, str] | None = None,
    config: str = "",
    elicitation_callback: Any = None,
) -> AsyncIterator[Client]:
    target = Target(command=wrap_command(upstream, tmp, env=env, config=config), cwd=str(tmp))
    async with connect(
        target, read_timeout_seconds=60, elicitation_callback=elicitation_callback
    ) as client:
        yield client


def own_upstream() -> list[str]:
    return [sys.executable, str(UPSTREAM)]


def calls_logged(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert result.structured_content is not None
    return dict(result.structured_content)


async def refused(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result
    envelope = envelope_of(result)
    assert envelope is not None
    return dict(envelope)


def closed_everywhere(schema: Any) -> bool:
    """Every object of a JSON schema is closed (additionalProperties false)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
            return False
        return all(closed_everywhere(v) for v in schema.values())
    if isinstance(schema, list):
        return all(closed_everywhere(v) for v in schema)
    return True
