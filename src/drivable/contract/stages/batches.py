"""Stage: best-effort collections. Entries of an `EachOnItsOwn` list that failed validation were
set aside while reading; they come back under `rejected` with a `partial_success` warning, and a
call none of whose entries validated is refused, since nothing would be applied."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivable.contract.collections import REJECTED_KEY
from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.validation import rejected_entries

if TYPE_CHECKING:
    from drivable.kinds import Validated


def set_aside(attempt: Attempt, validated: Validated[Any]) -> None:
    """Record the set-aside entries on the call (or refuse when a best-effort list is empty)."""
    entries_raw = validated.context.get(REJECTED_KEY, [])
    if not entries_raw:
        return
    spec, call = attempt.tool, attempt.context
    entries = rejected_entries(spec.input_schema, entries_raw)
    emptied = [f for f in spec.best_effort if not getattr(validated.value, f, None)]
    if emptied:
        issues = [i for entry in entries for i in entry["issue_objects"]]
        raise Refused(
            Envelope(
                "invalid_arguments",
                f"No entry of {', '.join(emptied)} in {spec.name} validated; nothing was applied.",
                hint=f"Fix the entries named in `issues` and call {spec.name} again.",
                issues=issues,
            )
        )
    call.rejected = [
        {
            "path": e["path"],
            "index": e["index"],
            "issues": [i.to_dict() for i in e["issue_objects"]],
        }
        for e in entries
    ]
    call.warn(
        "partial_success",
        f"{len(entries)} entr{'y was' if len(entries) == 1 else 'ies were'} not applied; "
        f"`rejected` lists them with their issues. Fix those and send only them to {spec.name}.",
    )
