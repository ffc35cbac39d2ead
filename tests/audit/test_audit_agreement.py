"""Where the checklist and the runtime disagree, the runtime wins (docs/decisions/0027): no rule
asks a drivable author for what the runtime strips or refuses on purpose, and each rule still
fires on a server that has the defect (tests/audit/servers/blindspots.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.audit.probes.plan import same_shape_other
from drivable.audit.runner import audit_surface
from tests.audit.conftest import SERVERS, Run, audit_json
from tests.audit.servers.blindspots import PLANTED
from tests.cli import CLI

ROOT = Path(__file__).resolve().parents[2]
FASTMCP_PYTHON = ROOT / "var" / "thirdparty" / "py-fastmcp" / "bin" / "python"
# What the runtime leaves out of tools/list or never advertises for a static catalog.
ASKS_WHAT_THE_RUNTIME_STRIPS = re.compile(
    r"""["`]?format["`]?\s*:\s*["`]?date|Add `"\$schema"|`listChanged: true` if""", re.I
)
DISAGREEING = {"3.dialect", "9.list-changed"}


@pytest.fixture(scope="module")
def blindspots_run() -> Run:
    return audit_json("--", sys.executable, str(SERVERS / "blindspots.py"))


@pytest.mark.parametrize(("rule", "subject"), PLANTED)
def test_each_rule_still_fires_where_it_should(
    blindspots_run: Run, rule: str, subject: str
) -> None:
    assert (rule, subject) in blindspots_run.rules(), f"{rule} on {subject} was not reported"


def test_the_findings_that_fire_ask_for_nothing_the_runtime_strips(blindspots_run: Run) -> None:
    for f in blindspots_run.report["findings"]:
        assert not ASKS_WHAT_THE_RUNTIME_STRIPS.search(f["remediation"]), f
    date = next(
        f
        for f in blindspots_run.report["findings"]
        if f["rule"] == "3.strict-types" and f["subject"] == "tool:read_events"
    )
    assert "YYYY-MM-DD" in date["remediation"]


def test_an_error_read_from_a_wrapped_result_names_the_probe_and_the_text(
    blindspots_run: Run,
) -> None:
    by_subject = {
        f["subject"]: f for f in blindspots_run.report["findings"] if f["rule"] == "6.tool-errors"
    }
    get_note = by_subject["tool:get_note"]
    assert get_note["severity"] == "major"
    assert get_note["evidence"]["probe"] == "unknown-id"
    assert get_note["evidence"]["sent"]["note_id"] != "n1"  # well formed, known to nobody
    assert get_note["evidence"]["answer"]["structuredContent"]["result"].startswith("Error:")
    assert by_subject["tool:count_words"]["severity"] == "major"


REFERENCE_TARGETS: dict[str, list[str]] = {
    "caselaw": [sys.executable, "-m", "drivable.servers.caselaw"],
    "billing": [sys.executable, "-m", "drivable.servers.billing"],
    "bookmarks_drivable": [
        *CLI,
        "serve",
        str(ROOT / "examples" / "bookmarks_drivable.py") + ":contract",
    ],
    "bookmarks_fastmcp": [str(FASTMCP_PYTHON), str(ROOT / "examples" / "bookmarks_fastmcp.py")],
}


@pytest.mark.parametrize("probes", ["--probes", "--no-probes"])
@pytest.mark.parametrize("name", sorted(REFERENCE_TARGETS))
def test_reference_servers_and_examples_are_asked_nothing_the_runtime_strips(
    name: str, probes: str, tmp_path: Path
) -> None:
    if name == "bookmarks_fastmcp" and not FASTMCP_PYTHON.exists():
        pytest.skip("FastMCP is installed by the thirdparty tests (var/thirdparty/py-fastmcp)")
    run = audit_json(
        "--env",
        f"BOOKMARKS_DB={tmp_path / 'bookmarks.sqlite'}",
        "--",
        *REFERENCE_TARGETS[name],
        extra=(probes,),
    )
    assert run.code in (0, 1), run.stderr[-2000:]
    wrong = [
        (f["rule"], f["subject"], f["remediation"])
        for f in run.report["findings"]
        if f["rule"] in DISAGREEING or ASKS_WHAT_THE_RUNTIME_STRIPS.search(f["remediation"])
    ]
    assert wrong == []


def _surface(prop: dict[str, Any], discovered: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"date_from": prop}, "additionalProperties": False}
    surface: dict[str, Any] = {"tools": [{"name": "search_events", "inputSchema": schema}]}
    if discovered is not None:
        whole = {**schema, "properties": {"date_from": discovered}}
        surface["discover"] = {
            "_meta": {"dev.drivable/tools": {"search_events": {"inputSchema": whole}}}
        }
    return surface


def _dates(surface: dict[str, Any]) -> list[str]:
    _, findings = audit_surface(surface, offline=True)
    return [f.remediation for f in findings if f.rule == "3.strict-types"]


def test_a_date_format_published_in_discovery_counts_and_none_is_asked_for() -> None:
    plain = {"type": "string", "description": "First day."}
    assert _dates(_surface(plain, {**plain, "format": "date"})) == []
    (fix,) = _dates(_surface(plain))
    assert "format" not in fix and "YYYY-MM-DD" in fix
    assert _dates(_surface({**plain, "description": "First day, YYYY-MM-DD."})) == []


DRAFT_07_ONLY = [
    {"items": [{"type": "string"}]},
    {"additionalItems": False, "items": {"type": "string"}},
    {"dependencies": {"a": ["b"]}},
    {"$recursiveRef": "#"},
    {"exclusiveMinimum": True, "minimum": 0},
]


def _dialect(schema: dict[str, Any]) -> list[tuple[str, str]]:
    surface = {"tools": [{"name": "tag_note", "inputSchema": schema}]}
    _, findings = audit_surface(surface, offline=True)
    return [(f.severity, f.remediation) for f in findings if f.rule == "3.dialect"]


@given(
    st.sampled_from(DRAFT_07_ONLY),
    st.sampled_from([None, "https://json-schema.org/draft/2020-12/schema"]),
)
def test_no_schema_keyword_is_asked_for_and_other_drafts_are_named(
    node: dict[str, Any], declared: str | None
) -> None:
    clean: dict[str, Any] = {"type": "object", "properties": {"tags": {"type": "array"}}}
    if declared:
        clean["$schema"] = declared
    assert _dialect(clean) == []  # 2020-12, said or by MCP's default
    mixed = {**clean, "properties": {"tags": {"type": "array", **node}}}
    found = _dialect(mixed)
    assert found == [] if declared else [s for s, _ in found] == ["minor"]
    older = {**clean, "$schema": "http://json-schema.org/draft-07/schema#"}
    assert [s for s, _ in _dialect(older)] == ["nit"]
    for _, fix in _dialect(mixed) + _dialect(older):
        assert not ASKS_WHAT_THE_RUNTIME_STRIPS.search(fix)


@given(
    st.one_of(
        st.from_regex(r"[a-z]{1,4}_?[0-9]{1,8}", fullmatch=True),
        st.from_regex(r"[A-Za-z]{1,12}", fullmatch=True),
        st.uuids().map(str),
        st.integers(min_value=0, max_value=10**12),
    )
)
def test_an_unknown_id_has_the_shape_of_a_known_one(value: Any) -> None:
    other = same_shape_other(value)
    assert other is not None and other != value
    if isinstance(value, str):
        assert len(other) == len(value)
        for a, b in zip(value, other, strict=True):
            assert (a.isdigit(), a.isalpha(), a.isupper()) == (
                b.isdigit(),
                b.isalpha(),
                b.isupper(),
            )
            if not a.isalnum():
                assert a == b
