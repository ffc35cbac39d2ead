"""The signed request state and the ClientSide a handler asks through."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.contract.client import (
    ClientSide,
    Elicit,
    InputRequired,
    ListRoots,
    MissingCapability,
    Sample,
)
from drivable.contract.rounds import RoundSeal, StateRejected

FORM = Elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
ALL: dict[str, dict[str, Any]] = {"elicitation": {}, "sampling": {}, "roots": {}}
answers = st.dictionaries(st.text(min_size=1, max_size=8), st.integers() | st.text(max_size=8))


@given(answers, st.integers(min_value=0), st.characters(codec="ascii"))
def test_any_change_to_a_state_is_refused(
    carried: dict[str, Any], position: int, char: str
) -> None:
    seal = RoundSeal(b"k" * 32)
    state = seal.seal("tools/call", "t", {"a": 1}, carried)
    assert seal.open(state, "tools/call", "t", {"a": 1}) == carried
    i = position % len(state)
    altered = state[:i] + char + state[i + 1 :]
    if altered != state:
        with pytest.raises(StateRejected):
            seal.open(altered, "tools/call", "t", {"a": 1})
    with pytest.raises(StateRejected):
        seal.open(state + "-TAMPERED", "tools/call", "t", {"a": 1})


def test_a_state_is_bound_to_its_request_caller_secret_and_lifetime() -> None:
    seal = RoundSeal(b"k" * 32)
    state = seal.seal("tools/call", "t", {"a": 1}, {"x": 1})
    for method, name, arguments in (
        ("prompts/get", "t", {"a": 1}),
        ("tools/call", "other", {"a": 1}),
        ("tools/call", "t", {"a": 2}),
    ):
        with pytest.raises(StateRejected):
            seal.open(state, method, name, arguments)
    with pytest.raises(StateRejected):
        RoundSeal(b"j" * 32).open(state, "tools/call", "t", {"a": 1})
    theirs = seal.seal("tools/call", "t", {"a": 1}, {"confirm": "yes"}, principal="ada")
    assert seal.open(theirs, "tools/call", "t", {"a": 1}, principal="ada") == {"confirm": "yes"}
    with pytest.raises(StateRejected):
        seal.open(theirs, "tools/call", "t", {"a": 1}, principal="bob")
    stale = RoundSeal(b"k" * 32, ttl_s=-1).seal("tools/call", "t", {"a": 1}, {})
    with pytest.raises(StateRejected):
        seal.open(stale, "tools/call", "t", {"a": 1})


async def test_unanswered_and_malformed_answers_are_asked_again_together() -> None:
    client = ClientSide(ALL, responses={"name": {"action": "maybe"}})
    with pytest.raises(InputRequired) as caught:
        await client.ask_all({"name": FORM, "roots": ListRoots()})
    assert sorted(caught.value.requests) == ["name", "roots"]
    assert caught.value.answers == {}


async def test_answers_of_earlier_rounds_are_carried_to_the_next() -> None:
    first = {"action": "accept", "content": {"name": "Ada"}}
    client = ClientSide(ALL, responses={"step1": first, "stray": {"action": "accept"}})
    assert (await client.ask("step1", FORM)).content == {"name": "Ada"}
    with pytest.raises(InputRequired) as caught:
        await client.ask("step2", FORM)
    assert caught.value.answers == {"step1": first}  # the stray answer is not carried
    resumed = ClientSide(
        ALL,
        carried=caught.value.answers,
        responses={"step2": {"action": "decline"}},
    )
    assert (await resumed.ask("step1", FORM)).content == {"name": "Ada"}
    assert (await resumed.ask("step2", FORM)).action == "decline"
    assert resumed.resumed


async def test_asking_for_an_undeclared_capability_is_refused_before_anything_is_sent() -> None:
    sent: list[str] = []

    async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
        sent.append(method)
        return {}

    client = ClientSide({"elicitation": {}}, send_request=send)
    with pytest.raises(MissingCapability) as caught:
        await client.ask_all({"n": FORM, "s": Sample(["hi"], max_tokens=5)})
    assert (caught.value.capability, caught.value.method) == ("sampling", "sampling/createMessage")
    assert sent == []
    assert client.supports("elicitation") and not client.supports("roots")


async def test_in_the_handshake_eras_each_ask_is_one_request_and_asked_once() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
        sent.append((method, params))
        if method == "sampling/createMessage":
            return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}
        return {"roots": [{"uri": "file:///r", "name": "r"}]}

    client = ClientSide(ALL, send_request=send)
    reply = await client.ask("q", Sample(["Capital?"], max_tokens=9, system_prompt="Be brief."))
    again = await client.ask("q", Sample(["Capital?"], max_tokens=9))
    roots = await client.ask("r", ListRoots())
    assert reply.text == again.text == "Paris"
    assert [r.uri for r in roots] == ["file:///r"]
    assert [m for m, _ in sent] == ["sampling/createMessage", "roots/list"]
    assert sent[0][1]["maxTokens"] == 9 and sent[0][1]["systemPrompt"] == "Be brief."


async def test_logging_goes_through_the_transport_and_refuses_unknown_levels() -> None:
    got: list[tuple[str, str]] = []

    async def send_log(level: str, data: object, logger: str | None) -> None:
        got.append((level, str(data)))

    client = ClientSide(send_log=send_log)
    await client.log("info", "started")
    with pytest.raises(ValueError):
        await client.log("loud", "x")  # type: ignore[arg-type]
    await ClientSide().log("info", "nobody listens")
    assert got == [("info", "started")]
