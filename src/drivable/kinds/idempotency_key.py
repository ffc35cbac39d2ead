"""idempotency_key: the key a caller mints once per intended change and resends on every retry.

A key's one job is to be the same on a retry of the same change, so any key of the allowed
characters is read as it is, a short one too ("abc123", with a note): receipts are scoped to the
caller, the tool and the arguments, so a short key reused for another change is refused as
`idempotency_mismatch`, never replayed as the wrong result. The advertised schema still asks for
8 to 128 characters. Surrounding spaces are dropped (with a note), and a key the model sent as a
number is read as its digits.

Refused, with a freshly minted key in the hint to copy: a placeholder copied from a description
("<a key you generate>", "string", "uuid") and anything outside letters, digits and `_ . : -`.
Refusing costs one call; reading a placeholder as a key would give every caller who copied it the
same key.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind

SHORTEST_ADVERTISED = 8
LONGEST = 128
EXPECTED = "a key you generate once per intended change (a UUID is fine)"

_KEY = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_.:-]{{0,{LONGEST - 1}}}$")
_ADVERTISED = rf"^[A-Za-z0-9][A-Za-z0-9_.:-]{{{SHORTEST_ADVERTISED - 1},{LONGEST - 1}}}$"
# Words a model writes for "some key" that are no key (placeholders of absence are checked too).
_NOT_KEYS = frozenset({"uuid", "guid", "key", "idempotency_key", "idempotency-key", "random"})


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": SHORTEST_ADVERTISED,
        "maxLength": LONGEST,
        "pattern": _ADVERTISED,
        "description": (
            "A key you generate once per intended change (a UUID is fine) and resend unchanged "
            "on every retry of that change."
        ),
    }


def _canonical(value: Any, options: Options) -> Any:
    if (
        type(value) is str
        and SHORTEST_ADVERTISED <= len(value) <= LONGEST
        and _KEY.match(value)
        and value.casefold() not in _NOT_KEYS
    ):
        return value
    return NOT_CANONICAL


def fresh_key() -> str:
    return str(uuid.uuid4())


def _refused(value: Any, why: str) -> Reading:
    return Reading.invalid(
        value,
        expected=EXPECTED,
        hint=(
            f"{why} Generate one key for this change and resend it unchanged on every retry, "
            f"for example '{fresh_key()}'."
        ),
        code="invalid_key",
    )


@kind(
    "idempotency_key",
    schema=_schema,
    expected=EXPECTED,
    handles_placeholders=True,
    canonical=_canonical,
)
def read_idempotency_key(value: Any, options: Options) -> Reading:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return _read(str(value), f"Read {value} as the key '{value}'.")
    if not isinstance(value, str):
        return _refused(value, "The key is a string.")
    text = value.strip()
    if absence.placeholder_of(text) is not None or text.casefold() in _NOT_KEYS:
        return _refused(value, f"{shown(value)} is a placeholder, not a key.")
    if not _KEY.match(text):
        return _refused(
            value,
            f"{shown(value)} is not a key: use letters, digits and _ . : - only, at most "
            f"{LONGEST} characters, starting with a letter or digit.",
        )
    return _read(text, f"Read {shown(value)} as {shown(text)}." if text != value else None)


def _read(text: str, note: str | None) -> Reading:
    notes = [note] if note else []
    if len(text) < SHORTEST_ADVERTISED:
        notes.append(
            f"The key {shown(text)} is shorter than {SHORTEST_ADVERTISED} characters and is "
            "easily reused by mistake: resend it on retries of this change, and generate a new "
            "one (a UUID) for the next change."
        )
    return Reading.of(text, *notes)


IdempotencyKey = Annotated[str, Kind("idempotency_key")]

__all__ = ["EXPECTED", "IdempotencyKey", "fresh_key", "read_idempotency_key"]
