"""The planted corpus: every blind spot of issue 37 caught, and nothing else reported at critical
or major; each twin clean of its planted rule (tests/audit/planted_corpus.py). The numbers are
written to var/audit-planted.json and quoted in docs/audit.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.audit.conftest import audit_json
from tests.audit.corpus import score
from tests.audit.planted_corpus import LABELS, RUNS, WRITES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    reports = {}
    for run in RUNS:
        done = audit_json("--", *run.command, extra=run.flags)
        assert done.code in (0, 1), f"{run.name}: exit {done.code}: {done.stderr[-1500:]}"
        assert "Traceback" not in done.stderr
        reports[run.name] = done.report
    return reports


def _finding(runs: dict[str, dict[str, Any]], run: str, rule: str, subject: str) -> dict[str, Any]:
    found = [f for f in runs[run]["findings"] if f["rule"] == rule and f["subject"] == subject]
    assert found, f"{run}: no {rule} on {subject}"
    return min(found, key=lambda f: ("critical", "major", "minor", "nit").index(f["severity"]))


def test_recall_and_precision_of_critical_and_major(runs: dict[str, dict[str, Any]]) -> None:
    result = score({k: v["findings"] for k, v in runs.items()}, LABELS, WRITES)
    summary = {
        "runs": len(runs),
        "labelled_true": result.labelled_true,
        "found_true": result.found_true,
        "recall": round(result.recall, 3),
        "severe_reported": result.severe_reported,
        "precision_critical_major": round(result.precision, 3),
        "false_critical": result.false_critical,
        "false_severe": result.false_severe,
        "false_any_severity": result.false_any,
        "missed": result.missed,
    }
    out = ROOT / "var" / "audit-planted.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    assert result.missed == [] and result.recall >= 0.98
    assert result.false_severe == [] and result.precision >= 0.98
    assert result.false_critical == []
    assert result.false_any == []  # no twin gets its planted rule, at any level


def test_exclusive_optionals_are_named_and_the_fix_is_one_union(
    runs: dict[str, dict[str, Any]],
) -> None:
    f = _finding(runs, "exclusive", "3.required-optional", "tool:find_customer")
    assert f["evidence"]["exclusive"] == ["customer_id", "email"]
    assert "discriminated union" in f["remediation"] and "cross-field" in f["remediation"]


def test_a_versioned_mixed_case_name_gets_a_plain_one(runs: dict[str, dict[str, Any]]) -> None:
    f = _finding(runs, "name", "1.name", "server")
    assert f["severity"] == "minor"
    assert "a version and host style" in f["summary"]
    assert "`notes-server`" in f["remediation"]


def test_a_destructive_mode_is_major_and_critical_under_read_only(
    runs: dict[str, dict[str, Any]],
) -> None:
    tags = _finding(runs, "modes", "3.ap-mode-annotations", "tool:manage_tags")
    labels = _finding(runs, "modes", "3.ap-mode-annotations", "tool:manage_labels")
    assert (tags["severity"], labels["severity"]) == ("major", "critical")
    assert tags["evidence"]["destructive"] == ["delete"]
    assert labels["evidence"]["destructive"] == ["purge"]


def test_the_tool_without_field_feedback_is_compared_with_its_siblings(
    runs: dict[str, dict[str, Any]],
) -> None:
    f = _finding(runs, "feedback", "6.field-feedback", "tool:suggest_recipe")
    assert f["evidence"]["probe"] == "wrong-type"
    assert f["evidence"]["sent"] == {"vegetarian": {"dv_wrong_type": True}}
    assert set(f["evidence"]["tools_naming_the_field"]) == {"search_recipes", "get_recipe"}
    assert not [
        g
        for g in runs["feedback"]["findings"]
        if g["rule"] == "6.field-feedback" and g["subject"] != "tool:suggest_recipe"
    ]


def test_a_typo_in_a_prose_listed_value_is_seen_finding_nothing(
    runs: dict[str, dict[str, Any]],
) -> None:
    f = _finding(runs, "prose", "3.strict-types", "tool:search_issues")
    assert f["severity"] == "major"
    assert f["evidence"]["sent"] == {"labels": ["bgu"]}
    assert f["evidence"]["listed_value"]["sent"] == {"labels": ["bug"]}
    # the static suspicion gives way to what the probe saw
    assert [g["severity"] for g in runs["prose"]["findings"] if g["rule"] == "3.strict-types"] == [
        "major"
    ]


def test_a_raw_exception_message_is_a_leak(runs: dict[str, dict[str, Any]]) -> None:
    f = _finding(runs, "cursor", "dv.substrate-leak", "tool:list_events")
    assert f["severity"] == "major" and "raw exception message" in f["summary"]
    assert f["evidence"]["probe"] in ("invented-cursor", "damaged-cursor")


def test_idempotency_keys_are_probed_only_with_writes(runs: dict[str, dict[str, Any]]) -> None:
    offline = _finding(runs, "keys", "3.idempotency-key", "tool:create_note")
    assert offline["severity"] == "minor" and "--allow-writes" in offline["summary"]
    probed = _finding(runs, "keys+writes", "3.idempotency-key", "tool:create_note")
    assert probed["severity"] == "major"
    sent = [p["sent"]["idempotency_key"] for p in probed["evidence"]["probes"]]
    assert sent == ["uuid", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk... (1,000,000 characters)"]
    assert len(json.dumps(runs["keys+writes"])) < 200_000  # the megabyte is not in the report
    assert "placeholder-key" not in runs["keys"]["target"]["probes"]["by_probe"]


def test_a_valid_baseline_order_shows_the_retry_placing_a_second(
    runs: dict[str, dict[str, Any]],
) -> None:
    f = _finding(runs, "orders+writes", "3.idempotency-key", "tool:create_order")
    assert f["severity"] == "major" and "Confirmed" in f["summary"]
    repeat = f["evidence"]["repeat"]
    assert "ord_1001" in repeat and "ord_1002" in repeat
    # the twin's baseline order was valid too (only a successful baseline is repeated), and its
    # key replayed the first order
    twin = runs["orders-clean+writes"]["target"]["probes"]["by_probe"]
    assert twin.get("repeat-baseline") == 1


REFERENCE: dict[str, list[str]] = {
    "example": [sys.executable, "-m", "drivable.eval.surfaces", "example"],
    "caselaw": [sys.executable, "-m", "drivable.servers.caselaw"],
    "billing": [sys.executable, "-m", "drivable.servers.billing"],
    "bookings": [sys.executable, "-m", "drivable.eval.surfaces", "bookings"],
    "tickets": [sys.executable, "-m", "drivable.eval.surfaces", "tickets"],
    "documents": [sys.executable, "-m", "drivable.eval.surfaces", "documents"],
}
BLIND_SPOT_RULES = {
    "1.name",
    "3.required-optional",
    "3.ap-mode-annotations",
    "3.strict-types",
    "6.field-feedback",
    "dv.substrate-leak",
    "3.idempotency-key",
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_the_reference_servers_carry_none_of_the_blind_spots(name: str, tmp_path: Path) -> None:
    """Audited with --allow-writes on scratch stores (caselaw's corpus stays in the user's
    cache: it is read-only and slow to build): no finding of the blind spots' rules, nothing at
    major or above, and every keyed write made a valid first call, so its retry was tested."""
    scratch = () if name == "caselaw" else ("--env", f"XDG_CACHE_HOME={tmp_path}")
    run = audit_json(*scratch, "--", *REFERENCE[name], extra=("--allow-writes",))
    assert run.code == 0, [(f["rule"], f["subject"]) for f in run.report["findings"]]
    assert [f for f in run.report["findings"] if f["rule"] in BLIND_SPOT_RULES] == []
    by_probe = run.report["target"]["probes"]["by_probe"]
    if name != "caselaw":  # caselaw only reads
        assert by_probe.get("repeat-baseline", 0) >= 1 and by_probe.get("wrong-type", 0) >= 1
    if name in ("billing", "bookings", "tickets", "example"):  # each has a keyed create
        assert by_probe.get("placeholder-key", 0) >= 1
