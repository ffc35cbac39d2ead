"""The curated causes of conformance verdicts (causes.json), read in one place.

A cause is keyed `TARGET:SCENARIO`, `reference:SCENARIO` (both reference servers) or `SCENARIO`
(every target), most specific first. Its flags say how to read the verdict:

- `suite_wrong`: the suite itself gets this verdict wrong (evidence in the cause);
- `false_pass`: a pass that does not test what the scenario says;
- `applies: false`: the scenario does not apply to the target (it drives a fixture tool, prompt or
  resource by name, or an optional feature the target does not offer).

Every other scored scenario must pass on its target: tests/conformance/test_suite.py holds that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conformance.suite import FIXTURE, Scenario

CAUSES: dict[str, dict[str, Any]] = {
    key: value
    for key, value in json.loads(Path(__file__).with_name("causes.json").read_text()).items()
    if key != "_"
}
LABEL = {"caselaw": "caselaw", "billing": "billing", FIXTURE: "fixture"}


def curated(scenario: Scenario, target: str) -> dict[str, Any] | None:
    label = LABEL[target]
    keys = [f"{label}:{scenario.name}", scenario.name]
    if label in ("caselaw", "billing"):
        keys.insert(1, f"reference:{scenario.name}")
    return next((CAUSES[k] for k in keys if k in CAUSES), None)


def applies(scenario: Scenario, target: str) -> bool:
    found = curated(scenario, target)
    return not (found and found.get("applies") is False)


def suite_wrong(scenario: Scenario, target: str) -> bool:
    found = curated(scenario, target)
    return bool(found and found.get("suite_wrong") and not found.get("false_pass"))


def explained(scenario: Scenario, target: str) -> bool:
    """Whether a verdict needs nothing more: a pass, or a failure that does not apply to the target
    or that the suite itself gets wrong."""
    return scenario.passed or not applies(scenario, target) or suite_wrong(scenario, target)
