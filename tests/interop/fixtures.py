"""Session fixtures shared by the interop and conformance tests (imported into their modules)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.interop.interop import ToolMissing, ensure_node


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """Node 22 with the pinned npm packages (scripts/ensure-node.sh, cached under var/node);
    DRIVABLE_NODE=skip skips what needs them."""
    if os.environ.get("DRIVABLE_NODE") == "skip":
        pytest.skip("DRIVABLE_NODE=skip")
    try:
        return ensure_node()
    except ToolMissing as exc:
        pytest.fail(str(exc))
