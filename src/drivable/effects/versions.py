"""Version preconditions (``expected_version`` / ``if_match``).

For rows in the effect store's database, prefer :meth:`Transaction.compare_and_set`, which checks
and writes atomically. :func:`check_version` is the pure check for state kept elsewhere (the
caller must then hold whatever lock makes check-then-write safe).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.effects.outcomes import VersionConflict


def check_version(
    expected: int | str | None,
    current: int | str | None,
    *,
    reread_tool: str | None = None,
    reread_arguments: Mapping[str, Any] | None = None,
) -> VersionConflict | None:
    """None when there is no precondition or it holds; otherwise the facts of the ``conflict``:
    the current version and the read call to make before reapplying."""
    if expected is None:
        return None
    if current is not None and type(expected) is type(current) and expected == current:
        return None
    if isinstance(expected, int) and isinstance(current, str) and current == str(expected):
        return None
    if isinstance(expected, str) and isinstance(current, int) and expected == str(current):
        return None
    return VersionConflict(
        expected=expected,
        current=current,
        reread_tool=reread_tool,
        reread_arguments=dict(reread_arguments or {}),
    )
