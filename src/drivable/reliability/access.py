"""Access over HTTP: who may call, and what one principal can do with another's tokens.

Against the probe served with its static verifier:
- no token, a wrong token, an expired token: HTTP 401 with `unauthenticated` / `invalid_credentials`;
- a token without the tool's scope: the tool-level envelope `insufficient_scope`;
- bob presenting alice's confirm token is refused, and alice's entry stays;
- bob reusing alice's idempotency key does not replay alice's receipt (he gets his own effect);
- a body over the bound is refused 413 `payload_too_large`, declared or streamed, before parsing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from drivable.contract.envelope import envelope_of
from drivable.reliability import probe
from drivable.reliability.processes import Served
from drivable.target import Target, connect

BOUND_S = 30.0
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'


@dataclass
class AccessCase:
    case: str
    expected: str
    observed: str
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


async def _post(url: str, body: bytes | AsyncIterator[bytes], token: str | None) -> httpx2.Response:
    headers = dict(HEADERS)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(BOUND_S)) as http:
        return await http.post(url, content=body, headers=headers)


def _code(response: httpx2.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code} (not JSON)"
    return f"HTTP {response.status_code} {body.get('code') if isinstance(body, dict) else '?'}"


async def _call(token: str, tool: str, args: dict[str, Any], url: str) -> dict[str, Any]:
    async with connect(Target(url=url, bearer_token=token), read_timeout_seconds=BOUND_S) as client:
        with anyio.fail_after(BOUND_S):
            result = await client.call_tool(tool, args)
    out = dict((envelope_of(result) if result.is_error else result.structured_content) or {})
    out["_is_error"] = result.is_error
    return out


def _confirm_token(preview: dict[str, Any]) -> str:
    """The token a dry run's preview carries: inside its next_call, the confirming call."""
    next_call = preview.get("next_call") or {}
    return str((next_call.get("arguments") or {}).get("confirm_token"))


async def access_matrix(served: Served, run: str) -> list[AccessCase]:
    """Every case above against a probe served with its verifier and a store."""
    url = served.url
    cases: list[AccessCase] = []

    def case(name: str, expected: str, observed: str) -> None:
        cases.append(AccessCase(name, expected, observed, expected == observed))

    case("no token", "HTTP 401 unauthenticated", _code(await _post(url, LIST, None)))
    case(
        "wrong token",
        "HTTP 401 invalid_credentials",
        _code(await _post(url, LIST, "wrong-token-0000")),
    )
    case(
        "expired token",
        "HTTP 401 invalid_credentials",
        _code(await _post(url, LIST, probe.EXPIRED_TOKEN)),
    )
    scoped = await _call(
        probe.READER_TOKEN,
        "add_entry",
        {"label": f"{run}-r", "amount": 1, "idempotency_key": f"k-{run}-r"},
        url,
    )
    case("reader calls a write tool", "insufficient_scope", str(scoped.get("code")))

    # A confirm token is bound to the principal it was issued to.
    made = await _call(
        probe.ALICE_TOKEN,
        "add_entry",
        {"label": f"{run}-a", "amount": 5, "idempotency_key": f"k-{run}-a"},
        url,
    )
    entry = str(made.get("entry_id"))
    preview = await _call(
        probe.ALICE_TOKEN, "void_entry", {"entry_id": entry, "dry_run": True}, url
    )
    token = _confirm_token(preview)
    stolen = await _call(
        probe.BOB_TOKEN,
        "void_entry",
        {"entry_id": entry, "dry_run": False, "confirm_token": token},
        url,
    )
    still = probe.count_rows(served.env[probe.STORE_ENV], label=f"{run}-a").get(f"{run}-a", 0)
    case(
        "bob spends alice's confirm token",
        "refused confirmation_invalid, entry kept",
        f"{'refused ' + str(stolen.get('code')) if stolen['_is_error'] else 'ACCEPTED'}, entry {'kept' if still == 1 else 'gone'}",
    )
    mine = await _call(
        probe.ALICE_TOKEN,
        "void_entry",
        {"entry_id": entry, "dry_run": False, "confirm_token": token},
        url,
    )
    case("alice spends her own confirm token", "voided", str(mine.get("status", mine.get("code"))))

    # An idempotency key is scoped to the principal: bob's call with alice's key is bob's own.
    args = {"label": f"{run}-k", "amount": 7, "idempotency_key": f"k-{run}-shared"}
    first = await _call(probe.ALICE_TOKEN, "add_entry", args, url)
    other = await _call(probe.BOB_TOKEN, "add_entry", args, url)
    replayed = other.get("entry_id") == first.get("entry_id")
    case(
        "bob replays alice's receipt (same key, same arguments)",
        "not replayed: a new effect of bob's",
        "REPLAYED alice's result"
        if replayed
        else (
            "not replayed: a new effect of bob's"
            if not other["_is_error"]
            else f"refused {other.get('code')}"
        ),
    )

    # The body bound holds before parsing: declared length, and a streamed body without one.
    big = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_alive","arguments":{"echo":"'
        + b"a" * (2 * 1024 * 1024)
        + b'"}}}'
    )
    case(
        "2 MiB body, declared",
        "HTTP 413 payload_too_large",
        _code(await _post(url, big, probe.ALICE_TOKEN)),
    )

    async def stream() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 64 * 1024):
            yield big[start : start + 64 * 1024]

    case(
        "2 MiB body, streamed (no length)",
        "HTTP 413 payload_too_large",
        _code(await _post(url, stream(), probe.ALICE_TOKEN)),
    )
    case("2 MiB body, no token", "HTTP 401 unauthenticated", _code(await _post(url, big, None)))
    alive = await _call(probe.ALICE_TOKEN, "check_alive", {"echo": "after"}, url)
    case(
        "alive after all of it", "alive", "alive" if alive.get("alive") else json.dumps(alive)[:80]
    )
    return cases


