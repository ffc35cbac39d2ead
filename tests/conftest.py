"""Shared pytest set-up for the whole suite."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

# No test asserts a time: hypothesis's per-example deadline (200 ms) is one. A machine loaded by
# other work (a model eval beside the suite) failed six property tests of the kinds on it alone
# (405 ms for one reading). Speed is measured in benchmarks/, as ratios within one run.
settings.register_profile("drivable", deadline=None)
settings.load_profile("drivable")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`@pytest.mark.slow` is the long-running tier: skipped unless DRIVABLE_SLOW=1."""
    if os.environ.get("DRIVABLE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow tier: set DRIVABLE_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _example_notes_restored() -> Iterator[None]:
    """The example server runs in process for many modules of a worker, and a note it deleted
    is gone from every read: each test finds all thirty notes again."""
    yield
    from tests.contract import example_server

    example_server.DELETED.clear()
