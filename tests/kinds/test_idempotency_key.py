"""idempotency_key: any key of the allowed characters is read as it is; placeholders and other
characters are refused with a fresh key to copy. From the trace: the model sent "abc123" nine
times and was refused nine times for its length, which no retry can fix by itself."""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.kinds import Intent, read
from drivable.kinds.absence import PLACEHOLDERS

ALLOWED = string.ascii_letters + string.digits + "_.:-"
keys = st.builds(
    lambda head, tail: head + tail,
    st.sampled_from(string.ascii_letters + string.digits),
    st.text(alphabet=ALLOWED, max_size=127),
)
_FRESH = re.compile(r"for example '([0-9a-f-]{36})'")


@given(key=keys, intent=st.sampled_from(["read", "write"]))
def test_every_key_of_the_allowed_characters_is_read_as_it_is(key: str, intent: Intent) -> None:
    reading = read("idempotency_key", key, intent=intent)
    if key.casefold() in {"uuid", "guid", "key", "random"}:
        assert reading.outcome == "invalid"
        return
    assert reading.outcome == "value" and reading.value == key
    # a short key works, and says it is easily reused by mistake
    assert bool(reading.notes) == (len(key) < 8)


@given(key=keys, pad=st.sampled_from([" ", "  ", "\t", "\n"]))
def test_surrounding_space_is_dropped_with_a_note(key: str, pad: str) -> None:
    reading = read("idempotency_key", pad + key + pad, intent="write")
    if reading.outcome == "value":
        assert reading.value == key and "Read " in reading.notes[0]


def _refused_with_a_fresh_key(value: object) -> None:
    reading = read("idempotency_key", value, intent="write")
    assert reading.outcome == "invalid" and reading.code == "invalid_key"
    fresh = _FRESH.search(reading.hint or "")
    assert fresh is not None, reading.hint
    again = read("idempotency_key", fresh.group(1), intent="write")
    assert again.outcome == "value" and again.value == fresh.group(1) and not again.notes


@settings(max_examples=60)
@given(
    placeholder=st.one_of(
        st.sampled_from(sorted(p for p in PLACEHOLDERS if p)),
        st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=30).map(
            lambda t: f"<{t}>"
        ),
        st.sampled_from(["uuid", "UUID", "key", "{idempotency_key}", "$KEY"]),
    )
)
def test_a_placeholder_is_refused_with_a_fresh_key_never_read_as_one(placeholder: str) -> None:
    # read as a key, one copied placeholder would be every caller's key
    _refused_with_a_fresh_key(placeholder)


@given(
    key=keys,
    bad=st.characters(
        blacklist_characters=ALLOWED, blacklist_categories=["Cs"], min_codepoint=0
    ).filter(lambda c: not c.isspace()),
    at=st.integers(min_value=0, max_value=200),
)
def test_other_characters_are_refused_with_a_fresh_key(key: str, bad: str, at: int) -> None:
    at = min(at, len(key))
    _refused_with_a_fresh_key(key[:at] + bad + key[at:])


@given(st.one_of(st.floats(), st.booleans(), st.lists(st.integers(), max_size=2)))
def test_a_value_that_is_no_string_is_refused(value: object) -> None:
    _refused_with_a_fresh_key(value)
