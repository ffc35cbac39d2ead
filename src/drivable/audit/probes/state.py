"""What a probe run gathered: calls, findings, skipped tools and the observations rules reconcile."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drivable.audit.model import Finding, Severity
from drivable.audit.probes.call import ProbeCall
from drivable.audit.probes.values import Knowledge
from drivable.audit.rules.base import finding


@dataclass
class ProbeState:
    tools: dict[str, dict[str, Any]]
    allow_writes: bool
    allow_network: bool = False
    findings: list[Finding] = field(default_factory=list)
    calls: list[ProbeCall] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    seen: set[tuple[str, str]] = field(default_factory=set)
    envelope_gaps: dict[str, list[str]] = field(default_factory=dict)
    first_repair: dict[str, Any] | None = None
    known: tuple[str, ...] = ()
    know: Knowledge = field(default_factory=Knowledge)
    baseline_ok: dict[str, bool] = field(default_factory=dict)
    # tool -> what was seen: "unknown-property" accepted|refused, "output" json|prose|structured,
    # "repeat" same|refused|different. Static suspicions are confirmed or dropped against these.
    observed: dict[str, dict[str, str]] = field(default_factory=dict)
    # tools a `tools/call` was sent to, with the arguments' keys only (never values)
    called: list[str] = field(default_factory=list)
    # mutating tools whose baseline succeeded: the server's state is no longer what it was
    mutated: set[str] = field(default_factory=set)

    def observe(self, tool: str, what: str, value: str) -> None:
        self.observed.setdefault(tool, {}).setdefault(what, value)

    def once(self, rule: str, subject: str) -> bool:
        key = (rule, subject)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def add(
        self,
        rule: str,
        severity: Severity,
        subject: str,
        summary: str,
        evidence: Any,
        remediation: str,
        *,
        key: str | None = None,
    ) -> None:
        if self.once(rule, key or subject):
            self.findings.append(finding(rule, severity, subject, summary, evidence, remediation))
