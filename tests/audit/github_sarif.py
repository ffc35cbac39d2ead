"""What GitHub code scanning needs of a SARIF file: the OASIS schema, and what the schema leaves out.

The schema is OASIS's own (tests/audit/data/SOURCES.md). Beyond it, code scanning (its "SARIF
support" page and the upload's own checks) needs: a physical location on every result whose URI is
relative to the repository root, a region starting at line 1 or later, rule ids the driver lists
(with a matching ruleIndex), `security-severity` as a number on rules only, an automation id that is
a category and no path, and partial fingerprints, so a second run updates its alerts instead of
opening new ones. A URI must name a file in the checkout, or the surface snapshot when a test wrote
it elsewhere (`outside`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
RESULTS_PER_RUN = 25_000  # code scanning's limits per run
RULES_PER_RUN = 25_000


def assert_github_accepts(
    sarif: dict[str, Any], checkout: Path, outside: Collection[str] = ()
) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(sarif)
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] and driver["version"]
    category = run["automationDetails"]["id"]
    assert category.endswith("/") and not category.startswith("/"), category
    assert "\\" not in category and str(checkout) not in category, category
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) <= RULES_PER_RUN
    for rule in driver["rules"]:
        assert 0.0 <= float(rule["properties"]["security-severity"]) <= 10.0
    assert len(run["results"]) <= RESULTS_PER_RUN
    fingerprints: Counter[tuple[str, str]] = Counter()
    for result in run["results"]:
        assert result["message"]["text"].strip()
        assert result["ruleId"] in rule_ids
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert "security-severity" not in result.get("properties", {})
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri and ":" not in uri and not uri.startswith("/"), uri
        assert ".." not in Path(uri).parts and "\\" not in uri, uri
        assert uri in outside or (checkout / uri).is_file(), uri
        start = physical["region"]["startLine"]
        assert isinstance(start, int) and start >= 1
        (_, value), *more = result["partialFingerprints"].items()
        assert not more and value, result["partialFingerprints"]
        fingerprints[(result["ruleId"], value)] += 1
    # one alert per finding: two findings sharing a fingerprint would show as one
    assert [k for k, n in fingerprints.items() if n > 1] == []


def fingerprints(sarif: dict[str, Any]) -> Counter[tuple[str, str]]:
    return Counter(
        (r["ruleId"], v)
        for r in sarif["runs"][0]["results"]
        for v in r["partialFingerprints"].values()
    )
