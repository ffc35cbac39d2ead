"""A refusal to retry later names the same call as its repair, when resending it is safe."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, Output, Summary, ToolError
from drivable.contract.codes import ERROR_CODES, Recovery
from drivable.contract.durable import IDEMPOTENCY_KEY, IdempotencyKey
from drivable.contract.finish import NOT_RESENT, RESEND
from drivable.contract.tool import Effects
from drivable.kinds import KindModel

RETRY_LATER = sorted(c for c, code in ERROR_CODES.items() if code.recovery is Recovery.RETRY_LATER)
OTHERS = sorted(set(ERROR_CODES) - set(RETRY_LATER))
WRITE = Effects(read_only=False, destructive=False, idempotent=False, open_world=False)
SET = Effects(read_only=False, destructive=False, idempotent=True, open_world=False)

contract = Contract(
    "retries",
    version="1",
    summary=Summary("Retry tests.", does=["fail on purpose"], does_not=["succeed"]),
)


class Failing(KindModel):
    code: str = Field(min_length=1, max_length=40, description="The code to answer with.")
    query: str | None = Field(None, max_length=50, description="Words.")


class Nothing(Output):
    done: bool


def _raise(args: Failing) -> Nothing:
    raise ToolError(args.code, "It failed on purpose.", hint="Read the code.")


@contract.tool(effects=READ_ONLY, errors=[*ERROR_CODES])
async def find_things(args: Failing, call: Call) -> Nothing:
    """Answer with the code asked for (a read)."""
    return _raise(args)


@contract.tool(effects=SET, errors=[*ERROR_CODES])
async def set_thing(args: Failing, call: Call) -> Nothing:
    """Answer with the code asked for (an idempotent write)."""
    return _raise(args)


class Keyed(Failing):
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


@contract.tool(effects=WRITE, errors=[*ERROR_CODES])
async def add_thing(args: Keyed, call: Call) -> Nothing:
    """Answer with the code asked for (a write that is not idempotent, so keyed)."""
    raise ToolError(args.code, "It failed on purpose.", hint="Read the code.")


WORDS = st.one_of(
    st.none(),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=20),
)


def _sent(code: str, query: str | None) -> dict[str, Any]:
    return {"code": code} if query is None else {"code": code, "query": query}


KEYS = st.from_regex(r"[a-z0-9-]{8,40}", fullmatch=True)


@given(st.sampled_from(RETRY_LATER), WORDS, st.sampled_from(sorted(contract.tools)), KEYS)
async def test_a_call_refused_for_now_is_offered_again_as_sent(
    code: str, query: str | None, tool: str, key: str
) -> None:
    """Every tool of a contract is safe to resend: it reads, is idempotent, or is keyed."""
    sent = _sent(code, query)
    if tool == "add_thing":
        sent["idempotency_key"] = key
    out = await contract.call(tool, sent)
    env = out.structured
    assert out.is_error and env["code"] == code and env["temporary"] is True
    if code in NOT_RESENT:
        assert "repair" not in env
    else:
        assert env["repair"] == {"tool": tool, "arguments": sent, "next_step": RESEND}
        contract.validate(tool, env["repair"]["arguments"])


@given(st.sampled_from(OTHERS), WORDS)
async def test_other_codes_get_no_resend(code: str, query: str | None) -> None:
    out = await contract.call("find_things", _sent(code, query))
    assert (out.structured.get("repair") or {}).get("next_step") != RESEND
