"""email: every spelling of an address reads back to it, domain in lowercase, local part as sent;
what cannot be an address is refused with what is wrong. Nothing is looked up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.kinds import KINDS, KindModel, read, validate
from drivable.kinds._reading import shown
from drivable.kinds._registry import make_options
from tests.kinds.strategies import OUTCOMES, anything

ATEXT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-"
atoms = st.text(alphabet=ATEXT, min_size=1, max_size=10)
locals_ = st.lists(atoms, min_size=1, max_size=3).map(".".join).filter(lambda s: len(s) <= 64)
labels = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
domains = st.tuples(
    st.lists(labels, min_size=1, max_size=3), st.from_regex(r"[a-z]{2,6}", fullmatch=True)
).map(lambda parts: ".".join([*parts[0], parts[1]]))
addresses = st.builds(lambda local, domain: f"{local}@{domain}", locals_, domains)


def value_of(spelling: object) -> str:
    reading = read("email", spelling)
    assert reading.outcome == "value", (spelling, reading.to_dict())
    assert isinstance(reading.value, str)
    return reading.value


@given(addresses)
def test_an_address_reads_as_itself_without_a_note(address: str) -> None:
    reading = read("email", address)
    assert reading.outcome == "value" and reading.value == address and reading.notes == ()


@given(
    addresses,
    st.sampled_from(
        [
            "{a}",
            " {a} ",
            "<{a}>",
            "Jana Nováková <{a}>",
            '"Novák, Jan" <{a}>',
            "{a} (Jana)",
            "mailto:{a}",
            "MAILTO:{a}",
            "{l} @ {d}",
            "{l}@{D}",
            "{a}.",
            "\t{a}\n",
        ]
    ),
)
def test_every_spelling_reads_back_and_only_the_domain_is_lowercased(
    address: str, template: str
) -> None:
    local, _, domain = address.rpartition("@")
    text = template.format(a=address, l=local, d=domain, D=domain.upper())
    reading = read("email", text)
    assert reading.outcome == "value" and reading.value == address, (text, reading.to_dict())
    assert reading.value.rpartition("@")[0] == local  # the mailbox's own case, never changed
    if text != address:
        assert reading.notes[0].startswith(f"Read {shown(text)} as {address}")


@given(locals_, domains)
def test_the_local_part_keeps_its_case(local: str, domain: str) -> None:
    assert value_of(f"{local.upper()}@{domain.upper()}") == f"{local.upper()}@{domain}"


@given(st.text(max_size=40).filter(lambda s: "@" not in s and "＠" not in s and "﹫" not in s))
def test_text_without_an_at_is_never_an_address(text: str) -> None:
    assert read("email", text).outcome in ("absent", "invalid")


@given(addresses, addresses, st.sampled_from([", ", "; ", " ", ","]))
def test_several_addresses_are_refused_naming_it(a: str, b: str, joint: str) -> None:
    reading = read("email", f"{a}{joint}{b}")
    assert reading.outcome == "invalid" and reading.code == "invalid_email"
    assert "more than one address" in reading.hint


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("jana", "no @"),
        ("jana@@firma.cz", "more than one @"),
        ("jana@localhost", "no dot"),
        (".jana@firma.cz", "before the @"),
        ("jana..novak@firma.cz", "before the @"),
        ("jana@firma..cz", "empty label"),
        ("jana@-firma.cz", "domain"),
        ("jana@firma.123", "ends in a number"),
        ("jana novak@firma.cz", "a space inside"),
        ("@firma.cz", "nothing comes before"),
        ("jana@", "no domain"),
        ("a" * 65 + "@firma.cz", "64 bytes"),
        ("a@[999.1.1.1]", "no IP address"),
    ],
)
def test_refusals_say_what_is_wrong(text: str, why: str) -> None:
    reading = read("email", text)
    assert reading.outcome == "invalid" and reading.code == "invalid_email", reading.to_dict()
    assert why in reading.hint


@pytest.mark.parametrize(
    "text", ["jiří@příklad.cz", '"john doe"@firma.cz', "a@[192.168.0.1]", "x+tag@sub.firma.co.uk"]
)
def test_addresses_beyond_the_common_form_are_read_as_written(text: str) -> None:
    assert value_of(text) == text


@pytest.mark.parametrize("text", ["", "n/a", "<email>", "string", "{email}"])
def test_placeholders_are_absent_on_read_and_asked_on_write(text: str) -> None:
    assert read("email", text).outcome == "absent"
    assert read("email", text, intent="write").outcome == "ask"


@settings(max_examples=500)  # the parsers' branches are many: more draws of junk
@given(anything)
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    for options in ({}, {"intent": "write"}):
        reading = KINDS["email"].reader(value, make_options(**options))
        assert reading.outcome in OUTCOMES
        reading.to_dict()


class Contact(KindModel):
    email: str
    billing_email: str | None = None
    email_count: int = 0


def test_an_address_field_binds_by_name_on_a_str() -> None:
    got = validate(Contact, {"email": "Jana <jana@FIRMA.cz>", "billing_email": " ucto@Firma.cz "})
    assert (got.value.email, got.value.billing_email) == ("jana@firma.cz", "ucto@firma.cz")
    assert Contact.model_json_schema()["properties"]["email"]["format"] == "email"
    assert "examples" not in Contact.model_json_schema()["properties"]["email"]
