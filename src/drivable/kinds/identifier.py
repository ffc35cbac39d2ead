"""identifier: a server's own opaque ids with a fixed prefix ("inv_2231", "cus_8f3a").

Case and surrounding spaces are repaired; a missing or wrong-case prefix is repaired when the rest
is unmistakable ("2231" with prefix "inv_" reads as "inv_2231"); the example ids a model copies
from descriptions ("inv_123", "inv_xxx", "inv_example") are placeholders.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading
from drivable.kinds._registry import Options, kind

_BODY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_EXAMPLE_BODIES = frozenset({"123", "1234", "12345", "xxx", "xxxx", "example", "id", "abc", "000"})


def _prefix(options: Options) -> str:
    return str(options.extra.get("prefix", ""))


def _schema(options: Options) -> dict[str, Any]:
    prefix = _prefix(options)
    return {
        "type": "string",
        "pattern": f"^{re.escape(prefix)}[A-Za-z0-9][A-Za-z0-9_-]{{0,63}}$",
        "description": f"An id as the server issues it, e.g. '{prefix}2231'.",
    }


@kind("identifier", schema=_schema, expected="an id as the server issues it")
def read_identifier(value: Any, options: Options) -> Reading:
    prefix = _prefix(options)
    expected = f"an id like '{prefix}2231'"
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return Reading.invalid(
            value, expected=expected, hint="Send the id as a string.", code="invalid_id"
        )
    text = value.strip()
    body = text
    if prefix and text.lower().startswith(prefix.lower()):
        body = text[len(prefix) :]
    if not _BODY.match(body):
        return Reading.invalid(
            value,
            expected=expected,
            hint=f"Send the id exactly as a search or list tool returned it ('{prefix}' followed by letters and digits).",
            code="invalid_id",
        )
    if body.lower() in _EXAMPLE_BODIES:
        return absence.reading_for(value, options.intent, expected) if value else Reading.absent()
    canonical = prefix + body
    return Reading.repaired(value, canonical)


def IdOf(prefix: str) -> Any:
    """The shared id type for ids with `prefix`: `invoice_id: IdOf("inv_")`."""
    return Annotated[str, Kind("identifier", prefix=prefix)]
