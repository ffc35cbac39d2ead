"""How a module declares its rules: each one whole, its check (if any) beside its data.

    RULES = Rules()

    @RULES.static("1.name-generic", "No generic names ...", "a", doc=RuleDoc(...))
    def _generic_name(ctx: StaticContext) -> Iterator[Finding]: ...

    RULES.declare("1.transport", "Explicit, documented stdio ...", "b+c", question="Does ...?")

The registry (`drivable.audit.rules`) is the union of the modules' `RULES`; the catalog, the
reviewer questions, the static checks and docs/audit-rules.md are read off it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from drivable.audit.model import Finding
from drivable.audit.rules.base import Check, Rule, RuleDoc, StaticContext

ToolCheck = Callable[[StaticContext, dict[str, Any]], Iterator[Finding]]


class ForeignFinding(RuntimeError):
    """A check reported a rule that is not its own: the finding would carry another rule's doc."""


def own_findings(rule: Rule, ctx: StaticContext) -> Iterator[Finding]:
    """`rule`'s check on `ctx`, refusing any finding for another rule."""
    if rule.check is None:
        return
    for found in rule.check(ctx):
        if found.rule != rule.id:
            raise ForeignFinding(f"the check of {rule.id} reported {found.rule}")
        yield found


class Rules:
    """The rules one module declares, in the order it declares them."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []

    def declare(
        self,
        rule_id: str,
        requirement: str,
        check_key: str,
        *,
        doc: RuleDoc | None = None,
        question: str | None = None,
        check: Check | None = None,
    ) -> Rule:
        """A rule; without `check` it is decided by probes (a doc) or by a reviewer (a question).

        drivable's own rules (`dv.*`) have no checklist line: their requirement is left empty and
        read as the first sentence of what the doc says drivable checks.
        """
        if (doc is None) == (question is None):
            raise ValueError(f"{rule_id}: a rule has a doc (automated) or a question, not both")
        if not requirement and doc is not None:
            requirement = doc.what.split(". ")[0]
        rule = Rule(rule_id, requirement, check_key, doc, question, check)
        self.rules.append(rule)
        return rule

    def static(
        self, rule_id: str, requirement: str, check_key: str, *, doc: RuleDoc
    ) -> Callable[[Check], Check]:
        """Decorate the check of `rule_id`: it reads the whole surface and reports only this rule."""

        def declare(check: Check) -> Check:
            self.declare(rule_id, requirement, check_key, doc=doc, check=check)
            return check

        return declare

    def per_tool(
        self, rule_id: str, requirement: str, check_key: str, *, doc: RuleDoc
    ) -> Callable[[ToolCheck], ToolCheck]:
        """Decorate a check of one tool at a time, run on each listed tool in order."""

        def declare(check: ToolCheck) -> ToolCheck:
            def each(ctx: StaticContext) -> Iterator[Finding]:
                for tool in ctx.tools:
                    yield from check(ctx, tool)

            self.declare(rule_id, requirement, check_key, doc=doc, check=each)
            return check

        return declare

    def check(self, ctx: StaticContext) -> Iterator[Finding]:
        """Every static check of this module, in declaration order."""
        for rule in self.rules:
            yield from own_findings(rule, ctx)
