"""A persona sends only what it was shown (decision 0038): the user's value as the user said it,
and in the server's form once the listing or an answer has shown that form or that value."""

from __future__ import annotations

import datetime
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.agents.simulated import PERSONAS, SimulatedAgent
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Workflow

TOOL = "do_it"
NAMES = ("day", "start", "place", "when", "owner")


def _spelled(kind: str, day: datetime.date, hour: int) -> tuple[str, str]:
    """A value and how a user says it, never the same text."""
    if kind == "date":
        return day.isoformat(), f"{day.day}. {day.month}. {day.year}"
    if kind == "date_words":
        return day.isoformat(), day.strftime("%A %d %B %Y")
    return f"{hour:02d}:00", f"{hour % 12 or 12}{'am' if hour < 12 else 'pm'}"


facts_st = st.dictionaries(
    st.sampled_from(NAMES),
    st.tuples(
        st.sampled_from(("date", "date_words", "time")),
        st.dates(datetime.date(2000, 1, 1), datetime.date(2099, 12, 31)),
        st.integers(0, 23),
    ).map(lambda t: _spelled(*t)),
    min_size=1,
    max_size=4,
)
# how the listing shows a property: not at all, in the description's example, as a schema format
shows_st = st.sampled_from(("nothing", "example", "format", "enum"))
personas_st = st.sampled_from(sorted(PERSONAS))
seeds_st = st.integers(0, 50)


def _workflow(facts: dict[str, tuple[str, str]]) -> Workflow:
    return Workflow.model_validate(
        {
            "name": "shown",
            "goal": "Do the thing the user asked for.",
            "facts": {k: {"value": v, "spelled": s} for k, (v, s) in facts.items()},
            "steps": [
                {
                    "name": "done",
                    "ask": "Do it with what the user said.",
                    "draft": {"tool": TOOL, "arguments": {k: f"{{{k}}}" for k in facts}},
                    "done": {"tool": TOOL},
                }
            ],
        }
    )


def _tool(facts: dict[str, tuple[str, str]], shows: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    description = "Does it."
    for name, (value, _) in facts.items():
        prop: dict[str, Any] = {"type": "string"}
        if shows == "format":
            prop["format"] = "date" if "-" in value else "time"
        elif shows == "enum":
            prop["enum"] = [value]
        props[name] = prop
    if shows == "example":
        example = {
            name: "<YYYY-MM-DD>" if "-" in v else "<HH:MM>" for name, (v, _) in facts.items()
        }
        description += f" Example: {json.dumps(example)}."
    return {"name": TOOL, "description": description, "inputSchema": {"properties": props}}


async def _first_call(persona: str, seed: int, wf: Workflow, tool: dict[str, Any]) -> ToolCall:
    agent = SimulatedAgent(persona, seed)
    await agent.begin(wf, [tool])
    call = await agent.act(None)
    assert isinstance(call, ToolCall)
    return call


@given(facts=facts_st, persona=personas_st, seed=seeds_st)
async def test_nothing_shows_the_form_so_the_user_s_words_are_sent(
    facts: dict[str, tuple[str, str]], persona: str, seed: int
) -> None:
    """A listing that shows no form (a plain string property, no example: most servers): the
    persona sends the fact as the model is shown it, never the canonical value nobody showed."""
    wf = _workflow(facts)
    call = await _first_call(persona, seed, wf, _tool(facts, "nothing"))
    if "spell" in SimulatedAgent(persona, seed).habits:
        return  # the speller writes its own spellings (test_personas)
    for name, (value, spelled) in facts.items():
        assert call.arguments[name] == spelled, (persona, name, call.arguments)
        assert value not in wf.prompt()


@given(facts=facts_st, shows=shows_st.filter(lambda s: s != "nothing"), persona=personas_st)
async def test_a_form_the_listing_shows_is_used(
    facts: dict[str, tuple[str, str]], shows: str, persona: str
) -> None:
    """The listing shows the form (an example, a format, an enum): every persona that does not
    spell sends the canonical value, so a server that shows its forms gets the credit for it."""
    call = await _first_call(persona, 0, _workflow(facts), _tool(facts, shows))
    if "spell" in SimulatedAgent(persona, 0).habits:
        return
    for name, (value, _) in facts.items():
        assert call.arguments[name] == value, (persona, shows, name, call.arguments)


@given(facts=facts_st, persona=personas_st)
async def test_a_value_an_answer_showed_is_used_from_then_on(
    facts: dict[str, tuple[str, str]], persona: str
) -> None:
    """An answer that shows the canonical value (a result listing it) shows it: the persona's
    next draft uses it, as a model copies what it has read."""
    wf = _workflow(facts)
    wf = wf.model_copy(
        update={"steps": [wf.steps[0], wf.steps[0].model_copy(update={"name": "again"})]}
    )
    agent = SimulatedAgent(persona, 0)
    await agent.begin(wf, [_tool(facts, "nothing")])
    first = await agent.act(None)
    assert isinstance(first, ToolCall)
    answer = {name: value for name, (value, _) in facts.items()}
    second = await agent.act(Observation(first, False, answer, json.dumps(answer)))
    if "spell" in agent.habits or not isinstance(second, ToolCall):
        return
    for name, (value, _) in facts.items():
        assert second.arguments[name] == value, (persona, name, second.arguments)
