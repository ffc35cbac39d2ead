"""A failure returned as a success is scored as the failure a model reads (decision 0026)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from mcp_types import CallToolResult, TextContent

from drivable.contract.envelope import reads_as_error
from drivable.eval.solver import observation_of
from drivable.eval.turns import ToolCall

WORDS = st.text(st.characters(categories=("L", "N", "Zs", "P")), max_size=60)
OPENINGS = st.sampled_from(["Error: ", "error: ", "ERROR - ", "Exception: ", "  Error:"])
TRACEBACK = "Traceback (most recent call last):\n  File ..."


@given(opening=OPENINGS, rest=WORDS)
def test_a_text_that_opens_as_an_error_is_one_in_text_or_in_result(opening: str, rest: str) -> None:
    said = opening + rest
    assert reads_as_error([said])
    assert reads_as_error([said], {"result": said})
    assert reads_as_error([], {"result": said})
    assert reads_as_error([TRACEBACK + rest])


@given(data=st.dictionaries(st.text(max_size=8), st.integers() | WORDS, max_size=4), rest=WORDS)
def test_data_and_sentences_about_errors_are_not_errors(data: dict[str, object], rest: str) -> None:
    assert not reads_as_error([json.dumps(data)], data if set(data) != {"result"} else None)
    for said in (f"Errors: 0 {rest}", f"error rate 2 % {rest}", f"No error. {rest}", ""):
        assert not reads_as_error([said]), said


def _result(text: str, structured: dict[str, object]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured, is_error=False
    )


def test_the_solver_observes_an_error_text_success_as_an_error() -> None:
    call = ToolCall("share_document", {"document_id": "d_1"})
    said = "Error: folder not found: /nope"
    assert observation_of(call, _result(said, {"result": said})).is_error
    assert not observation_of(call, _result('{"ok": true}', {"ok": True})).is_error


@given(opening=OPENINGS, rest=WORDS)
def test_every_failure_the_eval_reads_the_auditor_reads_too(opening: str, rest: str) -> None:
    from drivable.audit.probes.envelope import ERROR_TEXT

    assert ERROR_TEXT.match(opening + rest) and ERROR_TEXT.match(TRACEBACK + rest)
