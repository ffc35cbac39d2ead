"""The gate of a CI run: findings at or above a severity, and an eval's completion below a share.

Read from the audit's JSON report and the eval's RUN.json (their pinned shapes), never recomputed:
the gate says what those documents say. Completion is compared as the exact fraction k/n the run
counted, so a threshold of 0.85 passes 17 of 20 and fails 16 of 20 whatever the float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from drivable.audit.model import SEVERITIES, at_least

NEVER = "none"  # a fail-on that no finding reaches: report, never fail
FAIL_ON = (*SEVERITIES, NEVER)


def percent(share: float | Fraction | None) -> str:
    return "n/a" if share is None else f"{float(share):.0%}"


@dataclass(frozen=True)
class Verdict:
    audit: dict[str, Any]
    fail_on: str
    run: dict[str, Any] | None = None
    min_completion: float | None = None

    def __post_init__(self) -> None:
        if self.fail_on not in FAIL_ON:
            raise ValueError(f"fail-on takes one of {', '.join(FAIL_ON)}, not {self.fail_on!r}")
        if self.min_completion is not None and not 0 <= self.min_completion <= 1:
            raise ValueError(
                f"a completion threshold is a share from 0 to 1: {self.min_completion}"
            )

    @property
    def findings(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.audit.get("findings") or []
        return found

    @property
    def failing(self) -> list[dict[str, Any]]:
        if self.fail_on == NEVER:
            return []
        return [f for f in self.findings if at_least(f["severity"], self.fail_on)]

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self.findings if f["severity"] == s) for s in SEVERITIES}

    @property
    def completed(self) -> tuple[int, int] | None:
        """(trials completed, trials run) over the whole eval, None without one."""
        if self.run is None:
            return None
        done = self.run["summary"]["overall"]["completed"]
        return int(done["k"]), int(done["n"])

    @property
    def completion(self) -> Fraction | None:
        counted = self.completed
        return Fraction(*counted) if counted and counted[1] else None

    @property
    def reasons(self) -> list[str]:
        """Why the gate fails, one sentence each; empty when it passes."""
        out: list[str] = []
        if self.failing:
            out.append(f"{len(self.failing)} findings at or above {self.fail_on}")
        if self.min_completion is not None and self.run is not None:
            share, threshold = self.completion, Fraction(str(self.min_completion))
            if share is None or share < threshold:
                out.append(
                    f"eval completion {percent(share)} is below {percent(threshold)}"
                    + (" (no trial ran)" if share is None else "")
                )
        return out

    @property
    def passed(self) -> bool:
        return not self.reasons
