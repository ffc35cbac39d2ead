"""Strict mode: a contract that breaks its own declaration fails loudly instead of degrading.

In production a slip is answered gracefully (an undeclared code still goes out, a repair that does
not validate is dropped, a result outside its model is `internal_error`) and logged. Under strict
mode (on in every test run through the `drivable.testing` plugin, or `Contract(strict=True)`) the
same slips raise `StrictError` out of `Contract.call`, naming the fix:

- a tool emitted an error code it does not declare (`errors=[...]`; cursor and effect codes are
  inferred);
- a handler's `repair` does not validate against the tool it names;
- a result does not validate against the tool's advertised outputSchema.
"""

from __future__ import annotations

_default = False


class StrictError(AssertionError):
    """The server broke its own contract (raised in strict mode only)."""


def enable(on: bool = True) -> None:
    """Switch strict mode on (or off) for every contract that did not choose for itself."""
    global _default
    _default = on


def enabled() -> bool:
    return _default
