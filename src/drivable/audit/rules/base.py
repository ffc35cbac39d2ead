"""Rule data (id, severity, how it is checked, a one-screen doc) and the static check context."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.audit.model import Finding, Severity

How = Literal["static", "probe", "static+probe", "not-automated"]


@dataclass(frozen=True)
class RuleDoc:
    """How drivable checks one rule, and what a server author should know about it.

    `severity` is the default; `levels` are the other severities the rule may report, each with
    the condition that selects it. A check reports only these (a test reads every call site), so
    the registry is the one owner of a rule's severities.
    """

    severity: Severity
    how: How
    what: str
    why: str
    example: str
    fix: str
    levels: tuple[tuple[Severity, str], ...] = ()

    def allows(self, severity: str) -> bool:
        return severity == self.severity or any(s == severity for s, _ in self.levels)


@dataclass(frozen=True)
class Rule:
    """One rule, whole: its id, the checklist's requirement, how drivable decides it and, for a
    rule decided statically, its check. Nothing else holds a rule's data (`Rules` declares one)."""

    id: str
    requirement: str
    check_key: str
    doc: RuleDoc | None = None
    question: str | None = None  # for a rule drivable does not decide: what a reviewer answers
    check: Check | None = None

    @property
    def section(self) -> int | None:
        head = self.id.split(".", 1)[0]
        return int(head) if head.isdigit() else None

    @property
    def severity(self) -> Severity:
        return self.doc.severity if self.doc else "minor"

    @property
    def levels(self) -> tuple[tuple[Severity, str], ...]:
        return self.doc.levels if self.doc else ()

    @property
    def how(self) -> How:
        return self.doc.how if self.doc else "not-automated"

    @property
    def title(self) -> str:
        return self.requirement


@dataclass
class StaticContext:
    """The collected surface plus the derived values the rules share."""

    surface: dict[str, Any]
    tokens: int = 0
    offline: bool = False
    notes: dict[int, list[str]] = field(default_factory=dict)

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [t for t in self.surface.get("tools", []) if isinstance(t, dict)]

    @property
    def tool_names(self) -> set[str]:
        return {str(t.get("name", "")) for t in self.tools}

    @property
    def server(self) -> dict[str, Any]:
        server = self.surface.get("server")
        return server if isinstance(server, dict) else {}

    @property
    def capabilities(self) -> dict[str, Any]:
        caps = self.surface.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def instructions(self) -> str:
        text = self.surface.get("instructions")
        return text if isinstance(text, str) else ""

    def note(self, section: int, text: str) -> None:
        """An OK-evidence line for the coverage table."""
        self.notes.setdefault(section, []).append(text)


Check = Callable[[StaticContext], Iterator[Finding]]


def finding(
    rule: str,
    severity: Severity,
    subject: str,
    summary: str,
    evidence: Any,
    remediation: str,
) -> Finding:
    return Finding(rule, severity, subject, summary, evidence, remediation)


def tool_subject(tool: dict[str, Any]) -> str:
    return f"tool:{tool.get('name', '?')}"


def trimmed_schema(schema: dict[str, Any], limit: int = 1500) -> Any:
    """Evidence stays readable: a schema too large is cut to its top-level shape."""
    text = json.dumps(schema)
    if len(text) <= limit:
        return schema
    return {
        k: (sorted(v) if k == "properties" and isinstance(v, dict) else v)
        for k, v in schema.items()
        if k in ("type", "properties", "required", "additionalProperties")
    }
