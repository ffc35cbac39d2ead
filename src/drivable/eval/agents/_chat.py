"""What the model backends share: the system prompt, a queue of calls, turning a reply into calls."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from drivable.eval.turns import ToolCall

SYSTEM = (
    "You are an assistant that completes the user's task by calling the tools provided. "
    "Use only what the tools' names, descriptions and schemas say. When a tool returns an error, "
    "read it and make the next call it suggests. When every step is done, answer with a short "
    "summary and call no more tools."
)

_NATIVE = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCED = re.compile(r"```(?:json|tool_call)?\s*(\{.*?\})\s*```", re.S)


def _as_call(obj: Any) -> ToolCall | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {"__unparsed__": args}
    return ToolCall(obj["name"], args if isinstance(args, dict) else {"__unparsed__": args})


def parse_tool_calls(
    text: str, tools: Mapping[str, Collection[str]] | None = None
) -> tuple[list[ToolCall], str]:
    """Calls written as text: native `<tool_call>` tags, then fenced JSON, then bare JSON, then
    objects of arguments each after the name of one of `tools` (`named_calls`).

    Returns the calls and which path matched ("native", "fenced", "bare", "named" or "none"): the
    path is itself an evaluation signal (a model that answers in fences does not follow its own
    template).
    """
    native = [c for m in _NATIVE.findall(text) for o in _objects(m) if (c := _as_call(o))]
    if native:
        return native, "native"
    fenced = [c for m in _FENCED.findall(text) for o in _objects(m) if (c := _as_call(o))]
    if fenced:
        return fenced, "fenced"
    # every call, as for the other paths: a reply of JSON lines restates its plan from the top,
    # and the agent sends the first call of it not yet done (one was seen, the rest were lost)
    bare = [c for o in _objects(text) if (c := _as_call(o))]
    if bare:
        return bare, "bare"
    named = named_calls(text, tools or {})
    if named:
        return named, "named"
    return [], "none"


def named_calls(text: str, tools: Mapping[str, Collection[str]]) -> list[ToolCall]:
    """The calls of a reply written as advice: "use the `find_invoices` function with the
    following arguments:" and a JSON object of them. Each object is a call of the tool named last
    before it, when every key of the object is a property of that tool (`tools` maps each name to
    its properties), so a summary quoting a result is not taken for a call."""
    mentions = sorted(
        (match.start(), name)
        for name in tools
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w|\.\w)", text)
    )
    found: list[ToolCall] = []
    for at, value in _objects_at(text):
        before = [name for position, name in mentions if position < at]
        if before and isinstance(value, dict) and set(value) <= set(tools[before[-1]]):
            found.append(ToolCall(before[-1], value))
    return found


def _objects_at(text: str) -> list[tuple[int, Any]]:
    """Every JSON object that starts somewhere in `text`, with where it starts."""
    found: list[tuple[int, Any]] = []
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text[at:])
        except ValueError:
            at = text.find("{", at + 1)
            continue
        found.append((at, value))
        at = text.find("{", at + end)
    return found


def _objects(text: str) -> list[Any]:
    """Every JSON object that starts somewhere in `text` (bare JSON in prose)."""
    return [value for _, value in _objects_at(text)]


_CLOSED = re.compile(
    r"<tool_call>\s*(.*?)\s*</tool_call>|```(?:json|tool_call)?\s*(\{.*?\})\s*```", re.S
)


def calls_before_cut(text: str) -> list[ToolCall]:
    """The calls a reply cut at its length limit finished: those in tagged or fenced blocks closed
    before the cut, else each whole line that is one call (the model is asked for one call per
    line), up to the first line that is not, where the cut is.

    A block or a line is parsed whole, so an object inside the broken call (its `arguments`) is
    never taken for a call. Seen: a plan whose first line was a whole list_notes call and whose
    second ran to the limit on a cursor of zeros, the first call lost with it; and a plan in prose
    whose first fenced block was the whole search the step wanted, cut in its third block.
    """
    closed = [
        c
        for tagged, fenced in _CLOSED.findall(text)
        for o in _objects(tagged or fenced)
        if (c := _as_call(o))
    ]
    if closed:
        return closed
    found: list[ToolCall] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        try:
            call = _as_call(json.loads(line))
        except ValueError:
            call = None
        if call is None:
            break
        found.append(call)
    return found
