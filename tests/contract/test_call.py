"""The call pipeline: every outcome is a conforming result or an envelope naming the next step."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from drivable.contract import Principal
from drivable.contract.durable import ConfirmToken
from drivable.contract.envelope import envelope_schema
from drivable.contract.validation import MAX_NAME_CHARS, Counterpart, counterpart
from drivable.kinds import KindModel, absence
from drivable.kinds._pydantic import validate
from tests.contract.example_server import contract

ENVELOPE = envelope_schema(list(contract.codes))
LEAKS = re.compile(
    r"sqlite|OperationalError|Traceback|/srv/|\.py(?![\w-])|RuntimeError|Exception", re.I
)


# texts that cannot themselves match LEAKS: a caller's own words echoed back are not a leak
# (hypothesis draws strings from the code's constants too; caselaw's twin test met "SQLITE")
def _clean(size: int) -> st.SearchStrategy[str]:
    return st.text(max_size=size).filter(lambda t: not LEAKS.search(t))


def assert_conforms(tool: str, structured: dict[str, Any], is_error: bool) -> None:
    if is_error:
        jsonschema.validate(structured, ENVELOPE)
        assert structured["hint"], "every rejection names the next step"
        names = set(contract.tools) | {"tools/list"}
        assert any(n in structured["hint"] for n in names) or structured.get("repair"), structured
        repair = structured.get("repair")
        if repair:
            target = contract.tools[repair["tool"]]
            contract.validate(target.name, repair["arguments"])  # literally callable
    else:
        jsonschema.validate(structured, contract.tools[tool].output_schema)
    assert not LEAKS.search(json.dumps(structured)), structured


async def test_success_carries_notes_for_repaired_spellings() -> None:
    out = await contract.call(
        "search_notes",
        {"query": "x", "date_from": "2026", "date_to": "1. 3. 2026", "limit": "500"},
    )
    assert not out.is_error
    assert_conforms("search_notes", out.structured, False)
    notes = out.structured["notes"]
    assert "date_from: Read '2026' as 2026-01-01." in notes
    assert "date_to: Read '1. 3. 2026' as 2026-03-01." in notes
    assert any(n.startswith("limit: ") and "20" in n for n in notes)


async def test_an_unknown_property_spelled_another_way_names_it_and_a_callable_repair() -> None:
    out = await contract.call("search_notes", {"query": "x", "dateFrom": "2026-01-01"})
    assert out.is_error
    env = out.structured
    assert env["code"] == "invalid_arguments"
    assert env["issues"][0]["path"] == "dateFrom"
    assert "date_from" in env["issues"][0]["message"]
    assert env["repair"] == {
        "next_step": "resend_with_corrected_property_names",
        "tool": "search_notes",
        "arguments": {"query": "x", "date_from": "2026-01-01"},
    }
    repaired = await contract.call(env["repair"]["tool"], env["repair"]["arguments"])
    assert not repaired.is_error


async def test_an_ambiguous_date_is_asked_about_with_both_readings() -> None:
    out = await contract.call("search_notes", {"query": "x", "date_from": "01/02/2026"})
    issue = out.structured["issues"][0]
    assert issue["code"] == "ambiguous_date"
    assert issue["readings"] == ["2026-02-01", "2026-01-02"]
    assert "repair" not in out.structured  # never guessed
    assert "2026-02-01" in out.structured["hint"] and "2026-01-02" in out.structured["hint"]


async def test_a_placeholder_in_a_required_id_is_named_as_such() -> None:
    out = await contract.call("get_note", {"note_id": "string"})
    issue = out.structured["issues"][0]
    assert issue == {
        "path": "note_id",
        "code": "missing_property",
        "message": "'string' is a placeholder, not a real note id: it reads as no value. "
        "Send the real value.",
        "received": "string",
    }


async def test_a_domain_error_carries_its_repair() -> None:
    out = await contract.call("get_note", {"note_id": "note_99"})
    assert out.structured["code"] == "not_found"
    assert out.structured["repair"]["tool"] == "search_notes"
    assert_conforms("get_note", out.structured, True)


async def test_an_unexpected_exception_discloses_nothing() -> None:
    out = await contract.call("check_failure", {})
    env = out.structured
    assert env["code"] == "internal_error"
    assert env["temporary"] is True and env["retry_after_ms"] >= 0
    assert re.fullmatch(r"[0-9a-f]{16}", env["request_id"])
    assert env["request_id"] in env["hint"]
    assert_conforms("check_failure", env, True)


UNKNOWN_NAMES = st.from_regex(r"[a-z]{2,12}(_[a-z]{2,8})?", fullmatch=True).filter(
    lambda name: (
        counterpart(name, sorted(contract.tools["search_notes"].input_model.model_fields))
        == Counterpart()
        and name not in contract.tools["create_notes"].input_model.model_fields
    )
)


@given(
    name=UNKNOWN_NAMES,
    value=st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        _clean(8).filter(lambda t: "\x00" not in t),  # NUL is the boundary's, before any repair
        st.booleans(),
    ),
)
@settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
async def test_a_read_repairs_an_unknown_property_by_leaving_it_out_and_a_write_does_not(
    name: str, value: Any
) -> None:
    read = (await contract.call("search_notes", {"query": "x", name: value})).structured
    assert read["code"] == "invalid_arguments"
    assert read["repair"] == {
        "next_step": "resend_without_unknown_properties",
        "tool": "search_notes",
        "arguments": {"query": "x"},
    }
    assert name in read["hint"]
    # the call before its label: shown the label first, the real model called it as a tool
    assert list(read["repair"]) == ["tool", "arguments", "next_step"]
    assert not (await contract.call("search_notes", read["repair"]["arguments"])).is_error
    # leaving a property out of a mutation changes what it does (a `dry_run` that it does not
    # take, left out, would run it for real): only the caller may decide
    write = (await contract.call("create_notes", {"drafts": [], name: value})).structured
    assert write["code"] == "invalid_arguments" and "repair" not in write


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []


@given(
    name=st.text(
        st.characters(blacklist_categories=("Cs", "Cc", "Cf")),
        min_size=MAX_NAME_CHARS + 1,
        max_size=2000,
    ).filter(lambda n: "." not in n),
    twin=st.booleans(),
)
@settings(
    max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
async def test_a_name_longer_than_any_property_is_cut_in_what_comes_back_and_still_left_out(
    name: str, twin: bool
) -> None:
    # an overlong name is quoted cut in the issue, its path and the hint, never whole; the repair
    # still leaves the real name out. Two names that cut the same are not told apart: no repair.
    sent = {"query": "x", name: 1} | ({name + "2": 2} if twin else {})
    out = await contract.call("search_notes", sent)
    env = out.structured
    assert env["code"] == "invalid_arguments"
    assert not any(name in text for text in _strings(env))
    assert all(len(issue["path"]) <= MAX_NAME_CHARS for issue in env["issues"])
    assert name[: MAX_NAME_CHARS - 1] + "…" in env["hint"] + env["issues"][0]["message"]
    if twin:
        assert "repair" not in env
    else:
        assert env["repair"]["arguments"] == {"query": "x"}
        assert not (await contract.call("search_notes", env["repair"]["arguments"])).is_error


async def test_an_unknown_tool_names_the_tool_it_spells_and_guesses_none() -> None:
    out = await contract.call("searchNote", {"query": "x"})
    assert out.structured["code"] == "unknown_tool"
    assert out.structured["repair"]["tool"] == "search_notes"
    # a near miss by characters is another name: the tools are listed, none is guessed
    typo = await contract.call("serch_notes", {"query": "x"})
    assert "repair" not in typo.structured
    assert typo.structured["hint"].startswith("Call one of: ")


@given(
    wrapper=st.sampled_from(["repair", "next_call", "call", "zz_apply"]),
    keyed=st.booleans(),
    arguments=st.sampled_from(
        [
            ({"query": "x"}, True),
            ({"query": "x", "limit": 3}, True),
            ({"query": 5}, False),  # not as the tool takes it: no repair built on a guess
            ({"quer": "x"}, False),
        ]
    ),
    tool=st.sampled_from(["search_notes", "no_such_tool"]),
)
@settings(max_examples=60, deadline=None)
async def test_a_call_sent_wrapped_in_a_tool_named_after_it_is_offered_unwrapped(
    wrapper: str, keyed: bool, arguments: tuple[dict[str, Any], bool], tool: str
) -> None:
    # the real model sent {"name": "repair", "arguments": {"repair": {"tool": "get_invoice", ...}}}
    sent, valid = arguments
    inner = {"tool": tool, "arguments": sent}
    out = (await contract.call(wrapper, {wrapper: inner} if keyed else inner)).structured
    assert out["code"] == "unknown_tool"
    if valid and tool == "search_notes":
        assert out["repair"] == {
            "tool": "search_notes",
            "arguments": sent,
            "next_step": "send_the_call_it_wraps",
        }
        assert not (await contract.call("search_notes", out["repair"]["arguments"])).is_error
        assert "search_notes" in out["hint"]
    else:
        assert "repair" not in out


async def test_an_oversized_payload_is_refused_with_the_limit_and_a_reference_hint() -> None:
    out = await contract.call("search_notes", {"query": "x" * (contract.max_inline_bytes + 10)})
    env = out.structured
    assert env["code"] == "payload_too_large"
    assert env["details"]["limit_bytes"] == contract.max_inline_bytes
    assert "reference" in env["hint"]
    assert not re.search(r"shorten|shrink|truncate|smaller|rewrite", env["hint"], re.I)


async def test_insufficient_scope_names_the_required_scopes() -> None:
    from pydantic import BaseModel, ConfigDict

    from drivable.contract import READ_ONLY, Call, Contract, Summary
    from drivable.kinds import KindModel

    scoped = Contract(
        "s",
        version="1",
        summary=Summary(text="t", does=["t"], does_not=["u"]),
        settings_url="https://example.test/settings",
    )

    class In(KindModel):
        query: str

    class Out(BaseModel):
        model_config = ConfigDict(extra="forbid")
        ok: bool

    @scoped.tool(
        name="search_secrets",
        title="Search secrets",
        effects=READ_ONLY,
        scopes=["secrets:read"],
        description='Search secret things by words. Needs secrets:read. Example: {"query": "<query>"}.',
    )
    async def search(args: In, call: Call) -> Out:
        return Out(ok=True)

    refused = await scoped.call(
        "search_secrets", {"query": "x"}, principal=Principal("u1", frozenset())
    )
    assert refused.structured["code"] == "insufficient_scope"
    assert refused.structured["details"]["required_scopes"] == ["secrets:read"]
    assert "https://example.test/settings" in refused.structured["hint"]
    allowed = await scoped.call(
        "search_secrets", {"query": "x"}, principal=Principal("u1", frozenset({"secrets:read"}))
    )
    assert allowed.structured == {"ok": True}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | _clean(40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_clean(12), inner, max_size=4),
    max_leaves=12,
)
spellings = st.sampled_from(
    [
        "4 000",
        "1,234",
        "01/02/2026",
        "1. 10. 2026",
        "2026",
        "n/a",
        "string",
        "<value>",
        "ano",
        "note_1",
        "note_xxx",
        "",
        " ",
        "c1.invented",
        "9999-12-31",
        "'; DROP TABLE notes; --",
        "../../etc/passwd",
    ]
)
argument_maps = st.dictionaries(
    st.sampled_from(
        ["query", "date_from", "date_to", "limit", "detail", "note_id", "flag", "date_form", "x"]
    ),
    spellings | json_values,
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(["search_notes", "get_note"]), arguments=argument_maps)
async def test_every_outcome_conforms_and_names_the_next_step(
    tool: str, arguments: dict[str, Any]
) -> None:
    out = await contract.call(tool, arguments)
    assert_conforms(tool, out.structured, out.is_error)
    if out.is_error and out.structured["code"] == "invalid_arguments":
        for issue in out.structured["issues"]:
            assert issue["path"], "every issue names its field"


def test_validate_is_the_handlers_own_reading() -> None:
    validated = contract.validate("search_notes", {"query": "x", "date_to": "2020"})
    assert validated.value.date_to.isoformat() == "2020-12-31"
    assert validated.notes == ["date_to: Read '2020' as 2020-12-31."]
    with pytest.raises(ValidationError):
        contract.validate("search_notes", {"query": "x", "date_to": "01/02/2026"})


def test_an_echoed_next_call_is_canonical_and_callable() -> None:
    echoed = contract.next_call("search_notes", {"query": "budget", "date_from": "2026-01-01"})
    assert echoed.tool == "search_notes"
    assert contract.validate(echoed.tool, echoed.arguments).notes == []
    with pytest.raises(ValueError, match="not canonical"):
        contract.next_call("search_notes", {"query": "budget", "date_from": "1. 1. 2026"})
    with pytest.raises(ValueError, match="unknown tool"):
        contract.next_call("no_such_tool", {})
    with pytest.raises(ValueError, match="do not validate"):
        contract.next_call("get_note", {})


async def test_null_for_a_required_property_reads_as_missing() -> None:
    out = await contract.call("search_notes", {"query": None})
    (issue,) = out.structured["issues"]
    assert issue["code"] == "missing_property"
    assert issue["received"] is None


@pytest.mark.parametrize("token", ["", "string", "n/a", "<confirm_token>"])
async def test_a_placeholder_confirm_token_is_no_token_and_names_the_confirmed_call(
    token: str,
) -> None:
    """A model that fills every property sends one; without a token the call can only be
    refused, so the placeholder is read as none and the refusal carries a real token."""
    out = await contract.call(
        "delete_note", {"note_id": "note_3", "dry_run": False, "confirm_token": token}
    )
    assert out.structured["code"] == "confirmation_required"
    sent = out.structured["repair"]["arguments"]
    assert sent["dry_run"] is False and sent["confirm_token"] not in {token, None}
    assert out.structured["details"]["preview"]["status"] == "would_delete"


class _Note(KindModel):
    reason: str | None = None  # a plain optional text: bound to Kind("text")
    confirm_token: ConfirmToken = None


@given(value=st.sampled_from(sorted(absence.PLACEHOLDERS)))
def test_only_a_field_with_a_pinned_intent_reads_a_placeholder_as_absence_on_a_write(
    value: str,
) -> None:
    """Elsewhere on a write a placeholder may hide a value the user meant: it is asked about."""
    with pytest.raises(ValidationError) as asked:
        validate(_Note, {"reason": value}, intent="write")
    assert asked.value.errors()[0]["type"] == "placeholder_value"
    read = validate(_Note, {"confirm_token": value}, intent="write")
    assert read.value.confirm_token is None
    assert read.notes == [f"confirm_token: Read {value!r} as no value."]


@pytest.mark.parametrize(
    ("sent", "meant"),
    [
        ("find_notes", "search_notes"),
        ("fetch_note", "get_note"),
        ("remove_note", "delete_note"),
        ("read_note", "get_note"),
    ],
)
async def test_an_unknown_tool_is_matched_through_verb_synonyms(sent: str, meant: str) -> None:
    out = await contract.call(sent, {})
    assert out.structured["code"] == "unknown_tool"
    assert f"is what this server calls {meant}: call {meant}." in out.structured["hint"]
