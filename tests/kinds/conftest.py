"""Kinds tests: the CLDR indexes the kinds build on first use are built before any test runs.

Building one (every locale's names, every territory's currency symbols) takes up to a second, once
per process; a property test that happened to draw the first value would spend it inside one
example and trip hypothesis' per-example deadline, which measures the machine, not the kind.
"""

from __future__ import annotations

import datetime

import pytest

from drivable.kinds import read

WARM = [
    ("locale", "čeština"),
    ("country", "Czechia"),
    ("date", "1. října 2026"),
    ("vocabulary", "x"),
    ("time", "9:00 CET"),  # CLDR's zone abbreviations and am/pm
    ("datetime", "2026-10-01 14:00 CET"),
]


@pytest.fixture(autouse=True, scope="session")
def _cldr_indexes() -> None:
    for kind, value in WARM:
        read(kind, value)
    read("money", "$1", currency="USD")
    read("date", "next Monday", clock=lambda: datetime.date(2026, 1, 1))  # CLDR's weekdays
