from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _quiet_servers() -> None:
    # in-process servers log the tracebacks of their own failing tools; the eval reads the results
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "thirdparty: runs real third-party servers installed into var/thirdparty "
        "(skip with -m 'not thirdparty')",
    )
