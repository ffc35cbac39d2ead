"""The cost of the surface guard: canonical snapshot, fingerprint and diff on large generated surfaces.

Targets (a 2-core VM, shared with other work): canonical + fingerprint of 1,000 tools under 2 s; a
diff of two 1,000-tool surfaces, one in ten tools changed, under 2 s; the fingerprint a runtime
computes for 50 tools under 50 ms. Every timing is the median of several repeats; the load average
is printed beside them, since a loaded machine inflates them all.
"""

from __future__ import annotations

import copy
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from drivable.surface import fingerprint, snapshot
from drivable.surface.diff import counts, diff

REPEATS = 5


def _tool(i: int) -> dict[str, Any]:
    return {
        "name": f"tool_{i:04d}",
        "title": f"Tool {i}",
        "description": f"Does thing number {i} with care; returns the affected records.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "record_id": {"type": "string", "pattern": "^rec_[a-z0-9]+$"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                "mode": {"type": "string", "enum": ["fast", "safe", "dry"]},
                "since": {"type": "string", "format": "date"},
                "filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
            },
            "required": ["record_id"],
            "additionalProperties": False,
            "$defs": {
                "Filter": {
                    "type": "object",
                    "properties": {
                        "field": {"type": "string"},
                        "op": {"type": "string", "enum": ["eq", "lt", "gt"]},
                        "value": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                    },
                    "required": ["field", "op"],
                }
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Record"}},
                "next_cursor": {"type": ["string", "null"]},
            },
            "required": ["items"],
            "$defs": {
                "Record": {
                    "type": "object",
                    "properties": {"record_id": {"type": "string"}, "state": {"type": "string"}},
                    "required": ["record_id", "state"],
                }
            },
        },
        "annotations": {"readOnlyHint": i % 2 == 0, "idempotentHint": True},
        "_meta": {"dev.bench/lifecycle": {"stability": "stable"}},
    }


def _collected(n: int) -> dict[str, Any]:
    return {"server": {"name": "bench", "version": "1"}, "tools": [_tool(i) for i in range(n)]}


def _changed(collected: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(collected)
    for i, tool in enumerate(out["tools"]):
        if i % 10 == 0:
            tool["description"] += " Now faster."
            props = tool["inputSchema"]["properties"]
            props["limit"]["maximum"] = 50
            props["mode"]["enum"] = ["fast", "safe"]
            record = tool["outputSchema"]["$defs"]["Record"]
            record["properties"]["recordId"] = record["properties"].pop("record_id")
            record["required"] = ["recordId", "state"]
    return out


def _median(fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    big = _collected(1000)
    changed = _changed(big)
    small = _collected(50)
    old, new = snapshot.canonical(big), snapshot.canonical(changed)
    small_snap = snapshot.canonical(small)
    rows = [
        ("canonical + fingerprint, 1,000 tools", _median(lambda: snapshot.canonical(big)), 2.0),
        ("diff, 1,000 tools, 100 changed", _median(lambda: diff(old, new)), 2.0),
        ("fingerprint only, 50 tools", _median(lambda: fingerprint.compute(small_snap)), 0.05),
        ("canonical + fingerprint, 50 tools", _median(lambda: snapshot.canonical(small)), 0.05),
    ]
    n = counts(diff(old, new))
    status = 0
    for label, seconds, target in rows:
        ok = seconds <= target
        status |= 0 if ok else 1
        print(
            f"{label:42s} {seconds * 1000:9.1f} ms  (target <= {target * 1000:.0f} ms) {'ok' if ok else 'MISSED'}"
        )
    print(f"changes found in the 1,000-tool diff: {n}")
    print(f"snapshot size, 1,000 tools: {len(snapshot.dumps(old)) / 1e6:.1f} MB")
    print(f"load average while measured: {os.getloadavg()[0]:.1f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
