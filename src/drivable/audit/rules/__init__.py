"""The rule registry: every checklist id (173) plus drivable's `dv.*` rules, each with its doc.

Static checks run in section order; probe rules are decided in `drivable.audit.probes`.
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
from drivable.audit.rules.catalog import CHECKLIST

_MODULES = (
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
STATIC_CHECKS: tuple[Check, ...] = (
    s1_server.check,
    s2_discovery.check,
    s3_tools.check,
    s3_effects.check,
    s4_s5_resources_prompts.check,
    s7_long_running.check,
    s8_s9_tokens_versions.check,
)


def _build() -> dict[str, Rule]:
    docs: dict[str, RuleDoc] = {}
    for module in _MODULES:
        docs.update(module.DOCS)
    registry: dict[str, Rule] = {}
    for rule_id, requirement, key in CHECKLIST:
        registry[rule_id] = Rule(
            rule_id, int(rule_id.split(".")[0]), requirement, key, docs.get(rule_id)
        )
    for rule_id, doc in docs.items():
        if rule_id.startswith("dv."):
            registry[rule_id] = Rule(rule_id, None, doc.what.split(". ")[0], "b", doc)
        elif rule_id not in registry:
            raise RuntimeError(f"doc for unknown checklist rule {rule_id}")
    return registry


REGISTRY: dict[str, Rule] = _build()


def get(rule_id: str) -> Rule | None:
    return REGISTRY.get(rule_id.strip("[]`"))


def all_rules() -> list[Rule]:
    return list(REGISTRY.values())


def run_static(ctx: StaticContext) -> Iterator[Finding]:
    for check in STATIC_CHECKS:
        yield from check(ctx)


__all__ = ["REGISTRY", "Rule", "RuleDoc", "StaticContext", "all_rules", "get", "run_static"]
