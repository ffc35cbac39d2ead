"""`drivable wrap --suggest`: the config it writes loads back through `drivable.wrap.config` and
wraps the server exactly as no config does (the same tools, descriptions, input and output
schemas, annotations), on the test upstream, on generated listings and on third-party servers."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.target import Target
from drivable.wrap.build import Listing, contract_of
from drivable.wrap.config import WrapConfig, load, parse
from drivable.wrap.suggest import suggest, suggested
from tests.audit.audit_thirdparty import npm_server_command, python_server
from tests.audit.conftest import SERVERS
from tests.wrap.conftest import own_upstream, wrap_command
from tests.wrap.test_wrap_effects import HINTS
from tests.wrap.test_wrap_schema import object_schema

NOWHERE = Target(command=("true",))


def surface_of(contract: Contract) -> dict[str, Any]:
    return {
        name: {
            "description": spec.description,
            "input": spec.input_schema,
            "output": spec.output_schema,
            "annotations": spec.effects.annotations(),
            "title": spec.title,
        }
        for name, spec in contract.tools.items()
    }


def same_surface(listing: Listing, config: WrapConfig) -> None:
    assert surface_of(contract_of(listing, config, NOWHERE)) == surface_of(
        contract_of(listing, WrapConfig(), NOWHERE)
    )


async def test_the_suggested_config_is_written_and_wraps_as_no_config_does(tmp_path: Path) -> None:
    out = tmp_path / "wrap.toml"
    command = wrap_command(own_upstream(), tmp_path)
    run = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [*command[:4], "--suggest", "--out", str(out), *command[4:]],
            capture_output=True,
            text=True,
            timeout=120,
        )
    )
    assert run.returncode == 0, run.stderr
    listing, text = await suggest(Target(command=tuple(own_upstream())))
    assert out.read_text(encoding="utf-8") == text
    config = load(out)
    same_surface(listing, config)
    # what it spells out: the effects inferred, the kinds bound by name
    assert config.tool("delete_note").effects == {
        "read_only": False,
        "destructive": True,
        "idempotent": True,
    }
    assert config.tool("set_age").effects == {
        "read_only": False,
        "destructive": False,
        "idempotent": False,
    }
    assert config.tool("delete_note").kinds == {"note_id": "id"}


TOOL_NAMES = st.from_regex(r"[a-z]{2,6}([_-][a-z]{2,6}|[A-Z][a-z]{2,5})?", fullmatch=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(TOOL_NAMES, object_schema(), st.none() | HINTS, st.text(max_size=60)),
        min_size=1,
        max_size=4,
        unique_by=lambda t: t[0],
    )
)
def test_every_suggested_config_wraps_as_no_config_does(tools: list[Any]) -> None:
    listing = Listing("gen", "1", None, [])
    for name, (schema, _), hints, description in tools:
        tool: dict[str, Any] = {"name": name, "inputSchema": schema, "description": description}
        if hints is not None:
            tool["annotations"] = hints
        listing.tools.append(tool)
    from drivable.audit.model import Finding

    # every tool's description flagged: each is written back
    flagged = [
        Finding("3.descriptions", "major", f"tool:{t['name']}", "Flagged.", None, "")
        for t in listing.tools
    ]
    same_surface(listing, parse(__import__("tomllib").loads(suggested(listing, flagged))))


@pytest.mark.thirdparty
@pytest.mark.parametrize("server", ["memory", "filesystem", "everything", "fastmcp"])
async def test_third_party_servers(server: str, tmp_path: Path) -> None:
    if server == "fastmcp":
        command = [
            str(python_server("fastmcp") / "bin" / "python"),
            str(SERVERS / "fastmcp_notes.py"),
        ]
    else:
        command = npm_server_command(server) + ([str(tmp_path)] if server == "filesystem" else [])
    listing, text = await suggest(Target(command=tuple(command)))
    path = tmp_path / "wrap.toml"
    path.write_text(text, encoding="utf-8")
    same_surface(listing, load(path))
