"""Session fixtures shared by the interop and conformance tests (imported into their modules)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.interop.interop import ToolMissing, ensure_mcp1, ensure_node


@dataclass(frozen=True)
class Installed:
    node_bin: Path
    mcp1_python: Path | None  # None: the Python SDK 1.x could not be installed (its tests fail)
    mcp1_error: str = ""


@pytest.fixture(scope="session")
def installed() -> Installed:
    """Node 22 with the pinned npm packages (scripts/ensure-node.sh, cached under var/node) and the
    Python SDK 1.x venv (var/thirdparty), installed side by side on a fresh machine;
    DRIVABLE_NODE=skip skips what needs them."""
    if os.environ.get("DRIVABLE_NODE") == "skip":
        pytest.skip("DRIVABLE_NODE=skip")
    with ThreadPoolExecutor(max_workers=2) as pool:
        node = pool.submit(ensure_node)
        mcp1 = pool.submit(ensure_mcp1)
        try:
            node_bin = node.result()
        except ToolMissing as exc:
            pytest.fail(str(exc))
        try:
            return Installed(node_bin, mcp1.result())
        except ToolMissing as exc:
            return Installed(node_bin, None, str(exc))


@pytest.fixture(scope="session")
def node_bin(installed: Installed) -> Path:
    return installed.node_bin
