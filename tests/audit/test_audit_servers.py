"""The auditor against servers written for it: every planted defect caught, the clean one clean."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from drivable.audit.rules import REGISTRY
from tests.audit.conftest import DATA, SERVERS, Run, audit_json, drivable
from tests.audit.servers.defects import PLANTED, TOOLS

PINNED_FINDING_KEYS = {"rule", "severity", "subject", "summary", "evidence", "remediation"}


@pytest.mark.parametrize(("rule", "subject"), sorted(PLANTED))
def test_every_planted_defect_is_caught_with_its_rule_id(
    defects_run: Run, rule: str, subject: str
) -> None:
    assert (rule, subject) in defects_run.rules(), f"{rule} on {subject} was not reported"


def test_defects_report_has_the_pinned_shape_and_exit_1(defects_run: Run) -> None:
    assert defects_run.code == 1
    report = defects_run.report
    assert set(report) == {"target", "findings", "coverage"}
    for f in report["findings"]:
        assert set(f) == PINNED_FINDING_KEYS
        assert f["severity"] in ("critical", "major", "minor", "nit")
        assert f["rule"] in REGISTRY, f"{f['rule']} is not a registered rule"
        assert REGISTRY[f["rule"]].doc is not None, f"{f['rule']} has no doc"
        assert f["subject"] == "server" or f["subject"].split(":", 1)[0] in (
            "tool",
            "resource",
            "prompt",
        )
    assert [c["section"] for c in report["coverage"]] == list(range(1, 10))
    assert {c["status"] for c in report["coverage"]} <= {"findings", "ok", "not-checked"}


def test_defect_evidence_carries_payload_and_answer(defects_run: Run) -> None:
    leak = next(
        f
        for f in defects_run.report["findings"]
        if f["rule"] == "dv.substrate-leak"
        and f["severity"] == "critical"
        and f["subject"] == "tool:search_notes"
    )
    assert "sent" in leak["evidence"]
    assert "sqlite3.OperationalError" in json.dumps(leak["evidence"]["answer"])
    traceback = next(
        f
        for f in defects_run.report["findings"]
        if f["rule"] == "dv.substrate-leak" and f["subject"] == "tool:read_events"
    )
    assert traceback["severity"] == "critical"
    assert traceback["evidence"]["probe"] == "spelled-date"
    assert traceback["evidence"]["sent"]["date_from"] == "1. 10. 2026"
    repair = next(f for f in defects_run.report["findings"] if f["rule"] == "6.repair-callable")
    assert "lookup_note" in repair["summary"]
    # remediation names real tools
    assert "get_note_by_id" in repair["remediation"] or "search_notes" in repair["remediation"]


def test_runtime_only_defects_carry_what_the_probe_saw(defects_run: Run) -> None:
    by_key = {(f["rule"], f["subject"]): f for f in defects_run.report["findings"]}
    hang = by_key[("7.declare-duration", "tool:calculate")]
    assert hang["severity"] == "major"
    assert hang["evidence"]["timeout_s"] == 3 and hang["evidence"]["outcome"] == "timeout"
    assert hang["evidence"]["sent"] == {"expression": "9**9**9"}
    as_success = by_key[("6.tool-errors", "tool:get_note_by_slug")]
    assert as_success["evidence"]["answer"].get("isError") is not True
    assert "no note has the slug" in as_success["summary"]
    exclusive = by_key[("3.required-optional", "tool:read_log")]
    assert "exclude each other" in exclusive["summary"]
    assert exclusive["evidence"]["probe"] == "all-optionals"
    assert set(exclusive["evidence"]["sent"]) == {"first_lines", "last_lines"}
    cold = defects_run.report["target"]["probes"]["cold_start"]
    assert cold.get("first_call_tool") != "get_note_by_slug" or cold["first_call_outcome"] != (
        "success"
    )


def test_mutating_tools_are_not_called_without_allow_writes(defects_run: Run) -> None:
    skipped = defects_run.report["target"]["probes"]["skipped_tools"]
    assert {"create_note", "delete_note", "purge_notes"} <= set(skipped)


def test_both_eras_are_spoken_and_reported(defects_run: Run) -> None:
    eras = defects_run.report["target"]["eras"]
    assert eras["spoken"] == "2026-07-28"
    assert eras["handshake"]["status"] == "ok"
    assert eras["handshake"]["protocol_version"] == "2025-11-25"


def test_stdout_noise_is_critical_with_the_offending_line(defects_run: Run) -> None:
    f = next(f for f in defects_run.report["findings"] if f["rule"] == "1.stdout")
    assert f["severity"] == "critical"
    assert "notes server ready" in f["evidence"]["non_protocol_lines"]
    assert "Traceback" not in defects_run.stderr


def test_clean_server_has_no_critical_or_major_finding(clean_run: Run) -> None:
    assert clean_run.code == 0, clean_run.stderr
    severe = [f for f in clean_run.report["findings"] if f["severity"] in ("critical", "major")]
    assert severe == []
    probes = clean_run.report["target"]["probes"]
    assert probes["first_repair"]["status"] == "resolved in one hop"
    first_repair = probes["first_repair"]["evidence"]
    assert first_repair["rejected"]["answer"]["isError"] is True
    assert first_repair["repair_call"]["answer"].get("isError") is not True
    assert probes["cold_start"]["first_call_outcome"] == "success"
    assert probes["skipped_tools"] == {}  # --allow-writes probed the destructive tool too
    assert clean_run.report["target"]["client_capabilities"]["same_tools"] is True


def test_clean_server_over_http_in_both_eras(clean_http: str) -> None:
    run = audit_json("--url", clean_http)
    assert run.code == 0, run.stderr
    target = run.report["target"]
    assert target["transport"] == "http"
    assert target["eras"]["spoken"] == "2026-07-28"
    assert target["eras"]["handshake"]["status"] == "ok"
    assert not [f for f in run.report["findings"] if f["severity"] in ("critical", "major")]


def test_bearer_token_is_sent_and_its_absence_is_a_clean_exit_2(clean_http_with_token: str) -> None:
    refused = audit_json("--url", clean_http_with_token)
    assert refused.code == 2
    assert "HTTP 401" in refused.stderr and "--bearer-token" in refused.stderr
    assert "Traceback" not in refused.stderr
    run = drivable(
        "audit",
        "--format",
        "json",
        "--no-probes",
        "--url",
        clean_http_with_token,
        env={"DRIVABLE_BEARER_TOKEN": "drivable-test-token"},
    )
    assert run.code == 0, run.stderr
    assert run.report["target"]["bearer_token"] is True
    assert "drivable-test-token" not in run.stdout


def test_legacy_only_audit_speaks_the_handshake(clean_http: str) -> None:
    run = audit_json("--url", clean_http, extra=("--legacy",))
    assert run.code == 0, run.stderr
    assert run.report["target"]["era"] == "handshake"


def test_fail_on_changes_the_exit_code(clean_run: Run) -> None:
    assert any(f["severity"] == "minor" for f in clean_run.report["findings"])
    strict = audit_json(
        "--", sys.executable, str(SERVERS / "clean.py"), extra=("--fail-on", "minor", "--no-probes")
    )
    assert strict.code == 1


def test_sarif_validates_against_the_official_schema(defects_run: Run, tmp_path: Path) -> None:
    dump = tmp_path / "tools.json"
    dump.write_text(
        json.dumps(
            {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS]}
        )
    )
    run = drivable("audit", "--from-file", str(dump), "--format", "sarif")
    assert run.code == 1
    sarif = json.loads(run.stdout)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"3.honest-annotations", "3.closed-schemas"}
    assert {r["level"] for r in results} <= {"error", "warning", "note"}
    # Pinned to the audited file (code scanning needs a physical location), and to the subject.
    location = results[0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("tools.json")
    assert location["logicalLocations"][0]["fullyQualifiedName"].split(":")[0] in ("server", "tool")
    driver_rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in results} == driver_rules


def test_markdown_has_five_labelled_lines_per_finding_and_a_coverage_table(tmp_path: Path) -> None:
    dump = tmp_path / "tools.json"
    dump.write_text(
        json.dumps([t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS])
    )
    run = drivable("audit", "--from-file", str(dump), "--format", "markdown")
    text = run.stdout
    count = text.count("\n### F")
    assert count > 10
    for label in ("Severity", "Section", "Summary", "Evidence", "Remediation"):
        assert text.count(f"- **{label}:**") == count
    for section in range(1, 10):
        assert f"| §{section} " in text
    assert "| §6 Failure Recovery | not-checked |" in text


def test_from_file_is_static_only(tmp_path: Path) -> None:
    dump = tmp_path / "tools.json"
    dump.write_text(
        json.dumps(
            {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS]}
        )
    )
    run = drivable("audit", "--from-file", str(dump), "--format", "json")
    report = run.report
    assert report["target"]["transport"] == "file"
    rules = {f["rule"] for f in report["findings"]}
    assert "3.honest-annotations" in rules
    assert not rules & {"dv.substrate-leak", "6.symbolic-codes", "1.stdout"}


def test_text_is_the_rich_report(defects_run: Run, tmp_path: Path) -> None:
    dump = tmp_path / "tools.json"
    dump.write_text(
        json.dumps([t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS])
    )
    run = drivable("audit", "--from-file", str(dump), "--format", "text")
    assert "Findings (" in run.stdout and "Coverage" in run.stdout
    assert "3.honest-annotations" in run.stdout


def test_env_is_passed_explicitly_and_only_names_are_reported() -> None:
    run = audit_json(
        "--",
        sys.executable,
        str(SERVERS / "clean.py"),
        extra=("--env", "DRIVABLE_PROBE_SECRET=s3cr3t-value", "--no-probes"),
    )
    assert run.report["target"]["env_passed"] == ["DRIVABLE_PROBE_SECRET"]
    assert "s3cr3t-value" not in run.stdout


def test_bad_command_exits_2_with_a_message_not_a_traceback() -> None:
    run = drivable("audit", "--", "/nonexistent/server-binary")
    assert run.code == 2
    assert "cannot start" in run.stderr
    assert "Traceback" not in run.stderr


def test_unreachable_url_exits_2_with_a_message() -> None:
    from tests.audit.conftest import free_port

    run = drivable("audit", "--url", f"http://127.0.0.1:{free_port()}/mcp", "--format", "json")
    assert run.code == 2
    assert "drivable audit:" in run.stderr
    assert "Traceback" not in run.stderr


def test_server_that_dies_at_start_exits_2() -> None:
    run = drivable("audit", "--", sys.executable, "-c", "import sys; sys.exit(3)")
    assert run.code == 2
    assert "Traceback" not in run.stderr


def test_reference_caselaw_server_has_no_critical_or_major_finding() -> None:
    import importlib.util

    if importlib.util.find_spec("drivable.servers.caselaw.__main__") is None:
        pytest.skip("the caselaw reference server is not in this tree yet")
    run = audit_json("--", sys.executable, "-m", "drivable.servers.caselaw")
    assert run.code == 0, run.stderr[-2000:]
    severe = [
        (f["rule"], f["subject"])
        for f in run.report["findings"]
        if f["severity"] in ("critical", "major")
    ]
    assert severe == []


def test_a_command_that_is_not_a_server_exits_2_and_says_what_it_printed() -> None:
    run = drivable("audit", "--", sys.executable, "-c", "print('hello from not-a-server')")
    assert run.code == 2
    assert "hello from not-a-server" in run.stderr
    assert "Traceback" not in run.stderr


def test_no_other_era_speaks_once() -> None:
    run = audit_json(
        "--", sys.executable, str(SERVERS / "clean.py"), extra=("--no-other-era", "--no-probes")
    )
    assert run.code == 0, run.stderr
    assert "handshake" not in run.report["target"]["eras"]


def test_the_conformance_fixture_has_no_critical_or_major_finding(tmp_path: Path) -> None:
    """Served as the conformance suite serves it (HTTP, --insecure). Its sampling and elicitation
    tools refuse a client that does not declare those capabilities with -32021: that judges the
    request, not the tool's arguments, so they are reported as skipped with the reason."""
    from tests.interop.serving import serve_http

    with serve_http("tests.conformance.fixture:contract", tmp_path / "fixture.log") as url:
        run = audit_json("--url", url)
    assert run.code == 0, run.stderr[-2000:]
    severe = [
        (f["rule"], f["subject"], f["summary"])
        for f in run.report["findings"]
        if f["severity"] in ("critical", "major")
    ]
    assert severe == []
    skipped = run.report["target"]["probes"]["skipped_tools"]
    for tool, capability in (("test_sampling", "sampling"), ("test_elicitation", "elicitation")):
        assert f"needs the client capability {capability}" in skipped[tool], skipped
