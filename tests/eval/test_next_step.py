"""The reader of next steps: for generated catalogs and argument sets written into the prose
templates servers use, it recovers the tool and the arguments named; prose that names no tool of
the catalog yields none."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.eval.next_step import CUES, Known, in_words, read, structured
from drivable.eval.turns import Observation, ToolCall

# words the templates and the surrounding prose use: no property or tool is named like them
PROSE = [
    "error",
    "the",
    "room",
    "is",
    "taken",
    "already",
    "no",
    "free",
    "slot",
    "was",
    "found",
    "on",
    "that",
    "day",
    "please",
    "sorry",
    "it",
    "failed",
    "because",
    "value",
    "wrong",
    "here",
    "again",
    "later",
    "continue",
    "instead",
    "first",
    "then",
    "to",
    "see",
    "times",
    "with",
    "and",
    "for",
    "on",
    "next",
    "step",
    "call",
    "use",
    "try",
    "calling",
    "tool",
    "arguments",
    "of",
    "this",
    "server",
    "a",
    "an",
    "its",
    "your",
    "same",
    "these",
    "those",
    "retry",
    "resend",
    "run",
    "see",
    "check",
]
_PART = st.from_regex(r"[bdfgkmpvz][aeiou][bdfgklmnprstvz]{1,2}[aeiou]?", fullmatch=True).filter(
    lambda w: w not in PROSE and w not in CUES
)
IDENT = st.lists(_PART, min_size=1, max_size=3).map("_".join)
ID_VALUE = st.from_regex(r"[a-z]{2,5}_[0-9]{1,5}", fullmatch=True)
DATE = st.dates().map(lambda d: d.isoformat())
QUOTED = st.lists(st.sampled_from(PROSE), min_size=2, max_size=4).map(" ".join)


@st.composite
def catalogs(draw: st.DrawFn) -> dict[str, dict[str, Any]]:
    """Tools named verb_noun with their own properties (typed string or integer)."""
    names = draw(st.lists(IDENT, min_size=1, max_size=5, unique=True))
    tools = [f"{n}_{draw(_PART)}" for n in names]
    assume(len(set(tools)) == len(tools))
    props = draw(
        st.lists(IDENT, min_size=len(tools), max_size=len(tools) * 4, unique=True).filter(
            lambda ps: not set(ps) & set(tools)
        )
    )
    catalog: dict[str, dict[str, Any]] = {}
    for i, tool in enumerate(tools):
        mine = props[i :: len(tools)]
        kinds = {p: draw(st.sampled_from(["string", "integer"])) for p in mine}
        catalog[tool] = {
            "name": tool,
            "inputSchema": {
                "type": "object",
                "properties": {p: {"type": k} for p, k in kinds.items()},
            },
        }
    return catalog


def _value(kind: str) -> st.SearchStrategy[Any]:
    return st.integers(0, 99_999) if kind == "integer" else st.one_of(ID_VALUE, DATE, QUOTED)


@st.composite
def named_calls(draw: st.DrawFn) -> tuple[dict[str, dict[str, Any]], str, dict[str, Any]]:
    catalog = draw(catalogs())
    tool = draw(st.sampled_from(sorted(catalog)))
    props = catalog[tool]["inputSchema"]["properties"]
    chosen = draw(st.lists(st.sampled_from(sorted(props)), unique=True, max_size=len(props)))
    args = {p: draw(_value(props[p]["type"])) for p in chosen}
    return catalog, tool, args


def _bare_or_quoted(value: Any, quote: bool) -> str:
    if isinstance(value, int):
        return str(value)
    return json.dumps(value) if quote or " " in value else value


def render(template: str, tool: str, args: dict[str, Any], quote: bool, reason: str) -> str:
    pairs = ", ".join(f"{k}={_bare_or_quoted(v, quote)}" for k, v in args.items())
    python = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return {
        "imperative": f"Call {tool} with {pairs}.",
        "use": f"Use {tool} with {pairs} to continue.",
        "try": f"Try calling {tool}({python})",
        "json": f"Next call: {tool} {json.dumps(args)}",
        "json-with": f"Please call {tool} with {json.dumps(args)} instead.",
        "after-error": f"Error: {reason}. Use {tool} with {pairs}.",
        "then": f"Error: {reason}; use {tool} with {pairs}, then see the result.",
    }[template]


TEMPLATES = ("imperative", "use", "try", "json", "json-with", "after-error", "then")


@given(
    named_calls(),
    st.sampled_from(TEMPLATES),
    st.booleans(),
    st.lists(st.sampled_from(PROSE), min_size=1, max_size=8).map(" ".join),
)
def test_the_reader_recovers_the_tool_and_the_arguments_written_out(
    case: tuple[dict[str, dict[str, Any]], str, dict[str, Any]],
    template: str,
    quote: bool,
    reason: str,
) -> None:
    catalog, tool, args = case
    text = render(template, tool, args, quote, reason)
    found = in_words(text, catalog)
    assert found is not None, text
    assert (found.tool, found.arguments, found.source) == (tool, args, "prose"), text
    # and the same words as a plain error's text, the way a server without an envelope sends them
    obs = Observation(ToolCall("other", {}), True, None, text)
    again = read(obs, catalog, Known())
    assert again is not None and (again.tool, again.arguments) == (tool, args)


@given(named_calls(), st.sampled_from(["with the {}", "with your {}", "using the same {}"]))
def test_a_property_named_without_a_value_keeps_the_value_the_caller_sent(
    case: tuple[dict[str, dict[str, Any]], str, dict[str, Any]], phrase: str
) -> None:
    """ "Use get_room with the day": the day of the call the answer is to."""
    catalog, tool, args = case
    assume(args)
    names = " and ".join(phrase.format(k) if i == 0 else f"the {k}" for i, k in enumerate(args))
    text = f"Error: that did not work. Use {tool} {names} to see what is free."
    last = ToolCall("something_else", dict(args))
    found = in_words(text, catalog, Known(last))
    assert found is not None and found.tool == tool and found.arguments == args, text
    # spelled with spaces ("the room id") it is the same property
    spaced = text.replace("_", " ").replace(tool.replace("_", " "), tool)
    found = in_words(spaced, catalog, Known(last))
    assert found is not None and found.arguments == args, spaced
    # a value nobody sent is not invented
    assert in_words(text, catalog, Known(ToolCall("something_else", {}))).arguments == {}  # type: ignore[union-attr]


@given(named_calls(), st.booleans())
def test_the_same_tool_named_again_keeps_the_rest_of_the_call(
    case: tuple[dict[str, dict[str, Any]], str, dict[str, Any]], quote: bool
) -> None:
    catalog, tool, args = case
    props = catalog[tool]["inputSchema"]["properties"]
    sent = {p: "sent" if props[p]["type"] == "string" else 7 for p in props}
    pairs = ", ".join(f"{k}={_bare_or_quoted(v, quote)}" for k, v in args.items())
    text = f"Error: rejected. Call {tool} again with {pairs}."
    found = in_words(text, catalog, Known(ToolCall(tool, sent)))
    assert found is not None and found.arguments == {**sent, **args}, text


@given(catalogs(), st.data())
def test_a_value_after_for_goes_to_the_property_it_starts_like(
    catalog: dict[str, dict[str, Any]], data: st.DataObject
) -> None:
    """ "call get_room for room_7": room_7 is a room_id."""
    tool = data.draw(st.sampled_from(sorted(catalog)))
    stem = data.draw(_PART)
    props = catalog[tool]["inputSchema"]["properties"]
    assume(all(not p.split("_")[0].startswith(stem) for p in props))
    props[f"{stem}_id"] = {"type": "string"}
    value = f"{stem}_{data.draw(st.integers(1, 99_999))}"
    for text in (f"Call {tool} for {value}.", f"Error: not here. Try {tool} for '{value}'"):
        found = in_words(text, catalog)
        assert found is not None and found.arguments == {f"{stem}_id": value}, text


@given(catalogs(), st.data())
def test_the_required_properties_of_another_tool_are_filled_from_what_the_agent_knows(
    catalog: dict[str, dict[str, Any]], data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(sorted(catalog)))
    schema = catalog[tool]["inputSchema"]
    required = data.draw(st.lists(st.sampled_from(sorted(schema["properties"])), unique=True))
    schema["required"] = required
    known = {p: f"known_{i}" for i, p in enumerate(schema["properties"])}
    found = in_words(f"Use {tool} first.", catalog, Known(ToolCall("elsewhere", known)))
    assert found is not None and found.arguments == {p: known[p] for p in required}


# -- no false positives ----------------------------------------------------------------------


@st.composite
def prose_naming_no_tool(draw: st.DrawFn) -> tuple[dict[str, dict[str, Any]], str]:
    """Sentences of cue words, filler and tool-like words none of which is a catalog tool: other
    identifiers, and the catalog's names inside longer ones (get_rooms, get_roomArguments)."""
    catalog = draw(catalogs())
    name = st.sampled_from(sorted(catalog))
    lookalike = st.one_of(
        IDENT.filter(lambda w: w not in catalog),
        name.map(lambda t: f"{t}s"),
        name.map(lambda t: f"{t}Arguments"),
        name.map(lambda t: f"x{t}"),
        name.map(lambda t: f"{t}_v2"),
        name.map(lambda t: f"my_{t}"),
        name.map(lambda t: t.replace("_", " ")),
    )
    words = st.one_of(st.sampled_from(PROSE), st.sampled_from(sorted(CUES)), lookalike)
    sentences = draw(st.lists(st.lists(words, min_size=1, max_size=10), min_size=1, max_size=4))
    ends = draw(st.lists(st.sampled_from([". ", "; ", "\n", ": ", " "]), min_size=len(sentences)))
    text = "".join(" ".join(s) + e for s, e in zip(sentences, ends, strict=False))
    return catalog, text


