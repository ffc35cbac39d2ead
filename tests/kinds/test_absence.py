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
