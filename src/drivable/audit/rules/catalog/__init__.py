"""The 173 rule ids of the agent-friendly MCP checklist (§1–§9), one line of requirement each.

Generated once from the project's research note on the checklist; kept in step by a test. One
module per group of sections, named as the rules module that checks them (§3's rules are checked
in three: s3_tools, s3_schemas, s3_effects); the table is their rows in checklist order.
Each row: (id, requirement, check key: a = static, b = needs probes, c = human judgement).
"""

from __future__ import annotations

from drivable.audit.rules.catalog import (
    s1_server,
    s2_discovery,
    s3_tools,
    s4_s5_resources_prompts,
    s6_failure,
    s7_long_running,
    s8_s9_tokens_versions,
)

CHECKLIST: tuple[tuple[str, str, str], ...] = (
    *s1_server.ROWS,
    *s2_discovery.ROWS,
    *s3_tools.ROWS,
    *s4_s5_resources_prompts.ROWS,
    *s6_failure.ROWS,
    *s7_long_running.ROWS,
    *s8_s9_tokens_versions.ROWS,
)
