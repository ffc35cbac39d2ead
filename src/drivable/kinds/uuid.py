"""uuid: an id, read through case, braces, "urn:uuid:", missing hyphens and spaces.

Sent back in the canonical form: lowercase, hyphenated (8-4-4-4-12). A placeholder is an id that
carries no information of its own: the nil id (all zeros), the max id (all f) and the example ids
of documentation, which a model copied: absence on a read, a question on a write. Any other id is
an id, a small counter ("…0001", which seeded databases issue) included.
"""

from __future__ import annotations

import re
import uuid as _uuid
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind

# The example we advertise is itself a placeholder: a model that copies it has no id yet.
EXAMPLE = "3f2c6a1e-8b4d-4c2a-9e51-0d7b6f1a2c3e"
EXPECTED = f"a UUID: 8-4-4-4-12 hex digits, e.g. {EXAMPLE}"

# Ids copied from documentation, RFC examples and tutorials: never a real record.
EXAMPLE_IDS: frozenset[int] = frozenset(
    _uuid.UUID(text).int
    for text in (
        "123e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-426655440000",
        "550e8400-e29b-41d4-a716-446655440000",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
        "f47ac10b-58cc-4372-a567-0e02b2c3d479",
        "12345678-1234-1234-1234-123456789012",
        "12345678-1234-1234-1234-123456789abc",
        "12345678-1234-5678-1234-567812345678",
        "12345678-90ab-cdef-1234-567890abcdef",
        "01234567-89ab-cdef-0123-456789abcdef",
        "abcdef12-3456-7890-abcd-ef1234567890",
        "a1b2c3d4-e5f6-7890-abcd-ef1234567890",
        "a1b2c3d4-e5f6-a1b2-c3d4-e5f6a1b2c3d4",
        "deadbeef-dead-beef-dead-beefdeadbeef",
        EXAMPLE,
    )
)
# RFC 9562's two special ids: the nil id and the max id.
_NIL, _MAX = 0, (1 << 128) - 1

_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "format": "uuid",
        "description": "An id as returned by this server (a UUID, lowercase, hyphenated).",
        "examples": [EXAMPLE],
    }


def is_placeholder(value: _uuid.UUID) -> bool:
    """True for ids that carry no information of their own: nil, max, documentation examples."""
    number = value.int
    return number in (_NIL, _MAX) or number in EXAMPLE_IDS


def _canonical(value: Any, options: Options) -> Any:
    """The seam's fast path: a canonical lowercase hyphenated id that is no placeholder."""
    if type(value) is str and len(value) == 36 and _CANONICAL.match(value):
        read = _uuid.UUID(value)
        if not is_placeholder(read):
            return read
    return NOT_CANONICAL


# Braces ("{...}") look like a template to the shared placeholder check, so this reader runs it.
@kind("uuid", schema=_schema, expected=EXPECTED, handles_placeholders=True, canonical=_canonical)
def read_uuid(value: Any, options: Options) -> Reading:
    if isinstance(value, _uuid.UUID):
        return _checked(value, value, options)
    if not isinstance(value, str):
        return _invalid(
            value, "Send the id as a JSON string, e.g. as a list or search tool returned it."
        )
    # Fast path: the canonical spelling.
    if len(value) == 36 and _CANONICAL.match(value):
        read = _uuid.UUID(value)
        if is_placeholder(read):
            return absence.reading_for(value, options.intent, EXPECTED)
        return Reading.of(read)
    text = value.strip().strip("\"'").strip()
    lowered = text.lower()
    if lowered.startswith("urn:uuid:"):
        text = text[9:].strip()
    if text[:1] in "{(" and text[-1:] in "})":
        text = text[1:-1].strip()
    digits = text.replace("-", "").lower()
    if not _HEX32.match(digits):
        if absence.placeholder_of(value) is not None:
            return absence.reading_for(value, options.intent, EXPECTED)
        return _invalid(
            value,
            f"{shown(value)} is not a UUID (it needs 32 hex digits). Use an id a list or search "
            "tool returned; never invent one.",
        )
    return _checked(value, _uuid.UUID(hex=digits), options)


def _checked(received: Any, read: _uuid.UUID, options: Options) -> Reading:
    if is_placeholder(read):
        return absence.reading_for(received, options.intent, EXPECTED)
    if isinstance(received, str):
        text = str(read)
        return (
            Reading.of(read)
            if received == text
            else Reading.of(read, f"Read {shown(received)} as {text}.")
        )
    return Reading.repaired(received, read)


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_id")


Uuid = Annotated[_uuid.UUID, Kind("uuid")]
"""A UUID, read through case, braces, "urn:uuid:" and missing hyphens; sent back canonical."""

__all__ = ["EXAMPLE", "EXAMPLE_IDS", "EXPECTED", "Uuid", "is_placeholder", "read_uuid"]
