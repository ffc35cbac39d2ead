"""A key that names another change: the repair's key is the change's own (decision 0025)."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.contract.durable import key_of_change
from drivable.effects.canonical import arguments_digest
from drivable.kinds import read

KEYS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{7,127}", fullmatch=True)
VALUES = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
ARGUMENTS = st.dictionaries(st.text(min_size=1, max_size=10), VALUES, max_size=5)


@given(key=KEYS, first=ARGUMENTS, second=ARGUMENTS)
def test_each_change_derives_its_own_key_and_a_retry_the_same(
    key: str, first: dict[str, Any], second: dict[str, Any]
) -> None:
    assume(read("idempotency_key", key).value == key)  # a key a call could have sent
    own = key_of_change(key, arguments_digest(first))
    assert own == key_of_change(key, arguments_digest(dict(reversed(list(first.items())))))
    assert own != key  # never the key of the change it collided with
    assert read("idempotency_key", own).value == own  # a key the kind reads as it is
    assume(arguments_digest(first) != arguments_digest(second))
    assert own != key_of_change(key, arguments_digest(second))
