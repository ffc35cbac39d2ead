"""The one finalizer: every transport's envelope finished the same way, from the registry."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from drivable.contract import ERROR_CODES, Envelope
from drivable.contract.finish import DEFAULT_RETRY_AFTER_MS, finish
from drivable.contract.resources import ResourceError
from drivable.serve.auth import envelope_body
from drivable.serve.results import resource_failure
from tests.contract.example_server import contract

RID = re.compile(r"^[0-9a-f]{16}$")


@given(
    st.sampled_from(sorted(ERROR_CODES)),
    st.one_of(st.none(), st.integers(min_value=0, max_value=10**6)),
)
def test_temporary_and_retry_come_from_the_registry(code: str, retry: int | None) -> None:
    done = finish(Envelope(code, "m", hint="h", retry_after_ms=retry), request_id="r1")
    registered = ERROR_CODES[code]
    assert done.temporary is registered.temporary
    if registered.temporary:
        assert done.retry_after_ms == (DEFAULT_RETRY_AFTER_MS if retry is None else retry)
    else:
        assert done.retry_after_ms is None
    assert done.request_id == "r1"


@given(st.text(min_size=1, max_size=20).filter(lambda c: c not in ERROR_CODES))
def test_an_unregistered_code_becomes_internal_error_keeping_nothing(code: str) -> None:
    done = finish(Envelope(code, "secret detail", hint="h", details={"x": 1}), request_id="r2")
    assert done.code == "internal_error" and "secret" not in done.message and not done.details


def test_tools_resources_and_http_refusals_share_the_finish() -> None:
    resource = resource_failure(
        contract, ResourceError("unavailable", "Down.", hint="Read it again later."), "notes://x"
    ).error.data
    body, rid = envelope_body(contract, "unavailable", "Down.", "Retry later.")
    http = json.loads(body)
    for data in (resource, http):
        assert data["temporary"] is True and data["retry_after_ms"] == DEFAULT_RETRY_AFTER_MS
        assert RID.match(data["request_id"])
    assert http["request_id"] == rid
    assert resource["machine_code"] == "unavailable" and resource["resource_uri"] == "notes://x"
