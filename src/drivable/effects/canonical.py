"""Canonical arguments: the bytes an idempotency key and a confirm token are bound to.

Two calls are "the same call" when their validated arguments, minus the control fields that steer
the call rather than describe the effect, serialise to the same canonical JSON: keys sorted, no
whitespace, UTF-8 (`drivable.canonical`), and numbers normalised (``1``, ``1.0`` and
``Decimal("1.00")`` are one number; ``-0.0`` is ``0``; a non-finite number is refused). Strings are
kept as they are: changing them could change what the call means.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from drivable.canonical import canonical_json

CONTROL_FIELDS: Final = frozenset({"idempotency_key", "dry_run", "confirm_token"})
"""Top-level arguments that never take part in the identity of a call."""

_MISSING: Final = object()


def _number(value: int | float | Decimal) -> int | float:
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("non-finite numbers have no canonical form")
        if value == value.to_integral_value():
            return int(value)
        return float(value)
    if not math.isfinite(value):
        raise ValueError("non-finite numbers have no canonical form")
    if value.is_integer():
        return int(value)
    return value


def _normalise(value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float | Decimal):
        return _number(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("argument keys must be strings")
            out[key] = _normalise(item)
        return out
    if isinstance(value, list | tuple):
        return [_normalise(item) for item in value]
    raise TypeError(f"cannot canonicalise a value of type {type(value).__name__}")


def normalised_arguments(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as plain JSON values with the control fields removed and numbers normalised."""
    return {k: _normalise(v) for k, v in args.items() if k not in CONTROL_FIELDS}


def canonical_arguments(args: Mapping[str, Any]) -> bytes:
    """Canonical JSON of the validated arguments, excluding ``idempotency_key``, ``dry_run`` and
    ``confirm_token``. Raises ``TypeError``/``ValueError`` on values JSON cannot carry (a bug of
    the caller: validated arguments are always JSON)."""
    return canonical_json(normalised_arguments(args))


def arguments_digest(args: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of :func:`canonical_arguments`."""
    return hashlib.sha256(canonical_arguments(args)).hexdigest()


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            _diff(a.get(key, _MISSING), b.get(key, _MISSING), sub, out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}.{index}" if path else str(index), out)
        return
    if a is _MISSING or b is _MISSING:
        out.append(path)
        return
    if canonical_json(a) != canonical_json(b):
        out.append(path)


def differing_fields(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Dotted paths (``items.0.amount``) where two argument sets differ, control fields excluded.

    A field present on one side only is reported at its own path; lists of different lengths are
    reported as a whole."""
    out: list[str] = []
    _diff(normalised_arguments(a), normalised_arguments(b), "", out)
    return out
