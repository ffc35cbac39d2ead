"""The official MCP conformance suite against both reference servers and the conformance fixture,
for both requirement sets (2026-07-28 and 2025-11-25).

Every scenario in expected_pass.json must pass, so a regression fails CI; the list only grows (add
a scenario once it passes; `python -m tests.conformance.report` prints what passes now). Each
target and revision is run once per session and the results are kept for every test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conformance.causes import curated, explained
from tests.conformance.suite import (
    FIXTURE,
    REVISIONS,
    TARGETS,
    SuiteRun,
    fixture_available,
    requirements,
    run_suite,
)
from tests.interop.fixtures import installed, node_bin

EXPECTED: dict[str, dict[str, list[str]]] = json.loads(
    (Path(__file__).with_name("expected_pass.json")).read_text()
)

RunSuite = Callable[[str, str], SuiteRun]


@pytest.fixture(scope="session")
def suite(node_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> RunSuite:
    work = tmp_path_factory.mktemp("conformance")
    done: dict[tuple[str, str], SuiteRun] = {}

    def get(target: str, revision: str) -> SuiteRun:
        if target == FIXTURE and not fixture_available():
            pytest.skip("tests/conformance/fixture.py is not in this tree yet")
        if (target, revision) not in done:
            done[(target, revision)] = run_suite(node_bin, target, revision, work)
        return done[(target, revision)]

    return get


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_expected_scenario_passes(suite: RunSuite, target: str, revision: str) -> None:
    run = suite(target, revision)
    expected = EXPECTED[target][revision]
    failing = {
        name: [f"{c.id}: {c.message[:300]}" for c in run.scenarios[name].failed_checks]
        if name in run.scenarios
        else ["not run"]
        for name in expected
        if name not in run.scenarios or not run.scenarios[name].passed
    }
    assert not failing, json.dumps(failing, indent=1)


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_scored_scenario_that_applies_passes(
    suite: RunSuite, target: str, revision: str
) -> None:
    """A scored failure is acceptable only when causes.json says the scenario does not apply to
    the target or that the suite itself gets the verdict wrong; anything else is ours to fix."""
    run = suite(target, revision)
    unexplained = {
        s.name: [f"{c.id}: {c.message[:300]}" for c in s.failed_checks]
        for s in run.scored()
        if not explained(s, target)
    }
    assert not unexplained, json.dumps(unexplained, indent=1)


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_no_cause_is_kept_for_a_scenario_that_passes(
    suite: RunSuite, target: str, revision: str
) -> None:
    """A failure's curated cause goes once the scenario passes, so the page never explains a
    failure that is gone (a `false_pass` note stays: it explains a pass)."""
    run = suite(target, revision)
    stale = [
        s.name
        for s in run.scenarios.values()
        if s.passed and (found := curated(s, target)) and not found.get("false_pass")
    ]
    assert not stale, stale


def test_the_expected_lists_name_scenarios_of_their_requirement_set(node_bin: Path) -> None:
    assert set(EXPECTED) == set(TARGETS)
    for revision in REVISIONS:
        scored, not_scored = requirements(node_bin, revision)
        for target, by_revision in EXPECTED.items():
            listed = by_revision[revision]
            assert len(listed) == len(set(listed)), (target, revision)
            unknown = set(listed) - set(scored) - set(not_scored)
            assert not unknown, (target, revision, unknown)


__all__ = ["installed", "node_bin"]
