"""A placeholder carries no information of its own; an id that counts is an id
(docs/kinds.md, "Ids").

Over generated realistic ids (a prefix, a separator and digits; plain digits; uuids other than the
nil and max ids and the documented examples): never read as absent nor asked about as a
placeholder. Over template tokens ("<id>", "{room_id}", "string", "xxx", the property's own name,
the nil uuid, a documented example): always a placeholder.
"""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import Intent, read
from drivable.kinds.uuid import EXAMPLE_IDS

PREFIXES = ["room_", "inv_", "cus_", "ord-", "bk_", ""]


@st.composite
def counting_ids(draw: st.DrawFn) -> tuple[str, str]:
    """(prefix, id): "room_123", "inv_0001", "42", "cus_1", as servers whose ids count issue them."""
    prefix = draw(st.sampled_from(PREFIXES))
    counters = st.integers(1, 10**6).map(str) | st.sampled_from(["123", "0001", "123456789"])
    digits = draw(counters.map(lambda d: d.zfill(draw(st.integers(len(d), len(d) + 3)))))
    sent = draw(st.sampled_from([prefix + digits, digits]))
    return prefix, sent


@given(counting_ids(), st.sampled_from(["read", "write"]))
def test_an_id_with_a_counter_is_never_a_placeholder(case: tuple[str, str], intent: Intent) -> None:
    prefix, sent = case
    reading = read("identifier", sent, prefix=prefix, intent=intent)
    assert reading.outcome == "value", (sent, reading)
    assert reading.value == (sent if sent.startswith(prefix) else prefix + sent)


# random ids, and the small counters seeded databases issue ("00000000-...-000000000001")
real_uuids = (st.uuids() | st.integers(1, 2**20).map(lambda n: uuid.UUID(int=n))).filter(
    lambda u: u.int not in {0, (1 << 128) - 1} | EXAMPLE_IDS
)


@given(real_uuids, st.sampled_from(["read", "write"]), st.booleans())
def test_a_uuid_other_than_nil_max_or_an_example_is_an_id(
    value: uuid.UUID, intent: Intent, hex_only: bool
) -> None:
    sent = value.hex if hex_only else str(value)
    reading = read("uuid", sent, intent=intent)
    assert (reading.outcome, reading.value) == ("value", value), (sent, reading)


def test_small_counters_are_ids() -> None:
    for number in (1, 2, 42, 1000, 65535):
        sent = str(uuid.UUID(int=number))
        assert read("uuid", sent).outcome == "value", sent


TEMPLATES = ["<id>", "<room_id>", "{room_id}", "{{room_id}}", "[id]", "$ROOM_ID", "string",
             "example", "xxx", "...", "TODO", "room_xxx", "room_example", "room_id",
             "room_id_from_find_rooms"]  # fmt: skip


@given(st.sampled_from(TEMPLATES))
def test_a_template_token_is_a_placeholder(sent: str) -> None:
    assert read("identifier", sent, prefix="room_").outcome == "absent", sent
    asked = read("identifier", sent, prefix="room_", intent="write")
    assert (asked.outcome, asked.code) == ("ask", "placeholder_value"), sent


@given(st.sampled_from([0, (1 << 128) - 1, *sorted(EXAMPLE_IDS)]))
def test_the_nil_max_and_example_uuids_are_placeholders(number: int) -> None:
    assert read("uuid", str(uuid.UUID(int=number))).outcome == "absent"
