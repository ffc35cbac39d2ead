"""A stage runs on a small fake of what it reads of the contract (`StageContext`): no Contract,
no declaration, no store. The fake's own values (its scopes' settings page, its inline limit)
must come back in the refusals, and every refusal must reach its `finish`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import ERROR_CODES, READ_ONLY, WARNING_CODES, Call, Output, Principal
from drivable.contract.call import Outcome
from drivable.contract.codes import Code, WarningCode
from drivable.contract.durable import Durability
from drivable.contract.echo import NextCall
from drivable.contract.envelope import Envelope
from drivable.contract.pipeline import run
from drivable.contract.stages.access import check_access
from drivable.contract.stages.base import Attempt, Refused, StageContext
from drivable.contract.tool import ToolSpec, build_spec
from drivable.kinds import KindModel

SCOPES = ("notes:read", "notes:archive", "people:read")


class Query(KindModel):
    query: str = Field(min_length=1, max_length=100, description="Words to find.")


class Found(Output):
    count: int


async def count_words(args: Query, call: Call) -> Found:
    return Found(count=len(args.query.split()))


def spec(scopes: tuple[str, ...] = ()) -> ToolSpec:
    return build_spec(
        count_words,
        name="count_words",
        title="Count words",
        description="Count the words of a query; a test tool with nothing behind it.",
        effects=READ_ONLY,
        errors=(),
        known_codes=ERROR_CODES,
        stability="stable",
        deprecation=None,
        scopes=scopes,
    )


@dataclass
class FakeContext:
    """Only what `StageContext` names; `finish` records the envelopes handed to it."""

    tools: Mapping[str, ToolSpec]
    name: str = "fake"
    settings_url: str | None = None
    max_inline_bytes: int = 4096
    strict: bool = True
    codes: Mapping[str, Code] = field(default_factory=lambda: dict(ERROR_CODES))
    warning_codes: Mapping[str, WarningCode] = field(default_factory=lambda: dict(WARNING_CODES))
    finished: list[Envelope] = field(default_factory=list)

    @property
    def listed_names(self) -> Sequence[str]:
        return sorted(self.tools)

    def next_call(self, tool: str, arguments: Mapping[str, Any]) -> NextCall:
        return NextCall(tool=tool, arguments=dict(arguments))

    async def durable(self) -> Durability:
        raise AssertionError("a read-only call never opens the effect store")

    def finish(self, envelope: Envelope, rid: str, tool: ToolSpec | None = None) -> Outcome:
        self.finished.append(envelope)
        return Outcome(envelope.to_dict(), is_error=True)


def context(**values: Any) -> StageContext:
    return FakeContext(**values)  # typed as the protocol: the fake must satisfy it


@given(
    declared=st.lists(st.sampled_from(SCOPES), min_size=1, unique=True),
    held=st.sets(st.sampled_from(SCOPES)),
    url=st.sampled_from([None, "https://notes.example/settings/access"]),
)
def test_access_refuses_exactly_the_missing_scopes_naming_the_contexts_settings_page(
    declared: list[str], held: set[str], url: str | None
) -> None:
    tool = spec(tuple(declared))
    attempt = Attempt(
        context(tools={tool.name: tool}, settings_url=url),
        tool.name,
        {"query": "x"},
        Principal(id="p", scopes=frozenset(held)),
        "rid-1",
    )
    attempt.spec = tool
    missing = [s for s in declared if s not in held]
    if not missing:
        check_access(attempt)  # nothing to refuse
        return
    try:
        check_access(attempt)
    except Refused as refused:
        envelope = refused.envelope
    else:
        raise AssertionError(f"{missing} missing, and the call was let through")
    assert envelope.code == "insufficient_scope"
    assert envelope.details["required_scopes"] == missing
    assert (url in envelope.hint) if url else ("grant them at" not in envelope.hint)


@given(limit=st.integers(64, 2048), over=st.integers(1, 512))
def test_the_pipeline_bounds_by_the_contexts_limit_and_hands_the_refusal_to_its_finish(
    limit: int, over: int
) -> None:
    tool = spec()
    fake = FakeContext(tools={tool.name: tool}, max_inline_bytes=limit)

    async def call(raw: dict[str, Any]) -> Outcome:
        return await run(Attempt(fake, tool.name, raw, Principal(), "rid-2"))

    answered = anyio.run(call, {"query": "two words"})
    assert not answered.is_error and answered.structured == {"count": 2}
    assert fake.finished == []
    refused = anyio.run(call, {"query": "q" * (limit + over)})
    assert refused.is_error and [e.code for e in fake.finished] == ["payload_too_large"]
    assert fake.finished[0].details["limit_bytes"] == limit
