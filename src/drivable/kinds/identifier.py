"""identifier: a server's own opaque ids with a fixed prefix ("inv_2231", "cus_8f3a").

Case and surrounding spaces are repaired; a missing or wrong-case prefix is repaired when the rest
is unmistakable, when it has a digit ("2231" with prefix "inv_" reads as "inv_2231"; "Wilson" is a
name and refused). A placeholder carries no information of its own: a template word ("inv_xxx",
"inv_example", "inv_id") or a reference to a value ("invoice_id_from_find_invoices"). An id with
a counter is an id ("inv_123", "123", "inv_0001"): a server whose ids count up issues exactly
those, and one that does not answers not_found, which names the lookup.

`lookup=(tool, parameter)` names the tool that lists these ids and the parameter that finds one by
a name (or None): a name sent where the id goes ("Wilson Trading" as customer_id) is refused with
that call as the repair (`drivable.contract.stages.reading`). No text of this kind shows an id,
not even an example: a model sent the 'cus_2231' an error had shown it as a real customer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading
from drivable.kinds._registry import Options, kind

_BODY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_EXAMPLE_BODIES = frozenset({"xxx", "xxxx", "example", "id", "abc"})
_DIGIT = re.compile(r"[0-9]")
# Words of a reference to a value, not a value: "customer_id_from_list_customers", "invoice_id".
_REFERENCE_WORDS = frozenset({"id", "ids", "from", "the", "your", "cursor", "value", "returned"})


def _example_body(body: str) -> bool:
    """`body` is a template word a model writes, not an id (`_EXAMPLE_BODIES`). Digits are
    never an example: "room_123" had read as no value, so get_room answered "'room_id' is
    required" to a server whose ids count up (docs/decisions/0013-placeholders-carry-no-information.md)."""
    return body.lower() in _EXAMPLE_BODIES


def _names_a_value(body: str, prefixed: bool) -> bool:
    """`body` spells where a value would come from ("customer_id_from_list_customers"; after
    the prefix, "cus_" + "id_from_list_customers")."""
    words = re.split(r"[_-]+", body.lower())
    if len(words) < 2 or _DIGIT.search(body):
        return False
    return words[0] in ("id", "ids") if prefixed else not _REFERENCE_WORDS.isdisjoint(words)


def _prefix(options: Options) -> str:
    return str(options.extra.get("prefix", ""))


def _schema(options: Options) -> dict[str, Any]:
    prefix = _prefix(options)
    return {
        "type": "string",
        "pattern": f"^{re.escape(prefix)}[A-Za-z0-9][A-Za-z0-9_-]{{0,63}}$",
        "description": f"An id as the server issues it, starting with '{prefix}'.",
    }


def lookup_of(options: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """The tool that lists these ids and its parameter that finds one by name, when declared in
    an identifier's options (`Kind.options`, or `Options.extra` inside the reader)."""
    found = options.get("lookup")
    if found is None:
        return None
    tool, parameter = found
    return str(tool), None if parameter is None else str(parameter)


@kind("identifier", schema=_schema, expected="an id as the server issues it")
def read_identifier(value: Any, options: Options) -> Reading:
    prefix = _prefix(options)
    lookup = lookup_of(options.extra)
    source = f"as {lookup[0]} returns it" if lookup else "as a search or list tool returned it"
    expected = f"an id starting with '{prefix}', {source}"
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return Reading.invalid(
            value, expected=expected, hint="Send the id as a string.", code="invalid_id"
        )
    text = value.strip()
    body = text
    prefixed = bool(prefix) and text.lower().startswith(prefix.lower())
    if prefixed:
        body = text[len(prefix) :]
    if not _BODY.match(body):
        return Reading.invalid(
            value,
            expected=expected,
            hint=f"Send the id exactly {source} ('{prefix}' followed by letters and digits).",
            code="invalid_id",
        )
    if _example_body(body) or _names_a_value(body, prefixed):
        return absence.reading_for(value, options.intent, expected) if value else Reading.absent()
    if prefix and not prefixed and not _DIGIT.search(body):
        # "Wilson" is a name, not an id missing its prefix: only digits make that unmistakable
        return Reading.invalid(
            value,
            expected=expected,
            hint=f"That is a name, not an id: send the id exactly {source} ('{prefix}' "
            "followed by letters and digits).",
            code="invalid_id",
        )
    canonical = prefix + body
    return Reading.repaired(value, canonical)


class Id(Kind):
    """The shared id kind as field metadata, for ids with `prefix`:
    `booking_id: Annotated[str, Id("bk_")]`. `lookup` names the tool that lists them and its
    parameter that finds one by a name (or None)."""

    __slots__ = ()

    def __init__(self, prefix: str, lookup: tuple[str, str | None] | None = None) -> None:
        if lookup is None:
            super().__init__("identifier", prefix=prefix)
        else:
            super().__init__("identifier", prefix=prefix, lookup=lookup)


def IdOf(prefix: str, lookup: tuple[str, str | None] | None = None) -> Any:
    """The shared id type for ids with `prefix`, as a type built by a call:
    `invoice_id: IdOf("inv_")`. A type checker cannot follow a call in an annotation: declare
    `Annotated[str, Id("inv_")]` (or a name for it) instead."""
    return Annotated[str, Id(prefix, lookup)]
