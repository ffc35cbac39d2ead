"""The raw wire: every method and class in both eras, the answer checks (they can fail), the
refusal of ids and methods no answer can carry, and billing's money behind its scopes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import anyio
from hypothesis import given
from hypothesis import strategies as st

from drivable.reliability.access import money_access, open_by_default
from drivable.reliability.campaign import FULL_TOKEN, drop_stores
from drivable.reliability.fuzz import MODERN, RAW_VALUES
from drivable.reliability.processes import stop
from drivable.reliability.stores import serve_profile
from drivable.reliability.wire import (
    ENVELOPE_DAMAGE,
    LEGACY,
    StdioWire,
    Surface,
    check_answer,
    plan_wire,
    routing_headers,
)
from drivable.serve import refusals
from tests.serve.conftest import EXAMPLE

BOUND_S = 300.0
SURFACE = Surface(
    prompts=(("refund_an_invoice", ("invoice", "amount")),),
    templates=("billing://invoices/{invoice_id}",),
)


def test_every_method_gets_every_class_in_both_eras() -> None:
    labels = dict(plan_wire(SURFACE))
    for era in (LEGACY, MODERN):
        for value, _ in RAW_VALUES:
            for what in (
                f"prompt refund_an_invoice.amount: {value}",
                f"complete refund_an_invoice.invoice: {value}",
                f"read billing://invoices/{{invoice_id}}: {value}",
                f"complete billing://invoices/{{invoice_id}}: {value}",
            ):
                assert f"{era}: {what}" in labels, (era, what)
    for label, body in plan_wire(SURFACE):
        if label.startswith((LEGACY, MODERN)):
            message = json.loads(body)  # JSON text, whatever no encoder could write in it
            assert ("_meta" in message["params"]) == label.startswith(MODERN), label
    assert len([k for k in labels if k.startswith("envelope:")]) == len(ENVELOPE_DAMAGE)


def test_routing_headers_name_what_a_header_can_carry() -> None:
    read = b'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"billing://x"}}'
    assert routing_headers(read) == {"mcp-method": "resources/read", "mcp-name": "billing://x"}
    broken = b'{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a\\ud800"}}'
    assert routing_headers(broken) == {"mcp-method": "prompts/get"}


def test_the_answer_checks_catch_what_they_look_for() -> None:
    structured = refusals.error_message(refusals.Refusal(-32602, "Bad params.", "Send x."))
    assert check_answer("ok", b"{}", structured) == []
    assert check_answer("ok", b"{}", {"jsonrpc": "2.0", "id": 1, "result": {}}) == []
    bare = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": ""}}
    assert [f.kind for f in check_answer("bare", b"{}", bare)] == ["malformed_envelope"]
    internal = refusals.error_message(refusals.Refusal(-32603, "Failed.", "Retry."))
    internal["error"]["data"]["machine_code"] = "internal_error"
    assert [f.kind for f in check_answer("internal", b"{}", internal)] == ["internal_error"]
    leaking = refusals.error_message(
        refusals.Refusal(-32602, 'File "/srv/app/x.py", line 3', "Send x.")
    )
    assert "leak" in [f.kind for f in check_answer("leak", b"{}", leaking)]
    assert [f.kind for f in check_answer("none", b"{}", None)] == ["no_answer"]
    envelope = {"code": "payload_too_large", "message": "Too big.", "hint": "Pass a reference."}
    assert check_answer("413", b"{}", envelope) == []
    assert [f.kind for f in check_answer("413", b"{}", {"code": "x"})] == ["malformed_envelope"]


_lone = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])
_text = st.text(max_size=8)


@given(_text, _lone, _text)
def test_an_id_or_method_no_answer_can_carry_is_refused(head: str, lone: str, tail: str) -> None:
    broken = head + lone + tail
    by_id = refusals.shape_refusal({"jsonrpc": "2.0", "id": broken, "method": "tools/list"})
    assert by_id is not None and by_id.rpc_code == refusals.INVALID_REQUEST
    assert by_id.request_id is None  # the answer names no id it could not spell
    json.dumps(refusals.error_message(by_id)).encode("utf-8")
    by_method = refusals.shape_refusal({"jsonrpc": "2.0", "id": 3, "method": broken})
    assert by_method is not None and by_method.request_id == 3
    assert broken not in json.dumps(refusals.error_message(by_method), ensure_ascii=False)


def test_stdio_answers_a_lone_surrogate_id_and_method_with_the_envelope() -> None:
    import sys

    with tempfile.TemporaryFile("w+") as errlog:
        wire = StdioWire([sys.executable, str(EXAMPLE)], {}, errlog)
        try:
            for line in (
                b'{"jsonrpc":"2.0","id":"a\\ud800","method":"tools/list"}',
                b'{"jsonrpc":"2.0","id":4,"method":"tools/\\udfff"}',
            ):
                answer = wire.exchange(line, timeout=BOUND_S)
                assert answer is not None, line
                assert check_answer("stdio", line, answer) == [], answer
                assert answer["error"]["code"] == refusals.INVALID_REQUEST
        finally:
            wire.close()


async def test_a_read_only_token_or_an_anonymous_caller_moves_no_money(tmp_path: Path) -> None:
    served, _ = serve_profile("billing", tmp_path, 1)
    try:
        with anyio.fail_after(BOUND_S):
            cases = await money_access(served, FULL_TOKEN)
    finally:
        stop(served)
        drop_stores(served.databases)
    assert [c for c in cases if not c.passed] == []
    assert len(cases) == 5
    refused = open_by_default("billing")
    assert refused.passed, refused
