"""Name bindings of the time kinds and email: the rows they added rebind no name an older row
bound, and they bind a field only when its Python type is the kind's own."""

from __future__ import annotations

import datetime as dt
import fnmatch
import uuid
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KindModel, bound_kind, validate
from drivable.kinds._registry import NAME_BINDINGS
from drivable.kinds.time_range import TimeRange

NEW_KINDS = {"time", "time_range", "datetime", "email"}
OLDER = [row for row in NAME_BINDINGS if row[1] not in NEW_KINDS]


def bound_by_older_rows(name: str) -> str | None:
    for pattern, kind, _ in OLDER:
        if name == pattern or ("*" in pattern and fnmatch.fnmatchcase(name, pattern)):
            return kind
    return None


words = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
suffixes = st.sampled_from(
    ["time", "at", "email", "slot", "time_range", "id", "from", "to", "date", "on"]
)
names = (
    st.lists(words | suffixes, min_size=1, max_size=4).map("_".join)
    | st.sampled_from([p.replace("*", "x") for p, _, _ in NAME_BINDINGS])
    | st.sampled_from(
        ["is_email", "include_time", "is_at", "email_id", "slot_id", "time_to", "reply_to_email"]
    )
)


@given(names)
def test_no_name_an_older_row_binds_changes_its_kind(name: str) -> None:
    older = bound_by_older_rows(name)
    now = bound_kind(name)
    if older is not None:
        assert now is not None and now[0] == older, (name, older, now)
    elif now is not None:
        assert now[0] in NEW_KINDS


class Mixed(KindModel):
    start_time: dt.time
    end_time: str  # not a `time`: the author's own string
    starts_at: dt.datetime
    updated_at: float = 0.0  # a number of seconds, not a moment
    slot: TimeRange
    slot_id: uuid.UUID | None = None
    email: str
    is_email_verified: bool = False


def test_a_field_binds_only_when_its_type_is_the_kinds_own() -> None:
    data: dict[str, Any] = {
        "start_time": "2pm",
        "end_time": "4pm",
        "starts_at": "2026-10-01 14:00 UTC",
        "updated_at": 12.5,
        "slot": "9-11",
        "email": "Jana@FIRMA.cz",
        "is_email_verified": "ano",
    }
    got = validate(Mixed, data).value
    assert got.start_time == dt.time(14) and got.end_time == "4pm"
    assert got.starts_at == dt.datetime(2026, 10, 1, 14, tzinfo=dt.UTC) and got.updated_at == 12.5
    assert got.slot == TimeRange(dt.time(9), dt.time(11))
    assert got.email == "Jana@firma.cz" and got.is_email_verified is True
