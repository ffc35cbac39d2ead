"""Strategies the kinds' property tests share: anything a client can send, and worse."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid

from hypothesis import strategies as st

OUTCOMES = {"value", "absent", "ask", "invalid"}

# Every JSON value, nested a little.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)

# What no client sends but a caller in Python might: objects of every builtin kind.
python_junk = st.one_of(
    st.binary(max_size=20),
    st.dates(),
    st.datetimes(),
    st.datetimes(timezones=st.timezones()),
    st.times(),
    st.timedeltas(),
    st.decimals(allow_nan=True),
    st.fractions(),
    st.complex_numbers(),
    st.uuids(),
    st.sets(st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=5)),
    st.builds(object),
    st.just(decimal.Decimal("NaN")),
    st.just(uuid.UUID(int=0)),
    st.just(dt.time.max),
)

# Text shaped like times and moments, so the parsers' deeper branches are reached.
timelike = st.from_regex(
    r"[0-9 :.,/+\-TZhapmAPM]{0,20}( ?(CET|CEST|EST|IST|UTC|Europe/Prague|noon|midnight))?",
    fullmatch=True,
)

anything = st.text(max_size=60) | timelike | json_values | python_junk
