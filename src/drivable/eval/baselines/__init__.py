"""Naive twins of the bundled servers: the same tools and the same data, written the usual way.

Plain `MCPServer` functions of the `mcp` SDK: parameters typed `str`/`int`, one-line docstrings,
errors as whatever exception the code raises, integer-offset cursors, no repairs. Each bundled
workflow set runs against its drivable server and its twin, so the side by side is the same work.
Run one over stdio with `python -m drivable.eval.baselines.<name>`.
"""

from __future__ import annotations

# Each set's set.yaml names its twin (`naive:`); drivable.eval.workflow.workflow_set reads it.
