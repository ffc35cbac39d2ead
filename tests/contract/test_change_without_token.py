"""A change asked for without its token is refused with its preview
(docs/decisions/0049-a-change-without-its-token-answers-with-its-preview.md).

Over the ways a model asks a destructive tool for its change without a token (no `dry_run`, or
`false` spelled any way the reading takes, with no token or a placeholder for one): nothing
changes, the refusal's `details.preview` is what the dry run of the same call answers, and its
repair is that call with every argument kept and a token that, sent as it is, makes the change.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.contract.example_server import DELETED, NOTES, contract

NOT_DRY = st.sampled_from([None, False, "false", "no", 0, "0", "ne"])  # None: not sent
NO_TOKEN = st.sampled_from([None, "", "null", "<confirm_token>", "string"])  # None: not sent


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pick=st.integers(0, 10**6), dry=NOT_DRY, token=NO_TOKEN, data=st.data())
async def test_a_tokenless_change_is_refused_with_its_preview_and_the_confirming_call(
    pick: int, dry: Any, token: Any, data: st.DataObject
) -> None:
    alive = [n for n in sorted(NOTES) if n not in DELETED]
    note = alive[pick % len(alive)]
    sent: dict[str, Any] = {"note_id": note}
    if dry is not None:
        sent["dry_run"] = dry
    if token is not None:
        sent["confirm_token"] = token

    refused = await contract.call("delete_note", sent)
    env = refused.structured
    assert refused.is_error and env["code"] == "confirmation_required", env
    assert note not in DELETED  # nothing changed
    dry_run = await contract.call("delete_note", {"note_id": note, "dry_run": True})
    shown = {k: v for k, v in dry_run.structured.items() if k not in ("next_call", "notes")}
    preview = env["details"]["preview"]
    assert {k: v for k, v in preview.items() if k != "notes"} == shown  # its reading's notes too
    repair = env["repair"]
    assert repair["tool"] == "delete_note" and repair["next_step"] == "send_the_confirmed_call"
    arguments = repair["arguments"]
    assert arguments["note_id"] == note and arguments["dry_run"] is False
    assert arguments["confirm_token"] not in (None, token)

    if data.draw(st.booleans()):  # sent as it is, the repair makes the change, once
        done = await contract.call(repair["tool"], arguments)
        assert not done.is_error and done.structured["status"] == "deleted", done.structured
        assert note in DELETED
        again = await contract.call(repair["tool"], arguments)  # replayed (decision 0056)
        assert not again.is_error and again.structured["status"] == "deleted", again.structured
        assert DELETED.count(note) == 1
        DELETED.remove(note)  # the in-process server as the other tests of this worker find it