@given(prose_naming_no_tool())
def test_prose_naming_no_tool_of_the_catalog_names_no_next_call(
    case: tuple[dict[str, dict[str, Any]], str],
) -> None:
    catalog, text = case
    assert in_words(text, catalog) is None, text
    assert read(Observation(ToolCall("t", {}), True, None, text), catalog, Known()) is None


@given(catalogs(), st.data())
def test_a_tool_named_without_a_cue_or_under_a_negation_is_no_next_call(
    catalog: dict[str, dict[str, Any]], data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(sorted(catalog)))
    for text in (
        f"Error executing tool {tool}: timed out",
        f"{tool} failed: the value is wrong.",
        f"Do not use {tool} for this.",
        f"Never call {tool} twice; it is taken.",
        f"You can't use {tool} here",
    ):
        assert in_words(text, catalog) is None, text


# -- structured first ------------------------------------------------------------------------


@given(named_calls(), st.sampled_from(["repair", "next_call"]), st.data())
def test_a_repair_or_next_call_is_read_before_the_words(
    case: tuple[dict[str, dict[str, Any]], str, dict[str, Any]], key: str, data: st.DataObject
) -> None:
    catalog, tool, args = case
    other = data.draw(st.sampled_from(sorted(catalog)))
    env = {
        "code": "invalid_arguments",
        "message": "m",
        "hint": f"Use {other} with nothing.",
        key: {"tool": tool, "arguments": args},
    }
    found = read(Observation(ToolCall("t", {}), True, env, json.dumps(env)), catalog, Known())
    assert found is not None and (found.tool, found.arguments, found.source) == (
        tool,
        args,
        "structured",
    )
    assert structured({key: {"tool": "not_listed", "arguments": {}}}, catalog) is None


@given(named_calls())
def test_did_you_mean_names_the_tool_it_offers(
    case: tuple[dict[str, dict[str, Any]], str, dict[str, Any]],
) -> None:
    """An unknown tool's "Did you mean get_room? Tools: ..." offers get_room as the next call."""
    catalog, tool, _ = case
    listing = ", ".join(sorted(catalog))
    found = in_words(f"Did you mean {tool}? Tools: {listing}.", catalog)
    assert found is not None and found.tool == tool
