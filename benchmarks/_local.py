"""The local model for a benchmark row, or the line that says why the row is skipped."""

from __future__ import annotations

import os
from typing import Any


def local_model(size: str, row: str) -> tuple[Any, str | None]:
    """(the shared model, None), or (None, "<row>: skipped (why)"): never skipped silently."""
    if os.environ.get("DRIVABLE_BENCH_LOCAL") != "1":
        return None, f"{row}: skipped (set DRIVABLE_BENCH_LOCAL=1 with the [local] extra installed)"
    try:
        from drivable.eval.agents.local import shared_model
    except ImportError as error:
        return None, f"{row}: skipped ({error})"
    try:
        return shared_model(size), None
    except RuntimeError as error:
        return None, f"{row}: skipped ({error})"
