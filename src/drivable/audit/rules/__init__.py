"""The rule registry: every checklist id (173) plus drivable's `dv.*` rules, read off the modules
that declare them (`declare.Rules`): a rule's id, requirement, doc and check live in one place.

Within a section the rules drivable decides come first, in the order their modules declare them,
then the ones a reviewer decides. Static checks run in that order; probe rules are decided in
`drivable.audit.probes`, which refer to them by id.
"""

from __future__ import annotations

from collections.abc import Iterator

from drivable.audit.model import Finding
from drivable.audit.rules import (
    s1_server,
    s2_discovery,
    s3_effects,
    s3_schemas,
    s3_tools,
    s4_s5_resources_prompts,
    s6_failure,
    s7_long_running,
    s8_s9_tokens_versions,
)
from drivable.audit.rules.base import Check, Rule, RuleDoc, StaticContext
from drivable.audit.rules.declare import own_findings
from drivable.audit.rules.reviewer import s1_server as s1_reviewer
from drivable.audit.rules.reviewer import s2_discovery as s2_reviewer
from drivable.audit.rules.reviewer import s3_tools as s3_reviewer
from drivable.audit.rules.reviewer import s4_s5_resources_prompts as s4_s5_reviewer
from drivable.audit.rules.reviewer import s6_failure as s6_reviewer
from drivable.audit.rules.reviewer import s7_long_running as s7_reviewer
from drivable.audit.rules.reviewer import s8_s9_tokens_versions as s8_s9_reviewer

_MODULES = (
    s1_server,
    s1_reviewer,
    s2_discovery,
    s2_reviewer,
    s3_tools,
    s3_schemas,
    s3_effects,
    s3_reviewer,
    s4_s5_resources_prompts,
    s4_s5_reviewer,
    s6_failure,
    s6_reviewer,
    s7_long_running,
    s7_reviewer,
    s8_s9_tokens_versions,
    s8_s9_reviewer,
)


def _build() -> dict[str, Rule]:
    declared = [rule for module in _MODULES for rule in module.RULES.rules]
    registry: dict[str, Rule] = {}
    # Stable: by section (dv.* last), each section in the modules' order.
    for rule in sorted(declared, key=lambda r: r.section or 99):
        if rule.id in registry:
            raise RuntimeError(f"rule {rule.id} declared twice")
        registry[rule.id] = rule
    return registry


REGISTRY: dict[str, Rule] = _build()
STATIC_CHECKS: tuple[Check, ...] = tuple(r.check for r in REGISTRY.values() if r.check)


def get(rule_id: str) -> Rule | None:
    return REGISTRY.get(rule_id.strip("[]`"))


def all_rules() -> list[Rule]:
    return list(REGISTRY.values())


def run_static(ctx: StaticContext) -> Iterator[Finding]:
    for rule in REGISTRY.values():
        yield from own_findings(rule, ctx)


__all__ = [
    "REGISTRY",
    "STATIC_CHECKS",
    "Rule",
    "RuleDoc",
    "StaticContext",
    "all_rules",
    "get",
    "run_static",
]
