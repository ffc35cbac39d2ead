"""An upstream whose tools declare the wrapper's control fields themselves: the mechanism is the
wrapper's and the value is passed on. A write that declares `idempotency_key` is keyed by that one
key (a retry reaches upstream once, with the key); a tool that declares `dry_run` and
`confirm_token` is two-step whatever its hints say: its own dry run answers the preview, and the
call confirmed through the wrapper reaches upstream with the token the upstream issued."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.contract.declare import CONTROL_FIELDS
from drivable.target import Target
from drivable.wrap.build import Listing, contract_of
from drivable.wrap.config import WrapConfig
from tests.wrap.conftest import calls_logged, ok, own_upstream, refused, wrapped
from tests.wrap.test_wrap_effects import HINTS


async def test_the_upstreams_own_key_and_two_steps_are_kept(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}) as client:
        tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        call = {"title": "Imported", "idempotency_key": "import-key-1"}
        first = await ok(client, "import_note", call)
        again = await ok(client, "import_note", call)
        without = await refused(client, "archive_note", {"note_id": "n1", "dry_run": False})
        # refused with the upstream's own dry run of it (decision 0049); nothing archived
        assert [c["tool"] for c in calls_logged(log)] == ["import_note", "archive_note"]
        preview = await ok(client, "archive_note", {"note_id": "n1", "dry_run": True})
        done = await ok(client, "archive_note", preview["next_call"]["arguments"])
    assert "idempotency_key" in tools["import_note"]["required"]
    assert tools["archive_note"]["properties"]["dry_run"]["default"] is False
    assert first["result"] == again["result"]
    assert without["code"] == "confirmation_required"
    assert without["details"]["preview"]["result"]["would_archive"] == "n1"
    assert preview["result"]["would_archive"] == "n1"  # the upstream's own dry run
    assert preview["would_send"] == {"note_id": "n1", "dry_run": False}
    assert done["text"] == "archived n1"
    sent = [(c["tool"], c["arguments"]) for c in calls_logged(log)]
    assert sent[0] == ("import_note", call)  # once, with the key
    assert [a.get("dry_run") for t, a in sent[1:]] == [True, True, True, False]
    assert sent[-1][1]["confirm_token"].startswith("up-n1-")  # the upstream's token, relayed


@given(st.sets(st.sampled_from(sorted(CONTROL_FIELDS))), st.none() | HINTS)
def test_any_owned_control_field_still_gives_a_contract(owned: set[str], hints: Any) -> None:
    """Whichever control fields an upstream tool declares, with whatever hints, the wrapper
    starts, lists each field once, and owns the mechanism each names."""
    properties: dict[str, Any] = {"title": {"type": "string"}}
    for field in owned:
        properties[field] = {"type": "boolean" if field == "dry_run" else "string"}
    tool: dict[str, Any] = {
        "name": "update_record",
        "inputSchema": {"type": "object", "properties": properties},
    }
    if hints is not None:
        tool["annotations"] = hints
    contract = contract_of(
        Listing("gen", "1", None, [tool]), WrapConfig(), Target(command=("true",))
    )
    spec = contract.tools["update_record"]
    listed = spec.input_schema["properties"]
    assert owned <= set(listed)
    if owned & {"dry_run", "confirm_token"}:
        assert spec.effects.destructive and {"dry_run", "confirm_token"} <= set(listed)
    if "idempotency_key" in owned and not spec.effects.read_only:
        assert "idempotency_key" in spec.input_schema["required"]
