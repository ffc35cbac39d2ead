"""Session fixtures for the interop tests: Node 22 and the npm clients (scripts/ensure-node.sh), the
Python SDK 1.x venv, both reference servers' data and HTTP endpoints, and every client's run of
every plan, all made once per session, side by side, and kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.fixtures import node_bin
from tests.interop.interop import (
    Key,
    Place,
    Run,
    ToolMissing,
    all_keys,
    drive_all,
    ensure_mcp1,
    open_place,
)


@pytest.fixture(scope="session")
def place(node_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """Both reference servers: HTTP endpoints for the session, stdio commands on the same data."""
    try:
        mcp1: Path | None = ensure_mcp1()
    except ToolMissing:
        mcp1 = None  # the py1 runs fail with the reason; the rest still run
    with open_place(tmp_path_factory.mktemp("interop"), node_bin, mcp1) as opened:
        yield opened


@pytest.fixture(scope="session")
def runs(request: pytest.FixtureRequest, place: Place) -> dict[Key, Run | Exception]:
    """The (client, transport, server) runs the selected tests ask for, the Inspector's included,
    all made on first use."""
    wanted = set()
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "transport" in params and "server" in params:
            client = params.get("client", "inspector")
            wanted.add((client, params["transport"], params["server"]))
    return drive_all(place, [k for k in all_keys() if k in wanted])


@pytest.fixture
def run_of(runs: dict[Key, Run | Exception]):  # type: ignore[no-untyped-def]
    def get(client: str, transport: str, server: str) -> Run:
        found = runs[(client, transport, server)]
        if isinstance(found, Exception):
            raise found
        return found

    return get


__all__ = ["node_bin", "place", "run_of", "runs"]
