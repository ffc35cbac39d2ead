from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
for extra in (HERE, HERE.parent / "contract"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


@pytest.fixture(autouse=True)
def _quiet_servers() -> None:
    # in-process servers log the tracebacks of their own failing tools; the eval reads the results
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