READER_TOKEN = "drivable-reliability-read-only-0123"


async def money_access(
    served: Served, full_token: str, invoice: str = "inv_30001"
) -> list[AccessCase]:
    """Against billing served with a verifier: an anonymous caller and a `billing:read` token
    move no money (not by a call, not with a confirm token another issued), the refundable
    balance is what it was, and the full token's own confirm token does refund (so the cases
    above could have failed)."""
    url = served.url
    cases: list[AccessCase] = []

    def case(name: str, expected: str, observed: str) -> None:
        cases.append(AccessCase(name, expected, observed, expected == observed))

    async def refundable() -> int:
        read = await _call(full_token, "get_invoice", {"invoice_id": invoice}, url)
        return int((read.get("invoice") or {}).get("refundable_cents", -1))

    before = await refundable()
    refund = {"invoice_id": invoice, "amount_cents": 100, "idempotency_key": "rel-money-1"}
    anonymous = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "refund_invoice", "arguments": {**refund, "dry_run": False}},
        }
    ).encode()
    case("anonymous refund", "HTTP 401 unauthenticated", _code(await _post(url, anonymous, None)))
    reader = await _call(READER_TOKEN, "refund_invoice", {**refund, "dry_run": False}, url)
    case("billing:read token refunds", "insufficient_scope", str(reader.get("code")))
    preview = await _call(full_token, "refund_invoice", {**refund, "dry_run": True}, url)
    token = _confirm_token(preview)
    spent = await _call(
        READER_TOKEN, "refund_invoice", {**refund, "dry_run": False, "confirm_token": token}, url
    )
    case(
        "billing:read token spends a write token's confirm token",
        "insufficient_scope",
        str(spent.get("code")),
    )
    after = await refundable()
    case(
        "refundable balance after the refused refunds",
        f"{before} cents (unchanged)",
        f"{after} cents (unchanged)" if after == before else f"{after} cents (MOVED)",
    )
    own = await _call(
        full_token, "refund_invoice", {**refund, "dry_run": False, "confirm_token": token}, url
    )
    case(
        "billing:write token spends its own confirm token",
        f"refunded, {before - 100} cents left",
        f"{own.get('status', own.get('code'))}, {await refundable()} cents left",
    )
    return cases


def open_by_default(server: str = "billing") -> AccessCase:
    """`drivable serve SERVER --http` without a verifier or --insecure must refuse to start."""
    import subprocess
    import sys

    from drivable.reliability.processes import free_port

    done = subprocess.run(
        [sys.executable, "-m", "drivable", "serve", server, "--http", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    refused = done.returncode != 0 and "--verifier" in done.stderr and "--insecure" in done.stderr
    return AccessCase(
        f"{server} over HTTP without a verifier",
        "refuses to start, naming --verifier and --insecure",
        "refuses to start, naming --verifier and --insecure"
        if refused
        else f"exit {done.returncode}: {done.stderr[-160:]!r}",
        refused,
    )
