"""A repair is a call the runtime accepts as sent (docs/decisions/0048-a-repair-is-accepted-as-sent.md).

A destructive call that asks to make its change (`dry_run` false) without a confirm_token is refused
by consent once it reads. When its reading is refused first and the reading can be repaired (a
property's name spelled another way, a missing idempotency_key), a repair that fixed the reading
alone would meet that second refusal: the repair is the dry run of the same call instead, every
other argument as sent, and the preview's next_call makes the change.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract.client import ClientSide
from tests.contract.example_server import contract

NOT_DRY = st.sampled_from([False, "false", "no", 0, "0", "False"])
NO_TOKEN = st.sampled_from([None, "", "null", "<confirm_token>"])
# spellings of note_id a model writes, each read as note_id by the certain rename
NOTE_ID = st.sampled_from(["noteId", "NoteID", "note-id", "Note_Id", "noteid"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=NOTE_ID,
    note=st.integers(1, 12),
    dry=NOT_DRY,
    token=NO_TOKEN,
    with_token=st.booleans(),
)
async def test_a_repaired_destructive_call_is_its_dry_run(
    name: str, note: int, dry: Any, token: Any, with_token: bool
) -> None:
    sent: dict[str, Any] = {name: f"note_{note}", "dry_run": dry}
    if with_token:
        sent["confirm_token"] = token
    refused = await contract.call("delete_note", sent)
    env = refused.structured
    assert refused.is_error and env["code"] == "invalid_arguments", env
    repair = env["repair"]
    assert repair["arguments"] == {"note_id": f"note_{note}", "dry_run": True}, repair
    assert "preview's next_call" in env["hint"]
    # sent as it is, the repair previews, and its next_call deletes
    preview = await contract.call(repair["tool"], repair["arguments"])
    assert not preview.is_error, preview.structured
    assert preview.structured["status"] == "would_delete"
    follow = preview.structured["next_call"]
    assert follow["arguments"]["note_id"] == f"note_{note}"
    assert follow["arguments"]["dry_run"] is False and follow["arguments"]["confirm_token"]


async def test_a_client_that_asks_its_user_keeps_the_change() -> None:
    """With elicitation the tokenless change is confirmed by the user (stages.consent): the
    repair fixes the reading and keeps dry_run false."""
    client = ClientSide(capabilities={"elicitation": {}})
    refused = await contract.call(
        "delete_note", {"noteId": "note_3", "dry_run": False}, client=client
    )
    assert refused.structured["repair"]["arguments"] == {"note_id": "note_3", "dry_run": False}
    assert "preview's next_call" not in refused.structured["hint"]


@pytest.mark.parametrize("valid", [True, False])
async def test_a_repair_keeps_a_confirm_token_only_when_it_confirms_the_repaired_call(
    valid: bool,
) -> None:
    """A call that carries a token that verifies for the repaired call is confirming a dry run:
    the repair keeps it and dry_run false. A token that does not (forged, or issued for another
    call) would be refused next: the repair is the dry run."""
    note = "note_5" if valid else "note_6"  # a note of each case's own: the valid one deletes it
    preview = await contract.call("delete_note", {"note_id": note, "dry_run": True})
    token = preview.structured["next_call"]["arguments"]["confirm_token"]
    sent = token if valid else "ct2.something"
    refused = await contract.call(
        "delete_note", {"noteId": note, "dry_run": False, "confirm_token": sent}
    )
    repair = refused.structured["repair"]["arguments"]
    if valid:
        assert repair == {"note_id": note, "dry_run": False, "confirm_token": token}
        done = await contract.call("delete_note", repair)
        assert not done.is_error and done.structured["status"] == "deleted"
    else:
        assert repair == {"note_id": note, "dry_run": True}
