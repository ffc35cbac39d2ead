"""Shared pytest set-up for the whole suite."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`@pytest.mark.slow` is the long-running tier: skipped unless DRIVABLE_SLOW=1."""
    if os.environ.get("DRIVABLE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow tier: set DRIVABLE_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
