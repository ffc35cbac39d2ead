"""The planted corpus: servers written for the auditor, each with its defects labelled.

Each one-defect server of tests/audit/servers/planted.py is audited with its clean twin, the
error-as-success server (blindspots.py) and the clean control (clean.py). A label says what a run
must report and at which level (`severe`: critical or major; `minor`: any), or must not report at
all (`none`). Scored as the field corpus is (tests/audit/corpus.py): recall over the labels, and
precision of every critical or major finding reported, labelled `severe` or not; a twin's
labels are all `none`, so any finding of the planted rule on it is a false one.

defects.py is not here: it holds twenty-nine defects at once (tests/audit/test_audit_servers.py
checks each is caught), and its other findings are true but unlabelled, which would make a
precision of it a count of what nobody labelled.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tests.audit.corpus import Expect, Label
from tests.audit.servers.blindspots import PLANTED as BLINDSPOTS

SERVERS = Path(__file__).resolve().parent / "servers"


@dataclass(frozen=True)
class Run:
    name: str  # the label key; `+writes` when audited with --allow-writes
    command: tuple[str, ...]
    flags: tuple[str, ...] = ()


def planted(case: str, *, clean: bool = False, writes: bool = False) -> Run:
    name = f"{case}{'-clean' if clean else ''}{'+writes' if writes else ''}"
    command = (sys.executable, str(SERVERS / "planted.py"), case, *(("--clean",) if clean else ()))
    return Run(name, command, ("--allow-writes",) if writes else ())


# case -> (rule, subjects, expected level by default, expected level with --allow-writes, why)
PLANTED: dict[str, tuple[str, tuple[str, ...], Expect, Expect | None, str]] = {
    "exclusive": (
        "3.required-optional",
        ("tool:find_customer",),
        "minor",
        None,
        "'Give either customer_id or email, not both': exclusive, and the schema allows both",
    ),
    "name": (
        "1.name",
        ("server",),
        "minor",
        None,
        "`NotesServer-v2.1`: a version and a class name in serverInfo.name",
    ),
    "modes": (
        "3.ap-mode-annotations",
        ("tool:manage_tags", "tool:manage_labels"),
        "severe",
        None,
        "an action enum holding `delete` (`purge`) on a tool annotated destructiveHint false "
        "(readOnlyHint true): a host approves it without asking",
    ),
    "feedback": (
        "6.field-feedback",
        ("tool:suggest_recipe",),
        "severe",
        None,
        "a wrong-typed value answers 'Invalid input.' with no field, where the server's other "
        "tools name theirs",
    ),
    "prose": (
        "3.strict-types",
        ("tool:search_issues",),
        "severe",
        None,
        "labels listed only in prose; the typo 'bgu' finds nothing and says nothing",
    ),
    "cursor": (
        "dv.substrate-leak",
        ("tool:list_events",),
        "severe",
        None,
        "a junk cursor is answered with the decoder's own words ('Incorrect padding', "
        "'Expecting value: line 1 column 1')",
    ),
    "keys": (
        "3.idempotency-key",
        ("tool:create_note",),
        "minor",
        "severe",
        "the key takes 'uuid' and a megabyte: offline only the unbounded schema shows, with "
        "--allow-writes the probes see both accepted",
    ),
    "orders": (
        "3.idempotency-key",
        ("tool:create_order",),
        "minor",
        "severe",
        "a create without a key: a retry places a second order, which only a valid baseline "
        "order (product from the listing, a day after the server's today, a window) can show",
    ),
}
WITH_WRITES = ("keys", "orders")

RUNS: list[Run] = [
    *(planted(case, clean=clean) for case in PLANTED for clean in (False, True)),
    *(planted(case, clean=clean, writes=True) for case in WITH_WRITES for clean in (False, True)),
    Run("blindspots", (sys.executable, str(SERVERS / "blindspots.py"))),
    Run("clean+writes", (sys.executable, str(SERVERS / "clean.py")), ("--allow-writes",)),
]

LABELS: dict[str, list[Label]] = {}
WRITES: dict[str, list[Label]] = {}
for _case, (_rule, _subjects, _expect, _writes, _why) in PLANTED.items():
    LABELS[_case] = [Label(_rule, s, _expect, _why) for s in _subjects]
    LABELS[f"{_case}-clean"] = [Label(_rule, s, "none", f"the twin: {_why}") for s in _subjects]
    if _writes is not None:
        WRITES[_case] = [Label(_rule, s, _writes, _why) for s in _subjects]
        WRITES[f"{_case}-clean"] = [Label(_rule, s, "none", f"the twin: {_why}") for s in _subjects]
SEVERE_BLINDSPOTS = {"6.tool-errors"}  # an error told as a success; the rest are minor or nits
LABELS["blindspots"] = [
    Label(rule, subject, "severe" if rule in SEVERE_BLINDSPOTS else "minor", "planted")
    for rule, subject in BLINDSPOTS
]
LABELS["clean"] = []
