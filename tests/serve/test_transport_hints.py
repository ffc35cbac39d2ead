"""A transport refusal's hint comes from the failure: it names what the request got wrong (the
path, the HTTP method, the header), never a generic sentence and never another failure's fix.

The class: a valid request to a real served process, in either era, with one or two parts of it
made wrong (the path, the method, Accept, Content-Type, MCP-Protocol-Version, a routing header,
Host, Origin, the body). With one part wrong, the answer is that part's refusal in
`TRANSPORT_REFUSALS` (its status, its envelope code) and its hint names that part; with two,
the hint names one of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract.codes import TRANSPORT_REFUSALS
from drivable.reliability.processes import Served, serve, stop
from drivable.serve import refusals
from drivable.serve.http import build_app
from tests.contract.example_server import contract as example
from tests.serve.hostile_support import META, answer_of
from tests.serve.test_memory import served

GENERIC = {
    "Check the request against the MCP specification.",
    "Check the request against the MCP specification and resend it.",
}


@dataclass(frozen=True)
class Fault:
    """One part of a request made wrong: the refusal it must get, and what its hint must name."""

    part: str
    refusal: str
    names: tuple[str, ...]
    value: Any = None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = serve("caselaw", tmp_path_factory.mktemp("hints"))
    try:
        yield served
    finally:
        stop(served)


SUPPORTED = set(refusals.SUPPORTED_VERSIONS)
TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._", min_size=1, max_size=20)
FAULTS = st.one_of(
    st.builds(
        lambda p: Fault("path", "unknown_path", ("path", "/mcp"), "/" + p),
        TOKEN.filter(lambda p: p.strip("/") != "mcp"),
    ),
    st.builds(
        lambda m: Fault("method", "method_not_allowed", ("method", "POST"), m),
        st.sampled_from(["PUT", "PATCH", "DELETE", "GET", "OPTIONS"]),
    ),
    st.builds(
        lambda a: Fault("accept", "not_acceptable", ("Accept",), a),
        st.sampled_from(
            [
                "text/html",
                "application/json",
                "text/event-stream",
                "image/png",
                "text/plain, application/xml",
            ]
        ),
    ),
    st.builds(
        lambda c: Fault("content-type", "unsupported_media_type", ("Content-Type",), c),
        st.sampled_from(
            ["text/plain", "application/xml", "application/x-www-form-urlencoded", "text/json"]
        ),
    ),
    st.builds(
        lambda v: Fault("version", "unsupported_protocol_version", ("MCP-Protocol-Version",), v),
        TOKEN.filter(lambda v: v not in SUPPORTED),
    ),
    st.just(Fault("host", "misdirected_host", ("Host",), "evil.example")),
    st.just(Fault("origin", "forbidden_origin", ("Origin",), "http://evil.example")),
    st.builds(
        lambda b: Fault("body", "not_json", ("body", "JSON"), b),
        st.sampled_from([b"{", b"", b'{"jsonrpc":"2.0",', b"\xff\xfe"]),
    ),
    st.builds(
        lambda b: Fault("body", "not_one_request", ("body", "JSON-RPC"), b),
        st.sampled_from(
            [b"[1, 2]", b'{"jsonrpc":"1.0","id":1,"method":"ping"}', b'{"jsonrpc":"2.0","id":1}']
        ),
    ),
)
ROUTING = st.sampled_from(
    [
        Fault("mcp-method", "routing_header_mismatch", ("Mcp-Method",), "ping"),
        Fault("mcp-name", "routing_header_mismatch", ("Mcp-Name",), "list_courts"),
    ]
)


def build(
    server: Served, modern: bool, faults: list[Fault]
) -> tuple[str, str, dict[str, str], bytes]:
    params: dict[str, Any] = {"name": "search_decisions", "arguments": {"query": "škoda"}}
    if modern:
        params["_meta"] = META
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    ).encode()
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28" if modern else "2025-11-25",
    }
    if modern:
        headers |= {"mcp-method": "tools/call", "mcp-name": "search_decisions"}
    method, path = "POST", "/mcp"
    for fault in faults:
        if fault.part == "path":
            path = fault.value
        elif fault.part == "method":
            method = fault.value
        elif fault.part == "body":
            body = fault.value
        elif fault.part == "version":
            headers["mcp-protocol-version"] = fault.value
        elif fault.part in ("accept", "content-type", "host", "origin", "mcp-method", "mcp-name"):
            headers[fault.part] = fault.value
    return method, f"http://127.0.0.1:{server.port}{path}", headers, body


def refusal_of(response: httpx2.Response) -> dict[str, Any]:
    """The envelope of a refusal, JSON-RPC (`error.data`) or bare."""
    message = answer_of(response.headers.get("content-type", ""), response.text)
    assert message is not None, (response.status_code, response.text[:300])
    if "error" in message:
        data = message["error"]["data"]
        return {"code": data["machine_code"], "hint": data["hint"], "rpc": message["error"]}
    return {"code": message["code"], "hint": message["hint"], "rpc": None}


def names_one(hint: str, faults: list[Fault]) -> bool:
    return any(all(word.lower() in hint.lower() for word in f.names) for f in faults)


def distinct(faults: list[Fault]) -> bool:
    return len({f.part for f in faults}) == len(faults)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    modern=st.booleans(),
    faults=st.lists(FAULTS, min_size=1, max_size=2).filter(distinct),
    routing=st.none() | ROUTING,
)
def test_every_refusal_names_what_was_wrong(
    server: Served, modern: bool, faults: list[Fault], routing: Fault | None
) -> None:
    if routing is not None and modern and not any(f.part == "body" for f in faults):
        faults = [*faults[:1], routing]  # routing headers exist in the 2026-07-28 era only
    method, url, headers, body = build(server, modern, faults)
    response = httpx2.request(method, url, headers=headers, content=body, timeout=30)
    assert response.status_code >= 400, (faults, response.status_code, response.text[:300])
    refusal = refusal_of(response)
    hint = refusal["hint"]
    assert (hint not in GENERIC and hint != refusals.SHAPE_HINT) or faults[0].part == "body", hint
    assert names_one(hint, faults), (faults, hint)
    if len(faults) == 1:
        expected = TRANSPORT_REFUSALS[faults[0].refusal]
        assert response.status_code == expected.status, (faults, response.status_code, hint)
        assert refusal["code"] == expected.code
        assert expected.about.lower() in hint.lower() or faults[0].part == "body", (expected, hint)


def test_an_unknown_version_is_told_the_header_and_the_versions(server: Served) -> None:
    for modern in (True, False):
        method, url, headers, body = build(
            server, modern, [Fault("version", "unsupported_protocol_version", (), "1999-01-01")]
        )
        response = httpx2.request(method, url, headers=headers, content=body, timeout=30)
        assert response.status_code == 400
        error = refusal_of(response)["rpc"]
        assert error["code"] == refusals.UNSUPPORTED_PROTOCOL_VERSION
        assert error["data"]["supported"] == list(refusals.SUPPORTED_VERSIONS)
        assert error["data"]["requested"] == "1999-01-01"
        sent_id = json.loads(body)["id"] if body else None
        answer = answer_of(response.headers["content-type"], response.text)
        assert answer is not None and answer["id"] == sent_id
        assert "_meta" not in error["message"] + error["data"]["hint"]
        assert "MCP-Protocol-Version" in error["data"]["hint"]
        assert all(v in error["data"]["hint"] for v in refusals.SUPPORTED_VERSIONS)


def test_an_unknown_path_is_not_told_to_start_a_session(server: Served) -> None:
    for method in ("POST", "GET", "DELETE"):
        response = httpx2.request(method, f"http://127.0.0.1:{server.port}/nothing", timeout=30)
        assert response.status_code == 404
        hint = refusal_of(response)["hint"]
        assert "session" not in hint.lower() and "/mcp" in hint and "path" in hint


def test_every_registered_refusal_has_a_hint_naming_its_subject() -> None:
    spoken_elsewhere = {  # hints written where those refusals are made (checked in their tests)
        "body_too_large", "header_timeout", "body_timeout", "too_many_connections",
        "too_many_streams", "no_credential", "bad_credential",
    }  # fmt: skip
    for refusal in TRANSPORT_REFUSALS.values():
        if refusal.id in spoken_elsewhere:
            continue
        hint = refusals.transport_hint(refusal.id, header="mcp-method")
        assert refusal.about.lower() in hint.lower(), (refusal.id, hint)
        assert hint not in GENERIC


@pytest.mark.parametrize(
    "header,refusal",
    [(None, "session_required"), ("0123456789abcdef", "unknown_session")],
    ids=["no session id", "unknown session id"],
)
async def test_a_session_refusal_names_the_session_header(header: str | None, refusal: str) -> None:
    sent = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if header:
        sent["mcp-session-id"] = header
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    async with served(build_app(example, insecure=True, sessions=True)) as http:
        response = await http.post("/mcp", content=body, headers=sent)
    assert response.status_code == TRANSPORT_REFUSALS[refusal].status
    hint = refusal_of(response)["hint"]
    assert hint == refusals.transport_hint(refusal) and "Mcp-Session-Id" in hint
