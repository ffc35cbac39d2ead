"""Findings grouped for reading: one entry per rule, severity and kind of problem, many subjects.

A server with forty tools that all lack an outputSchema has one problem, not forty: the group keeps
the first finding's summary, evidence and fix, and lists every subject. Two findings are of one
kind when their summaries match once names in backticks, quoted values and numbers are masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drivable.audit.model import Finding

_MASK = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\d+")


@dataclass
class Group:
    first: Finding
    subjects: list[str] = field(default_factory=list)

    @property
    def rule(self) -> str:
        return self.first.rule

    @property
    def severity(self) -> str:
        return self.first.severity


def kind_of(f: Finding) -> tuple[str, str, str]:
    return (f.rule, f.severity, _MASK.sub("_", f.summary))


def group(findings: list[Finding]) -> list[Group]:
    groups: dict[tuple[str, str, str], Group] = {}
    for f in findings:
        g = groups.setdefault(kind_of(f), Group(f))
        if f.subject not in g.subjects:
            g.subjects.append(f.subject)
    return list(groups.values())


def subjects_line(g: Group, limit: int = 12) -> str:
    shown = ", ".join(g.subjects[:limit])
    more = len(g.subjects) - limit
    return shown + (f" and {more} more" if more > 0 else "")
