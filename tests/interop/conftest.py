"""Session fixtures for the interop tests: Node 22 and the npm clients (scripts/ensure-node.sh), the
Python SDK 1.x venv, both reference servers' data and HTTP endpoints, and every client's run of
every plan, all made once per session, side by side, and kept."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.interop.fixtures import Installed, installed, node_bin
from tests.interop.interop import (
    Key,
    Place,
    Run,
    all_keys,
    drive_all,
    open_place,
)


@pytest.fixture(scope="session")
def place(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """Both reference servers: HTTP endpoints for the session, stdio commands on the same data."""
    root = tmp_path_factory.mktemp("interop")
    with open_place(root, installed.node_bin, installed.mcp1_python) as opened:
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
def run_of(runs: dict[Key, Run | Exception]) -> Callable[[str, str, str], Run]:
    def get(client: str, transport: str, server: str) -> Run:
        found = runs[(client, transport, server)]
        if isinstance(found, Exception):
            raise found
        return found

    return get


__all__ = ["installed", "node_bin", "place", "run_of", "runs"]
