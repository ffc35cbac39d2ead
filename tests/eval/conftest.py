from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _quiet_servers() -> None:
    # in-process servers log the tracebacks of their own failing tools; the eval reads the results
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
