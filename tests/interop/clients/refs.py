"""Plan references (`$ref`, `$pick`) resolved against earlier payloads, as `drive.mjs` does.

Imports nothing but the standard library: `drive_mcp1.py` uses it from a venv of its own.
"""

from __future__ import annotations

import json
from typing import Any


def payload_of(result: dict[str, Any]) -> Any:
    """What a later step may refer to: structuredContent, else the first text block as JSON."""
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    try:
        return json.loads(result["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def pick(spec: dict[str, Any], payloads: dict[str, Any]) -> Any:
    rows = payloads[spec["from"]][spec["list"]]
    low, high = spec["between"]
    return next(r[spec["take"]] for r in rows if low <= r[spec["where"]] <= high)


def resolve(value: Any, payloads: dict[str, Any]) -> Any:
    """`value` with every reference replaced; KeyError, IndexError or StopIteration if one dangles."""
    if isinstance(value, str) and value.startswith("$ref:"):
        _, step, path = value.split(":")
        found = payloads[step]
        for part in path.split("."):
            found = found[int(part)] if part.isdigit() else found[part]
        return found
    if isinstance(value, dict):
        if set(value) == {"$pick"}:
            return pick(value["$pick"], payloads)
        return {k: resolve(v, payloads) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, payloads) for v in value]
    return value
