"""identifier: ids read exactly, repaired only when unmistakable, and no text of the kind shows an id.

The small real model copied the example id an error showed it ('cus_2231') into its next call as if
it were a real customer, so neither the schema nor a refusal names any id, only the prefix and, when
the kind declares one, the tool that returns the ids.
"""

from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import Kind, read
from drivable.kinds._registry import KINDS, make_options
from drivable.kinds.absence import placeholder_of
from drivable.kinds.identifier import lookup_of

PREFIXES = st.sampled_from(["inv_", "cus_", "dec_", "n-", "ECLI"])
BODY = st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=1).flatmap(
    lambda first: st.text(alphabet=string.ascii_letters + string.digits + "_-", max_size=20).map(
        lambda rest: first + rest
    )
)
WORDS = {"xxx", "xxxx", "example", "id", "abc"}


def is_placeholder(body: str) -> bool:
    """The bodies the identifier reads as no value: template words (never digits)."""
    return body.lower() in WORDS


TOOLS = st.sampled_from([("list_customers", "query"), ("find_invoices", None)])


def shows_an_id(text: str, prefix: str) -> bool:
    return re.search(re.escape(prefix) + r"[A-Za-z0-9]", text) is not None


@given(prefix=PREFIXES, body=BODY)
def test_an_id_as_issued_reads_as_itself(prefix: str, body: str) -> None:
    reading = read("identifier", prefix + body, prefix=prefix)
    if is_placeholder(body):
        assert reading.outcome == "absent"
    else:
        assert reading.outcome == "value" and reading.value == prefix + body


@given(prefix=PREFIXES, body=BODY, pad=st.sampled_from(["", " ", "\t"]))
def test_a_missing_or_wrong_case_prefix_is_repaired_with_a_note(
    prefix: str, body: str, pad: str
) -> None:
    sent = pad + prefix.swapcase() + body + pad
    reading = read("identifier", sent, prefix=prefix)
    if not is_placeholder(body):
        assert reading.value == prefix + body
        assert reading.notes or sent == prefix + body


@given(prefix=PREFIXES, sent=st.text(min_size=1, max_size=40), lookup=st.none() | TOOLS)
def test_no_refusal_shows_an_id_and_each_names_where_ids_come_from(
    prefix: str, sent: str, lookup: tuple[str, str | None] | None
) -> None:
    options = {"prefix": prefix} if lookup is None else {"prefix": prefix, "lookup": lookup}
    reading = read("identifier", sent, **options)
    if reading.outcome != "invalid":
        return
    assert reading.code == "invalid_id"
    for text in (reading.expected, reading.hint):
        assert not shows_an_id(text, prefix), text
        assert f"'{prefix}'" in text
    if lookup is not None:
        assert f"as {lookup[0]} returns it" in reading.expected


@given(prefix=PREFIXES)
def test_the_schema_shows_the_prefix_and_no_example_id(prefix: str) -> None:
    schema = KINDS["identifier"].schema(make_options(prefix=prefix))
    assert not shows_an_id(schema["description"], prefix)
    assert f"'{prefix}'" in schema["description"]
    assert re.fullmatch(schema["pattern"], prefix + "a1")


@given(lookup=TOOLS)
def test_a_declared_lookup_is_read_back_from_the_kind(lookup: tuple[str, str | None]) -> None:
    assert lookup_of(Kind("identifier", prefix="cus_", lookup=lookup).options) == lookup
    assert lookup_of(Kind("identifier", prefix="cus_").options) is None


@given(prefix=PREFIXES, word=st.text(alphabet=string.ascii_letters, min_size=1, max_size=20))
def test_a_word_without_its_prefix_is_a_name_not_an_id(prefix: str, word: str) -> None:
    if word.lower().startswith(prefix.lower()) or is_placeholder(word):
        return
    if placeholder_of(word) is not None:  # "none", "string": absence for every kind
        return
    reading = read("identifier", word, prefix=prefix)
    assert reading.outcome == "invalid" and reading.code == "invalid_id"


@given(
    prefix=PREFIXES,
    words=st.lists(
        st.sampled_from(["customer", "invoice", "list", "find", "customers"]), max_size=3
    ),
    reference=st.sampled_from(["id", "from", "the", "returned"]),
    intent=st.sampled_from(["read", "write"]),
)
def test_a_reference_to_a_value_is_a_placeholder(
    prefix: str, words: list[str], reference: str, intent: str
) -> None:
    sent = "_".join([*words, reference, "value"])  # "customer_id_value", "from_list_value"
    reading = read("identifier", sent, prefix=prefix, intent=intent)  # type: ignore[arg-type]
    assert reading.outcome == ("absent" if intent == "read" else "ask"), reading


@given(
    prefix=PREFIXES,
    run=st.sampled_from(["1234567890", "9876543210", "0000000000"]),
    n=st.integers(3, 10),
    prefixed=st.booleans(),
)
def test_a_counting_run_is_an_id(prefix: str, run: str, n: int, prefixed: bool) -> None:
    # "room_123" had read as no value, so a server whose ids count up could not be addressed
    # (docs/decisions/0013-placeholders-carry-no-information.md); an id that does not exist is
    # the handler's not_found, which names the lookup
    sent = (prefix if prefixed else "") + run[:n]
    assert read("identifier", sent, prefix=prefix).value == prefix + run[:n]
