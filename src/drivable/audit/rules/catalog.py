"""The 173 rule ids of the agent-friendly MCP checklist (§1–§9) as one table, read off the registry.

Each row: (id, requirement, check key: a = static, b = needs probes, c = human judgement). The
rules themselves are declared beside their checks; a test keeps this table in step with the
checklist's reference.
"""

from __future__ import annotations

from drivable.audit.rules import all_rules

CHECKLIST: tuple[tuple[str, str, str], ...] = tuple(
    (r.id, r.requirement, r.check_key) for r in all_rules() if r.section is not None
)
