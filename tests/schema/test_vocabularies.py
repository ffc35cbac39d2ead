"""The property names the runtime binds to a kind (`drivable.kinds` NAME_BINDINGS) and the names
the audit reads as dates, cursors, ids and counts are two tables; where they overlap they agree."""

from __future__ import annotations

import pytest

from drivable.audit import heuristics as h
from drivable.kinds._registry import NAME_BINDINGS

# `*_from` / `*_to` bind the date kind only on a field declared as a date (the runtime knows the
# Python type); the audit reads other servers' schemas, where `reply_to` is a string, not a day.
TYPED_ONLY = {"*_from", "*_to"}
AUDIT_READS = {
    "date": lambda name: h.is_date_property(name, {"type": "string"}),
    "cursor": lambda name: h.is_cursor_property(name, {"type": "string"}),
    "uuid": lambda name: h.is_id_property(name, {"type": "string"}),
    "integer": lambda name: bool(h.NUMERIC_COUNT_NAME.match(name)),
}


@pytest.mark.parametrize(
    ("pattern", "kind"),
    [(p, k) for p, k, _ in NAME_BINDINGS if k in AUDIT_READS and p not in TYPED_ONLY],
)
@pytest.mark.parametrize("stem", ["due", "valid", "x"])
def test_a_name_the_runtime_binds_the_audit_reads_as_the_same_kind(
    pattern: str, kind: str, stem: str
) -> None:
    name = pattern.replace("*", stem)
    assert AUDIT_READS[kind](name), (name, kind)
