"""The envelope's JSON-RPC rendering: one function builds it, and it reads back whole."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import drivable
from drivable.contract.codes import ERROR_CODES
from drivable.contract.envelope import Envelope, Issue, from_rpc_data, rpc_data, rpc_error

TEXT = st.text(max_size=40)
ENVELOPES = st.builds(
    Envelope,
    code=st.sampled_from(sorted(ERROR_CODES)),
    message=TEXT,
    hint=TEXT,
    issues=st.lists(st.builds(Issue, path=TEXT, code=TEXT, message=TEXT), max_size=3),
    temporary=st.booleans(),
    retry_after_ms=st.none() | st.integers(0, 10_000),
    request_id=TEXT,
    details=st.dictionaries(st.text(min_size=1, max_size=8), TEXT, max_size=3),
)


@given(ENVELOPES)
def test_the_rpc_rendering_renames_two_fields_and_reads_back_whole(envelope: Envelope) -> None:
    data = rpc_data(envelope)
    body = envelope.to_dict()
    assert data["machine_code"] == body["code"] and data["human_message"] == body["message"]
    assert "code" not in data and "message" not in data
    assert from_rpc_data(data) == body
    assert from_rpc_data(body) == body  # already in a result's shape
    error = rpc_error(envelope, -32602)
    assert error["message"] == body["message"] and error["data"] == data


WRITES = re.compile(r"""["']machine_code["']\s*:|\[["']machine_code["']\]\s*=""")


def test_nothing_but_the_envelope_module_builds_the_rpc_rendering() -> None:
    root = Path(drivable.__file__).parent
    builders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if WRITES.search(path.read_text(encoding="utf-8"))
    ]
    assert builders == ["contract/envelope.py"], builders
