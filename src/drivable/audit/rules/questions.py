"""The question a reviewer answers for each checklist rule drivable cannot decide from the wire.

A view of the registry (each such rule declares its question in `rules.reviewer`): `drivable rules
ID` and the report's coverage show these, so every rule is either automated or carries the
judgement a person makes.
"""

from __future__ import annotations

from drivable.audit.rules import all_rules

QUESTIONS: dict[str, str] = {r.id: r.question for r in all_rules() if r.question}
