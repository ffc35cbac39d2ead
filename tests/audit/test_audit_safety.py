"""Safety: the audit calls a tool with arguments only when it is known not to mutate.

The recorder server writes down every call it receives, so what was called is proved by the
server, not by the report.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.audit.safety import judge
from drivable.verbs import MUTATING_VERBS
from tests.audit.conftest import SERVERS, audit_json
from tests.audit.servers.recorder import NETWORK, SAFE, TOOLS, WRITES


def _recorded(path: Path) -> set[str]:
    return set(path.read_text().split()) if path.exists() else set()


def test_without_flags_only_tools_known_not_to_mutate_are_called(tmp_path: Path) -> None:
    record = tmp_path / "calls.txt"
    run = audit_json("--", sys.executable, str(SERVERS / "recorder.py"), str(record))
    assert run.code in (0, 1), run.stderr[-2000:]
    assert _recorded(record) == SAFE
    probes = run.report["target"]["probes"]
    assert set(probes["called_tools"]) == SAFE
    skipped = probes["skipped_tools"]
    for name in WRITES:
        assert "--allow-writes" in skipped[name], (name, skipped.get(name))
    for name in NETWORK:
        assert "--allow-network" in skipped[name], (name, skipped.get(name))
    assert "`delete`" in skipped["branch_delete"] and "readOnlyHint" in skipped["branch_delete"]
    # An error sent as a success is a finding, and the first call is not counted a success.
    errors = [
        f
        for f in run.report["findings"]
        if f["rule"] == "6.tool-errors" and f["subject"] == "tool:lookup_entity"
    ]
    assert errors and "isError: false" in errors[0]["summary"]


def test_the_flags_open_what_they_name_and_no_more(tmp_path: Path) -> None:
    writes = tmp_path / "writes.txt"
    audit_json(
        "--", sys.executable, str(SERVERS / "recorder.py"), str(writes), extra=("--allow-writes",)
    )
    assert _recorded(writes) == SAFE | WRITES
    both = tmp_path / "both.txt"
    audit_json(
        "--",
        sys.executable,
        str(SERVERS / "recorder.py"),
        str(both),
        extra=("--allow-writes", "--allow-network"),
    )
    assert _recorded(both) == SAFE | WRITES | NETWORK


VERBS = sorted(
    MUTATING_VERBS
    - {
        "open",
        "close",
        "run",
        "start",
        "check",
        "mark",
        "label",
        "tag",
        "link",
        "order",
        "book",
        "message",
        "email",
        "post",
        "share",
        "pin",
        "star",
        "like",
        "block",
        "stage",
        "schedule",
        "format",
        "export",
        "download",
        "render",
        "switch",
        "lock",
        "apply",
        "sync",
        "import",
        "follow",
        "clone",
        "init",
        "toggle",
        "new",
        "make",
        "store",
        "change",
        "assign",
    }
)
NOUNS = st.sampled_from(["branch", "note", "repo", "file", "entity", "git", "slack", "user"])


@settings(deadline=None)
@given(
    verb=st.sampled_from(VERBS),
    before=st.lists(NOUNS, max_size=2),
    after=st.lists(NOUNS, max_size=2),
    read_only=st.sampled_from([True, None]),
)
def test_a_strong_mutating_verb_in_any_position_is_never_callable(
    verb: str, before: list[str], after: list[str], read_only: bool | None
) -> None:
    name = "_".join([*before, verb, *after])
    ann = {} if read_only is None else {"readOnlyHint": read_only}
    verdict = judge(
        {"name": name, "annotations": ann, "description": "Harmless."},
        allow_writes=False,
        allow_network=True,
    )
    assert not verdict.callable and verdict.needs == "writes", name


@settings(deadline=None)
@given(noun=NOUNS, verb=st.sampled_from(["get", "list", "search", "read", "describe"]))
def test_a_leading_read_verb_owns_its_object(noun: str, verb: str) -> None:
    for obj in (noun, "order", "tag", "message"):
        verdict = judge(
            {
                "name": f"{verb}_{obj}",
                "annotations": {"readOnlyHint": True, "openWorldHint": False},
            },
            allow_writes=False,
            allow_network=False,
        )
        assert verdict.callable, f"{verb}_{obj}"


def test_the_recorder_catalogue_is_partitioned() -> None:
    names = {t.name for t in TOOLS}
    assert names == SAFE | WRITES | NETWORK and not (SAFE & WRITES) and not (SAFE & NETWORK)
