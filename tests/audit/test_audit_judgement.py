"""What counts as a leak, an error sent as a success, and a confirmed suspicion: the judgement alone."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.audit.model import Finding
from drivable.audit.probes.call import ProbeCall
from drivable.audit.probes.envelope import error_text_of_success
from drivable.audit.probes.leaks import leaks_in
from drivable.audit.probes.state import ProbeState
from drivable.audit.reconcile import reconcile

SQL_TOOL = {
    "name": "run_query",
    "description": "Run a read-only SQL query against the warehouse.",
    "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
}
NOTES_TOOL = {
    "name": "search_notes",
    "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
}


def _answer(text: str, *, error: bool = True, args: dict[str, Any] | None = None) -> ProbeCall:
    return ProbeCall(
        "placeholders",
        "t",
        args if args is not None else {"query": "string"},
        "error-result" if error else "success",
        result={"content": [{"type": "text", "text": text}], "isError": error},
    )


def test_a_sql_message_from_a_sql_tool_is_its_answer_not_a_leak() -> None:
    parser = 'sqlite3.OperationalError: near "string": syntax error'
    assert leaks_in(_answer(parser), SQL_TOOL) == []
    assert [c for c, *_ in leaks_in(_answer(parser), NOTES_TOOL)] == ["sql/driver error"]


def test_a_validation_message_that_names_the_field_is_feedback() -> None:
    dump = "1 validation error for search_notesArguments\nquery\n  Field required [input_value={}]"
    assert leaks_in(_answer(dump), NOTES_TOOL) == []
    unnamed = "1 validation error for Model [input_value={}]"
    assert [(c, s) for c, s, _ in leaks_in(_answer(unnamed, args={}), NOTES_TOOL)] == [
        ("framework validation dump", "minor")
    ]


def test_a_traceback_is_critical_everywhere() -> None:
    trace = 'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in f'
    for tool in (SQL_TOOL, NOTES_TOOL):
        assert ("traceback", "critical") in [(c, s) for c, s, _ in leaks_in(_answer(trace), tool)]


@settings(deadline=None)
@given(
    st.sampled_from(
        [
            "Error: no such note",
            "Failed to open file",
            "not found: n1",
            '{"error": "boom"}',
            "Unable to connect",
            "Invalid argument: x",
        ]
    )
)
def test_error_text_with_is_error_false_is_caught(text: str) -> None:
    assert error_text_of_success(_answer(text, error=False, args={"note_id": "n1"})) is not None


@settings(deadline=None)
@given(st.sampled_from(['{"notes": []}', "Found 3 notes", "2026-01-15T10:00:00Z", "hello"]))
def test_ordinary_answers_are_not_errors(text: str) -> None:
    assert error_text_of_success(_answer(text, error=False)) is None
    # Asked for an error-like thing (a demo of error messages), an error-like answer is the answer.
    demo = _answer("Error: Operation failed", error=False, args={"messageType": "error"})
    assert error_text_of_success(demo) is None


def _static(rule: str, tool: str, severity: str = "major") -> Finding:
    return Finding(rule, severity, f"tool:{tool}", "suspicion.", {"x": 1}, "fix.")  # type: ignore[arg-type]


def test_observed_behaviour_confirms_softens_or_drops_a_static_suspicion() -> None:
    tools = {n: {"name": n} for n in ("a", "b", "c", "d")}
    state = ProbeState(tools, allow_writes=True)
    state.observe("a", "unknown-property", "accepted")
    state.observe("b", "unknown-property", "refused")
    state.observe("c", "output", "prose")
    state.observe("d", "repeat", "refused")
    state.skipped["e"] = "not called without --allow-writes: ..."
    found = reconcile(
        [
            _static("3.closed-schemas", "a"),
            _static("3.closed-schemas", "b"),
            _static("3.closed-schemas", "e"),
            _static("3.output-schema", "c"),
            _static("3.idempotency-key", "d"),
        ],
        state,
        {"tools": list(tools.values())},
    )
    by = {(f.rule, f.subject): f for f in found}
    assert by[("3.closed-schemas", "tool:a")].severity == "major"
    assert "Confirmed" in by[("3.closed-schemas", "tool:a")].summary
    assert by[("3.closed-schemas", "tool:b")].severity == "minor"
    unconfirmed = by[("3.closed-schemas", "tool:e")]
    assert unconfirmed.severity == "minor" and "--allow-writes" in unconfirmed.summary
    assert ("3.output-schema", "tool:c") not in by
    assert ("3.idempotency-key", "tool:d") not in by


@settings(deadline=None)
@given(st.sampled_from(["critical", "major", "minor", "nit"]))
def test_offline_a_suspicion_is_never_above_minor(severity: str) -> None:
    (f,) = reconcile([_static("3.closed-schemas", "x", severity)], None, {"tools": []})
    assert f.severity in ("minor", "nit") and "no probe could confirm" in f.summary


def test_baselines_take_ids_the_server_listed_and_values_its_schema_names() -> None:
    from drivable.audit.probes.values import Knowledge, baseline_arguments

    know = Knowledge(dirs=("/srv/repo",))
    know.learn("search_notes", {"notes": [{"note_id": "n7", "title": "Taxes"}]})
    know.learn("list_courts", [{"id": "c-9", "name": "Supreme"}])
    get_note = {
        "name": "get_note",
        "inputSchema": {
            "type": "object",
            "properties": {"note_id": {"type": "string"}, "court_id": {"type": "string"}},
            "required": ["note_id", "court_id"],
        },
    }
    assert baseline_arguments(get_note, know) == {"note_id": "n7", "court_id": "c-9"}
    git_show = {
        "name": "git_show",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo_path": {"type": "string"},
                "revision": {"type": "string"},
                "mode": {"anyOf": [{"type": "boolean"}, {"type": "string"}]},
            },
            "required": ["repo_path", "revision", "mode"],
        },
    }
    assert baseline_arguments(git_show, know) == {
        "repo_path": "/srv/repo",
        "revision": "HEAD",
        "mode": False,
    }


@settings(deadline=None)
@given(
    st.sampled_from(["No changes staged for commit.", "ENOENT: no such file 'x'"]),
    st.booleans(),
    st.booleans(),
)
def test_an_unknown_property_answered_as_the_failed_baseline_was_never_looked_at(
    refusal: str, same_answer: bool, wrote_before: bool
) -> None:
    """Word for word the failed baseline's answer: the property was ignored (a closed schema is
    checked before the tool runs). Another answer, or a state a write changed, proves nothing."""
    from drivable.audit.probes.rejections import check_envelope

    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {}}}
    state = ProbeState({"t": tool}, allow_writes=True)
    baseline = _answer(refusal, args={})
    baseline.probe = "baseline"
    state.calls.append(baseline)
    if wrote_before:
        state.mutated.add("t")
    probe = _answer(refusal if same_answer else "Something else went wrong.", args={})
    probe.probe, probe.field = "unknown-property", "dv_unknown_property"
    check_envelope(probe, tool, state, "tool:t")
    ignored = same_answer and not wrote_before
    assert state.observed["t"]["unknown-property"] == ("ignored" if ignored else "inconclusive")
    (f,) = reconcile([_static("3.closed-schemas", "t")], state, {"tools": [tool]})
    assert (f.severity == "major") is ignored


@given(
    readings=st.lists(st.sampled_from(["2026-02-01", "2026-01-02"]), max_size=2, unique=True),
    at_field=st.booleans(),
)
def test_a_date_without_format_passes_only_when_the_server_asked_which_day(
    readings: list[str], at_field: bool
) -> None:
    """The finding "date-like plain string" is dropped when the ambiguous-date probe was answered
    with an ask at that field naming both readings (the server reads dates itself); otherwise it
    stays, at most minor and saying no probe confirmed it."""
    import json

    from drivable.audit.probes.rejections import check_envelope

    tool = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": {"day": {"type": "string"}}},
    }
    state = ProbeState({"t": tool}, allow_writes=True)
    issue = {"path": "day" if at_field else "other", "code": "ambiguous_date", "readings": readings}
    envelope = {"code": "invalid_arguments", "message": "m", "hint": "h", "issues": [issue]}
    probe = _answer(json.dumps(envelope), args={"day": "01/02/2026"})
    probe.probe, probe.field = "ambiguous-date", "day"
    check_envelope(probe, tool, state, "tool:t")
    finding = Finding(
        "3.strict-types",
        "minor",
        "tool:t",
        "Date-like `day` is a plain string with no `format` or `pattern`.",
        {"property": "day"},
        "fix.",
    )
    found = reconcile([finding], state, {"tools": [tool]})
    asked = at_field and len(readings) == 2
    assert (found == []) is asked
    if not asked:
        (kept,) = found
        assert kept.severity == "minor" and "no probe could confirm" in kept.summary
