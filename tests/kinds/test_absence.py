"""absence: a placeholder is known by its folded spelling; the short-circuit that lets a spelling
with digits ("$42", "42 Kč") skip the folding never changes what is a placeholder."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.kinds import absence
from drivable.kinds.text_folding import caseless


def folded_placeholder(value: str) -> str | None:
    """The definition without the short-circuit: fold, then look the spelling up."""
    folded = caseless(value)
    if folded in absence.PLACEHOLDERS:
        return folded or "empty string"
    template = re.compile(absence._TEMPLATE.pattern)
    if folded[:1] in "<{[$" and template.match(value.strip()):
        return folded
    return None


def test_no_placeholder_has_a_digit() -> None:
    assert not [p for p in absence.PLACEHOLDERS if re.search(r"\d", p)]


pieces = st.sampled_from(
    [*sorted(absence.PLACEHOLDERS), "<", ">", "{", "}", "{{", "}}", "[", "]", "$", "4", "42",
     "٤", "²", "２", "YYYY", "VALUE", " ", "\u00a0", "\t", "EUR", "Kč", ".", ","]
)  # fmt: skip


@settings(max_examples=500)
@given(st.lists(pieces, max_size=5).map("".join) | st.text(max_size=12))
@example("<42>")
@example("{2026}")
@example(" [1] ")
@example("$AMOUNT")
@example("$42")
@example("42 Kč")
@example("")
def test_the_short_circuit_changes_no_answer(value: str) -> None:
    assert absence.placeholder_of(value) == folded_placeholder(value), value


_LOCAL = st.from_regex(r"[a-z][a-z0-9._+-]{0,15}", fullmatch=True)
_HOST = st.from_regex(
    r"[a-z][a-z0-9-]{0,10}(\.[a-z][a-z0-9-]{0,10}){0,2}\.[a-z]{2,6}", fullmatch=True
)


@given(local=_LOCAL, host=_HOST)
def test_an_address_in_angle_brackets_is_a_value_and_a_named_template_is_not(
    local: str, host: str
) -> None:
    # RFC 5322 writes an address as <local@domain>; a template names a thing and holds no "@".
    assert absence.placeholder_of(f"<{local}@{host}>") is None
    assert absence.placeholder_of(f"<{local.replace('.', '_')}>") is not None
