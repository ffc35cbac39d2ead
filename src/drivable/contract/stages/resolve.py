"""Stage: find the tool a call names, or refuse naming the tool whose name it spells another way.

A name is another spelling of a tool's when it folds to the same (`text_folding.spelling`: case,
separators, camelCase, a plural), once a host's namespace before it ("mcp__notes__") is gone and
its verb is read through the declared synonyms ("find" for search). A name close in characters is
another tool ("search_nodes" is not search_notes): the refusal lists the tools and guesses none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from drivable.contract.declaration import ENTRY_TOOLS
from drivable.contract.envelope import Envelope, Repair
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.stages.reading import invalid_arguments
from drivable.contract.validation import callable_among
from drivable.kinds import validate
from drivable.kinds.text_folding import name_words, spelling

if TYPE_CHECKING:
    from drivable.contract.tool import ToolSpec

# Verbs models use for the fixed verbs of [3.verbs]; the first of each list is the likeliest.
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "find": ("search", "list", "get"),
    "query": ("search", "list"),
    "lookup": ("get", "search"),
    "fetch": ("get", "read"),
    "read": ("get", "list"),  # a record is read with get; a folder or a collection is listed
    "show": ("get", "list"),
    "retrieve": ("get",),
    "add": ("create",),
    "new": ("create",),
    "make": ("create",),
    "remove": ("delete",),
    "edit": ("update",),
    "modify": ("update",),
}
# Words hosts put before a server's tool names ("mcp__notes__search_notes", "functions.get_note"),
# besides the words of the server's own name.
NAMESPACE_WORDS = frozenset({"mcp", "function", "functions", "tool", "tools"})
FIND_TOOLS = ENTRY_TOOLS[0]
MAX_NAME = 128  # the longest tool name MCP allows: a longer one is echoed cut
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def resolve(attempt: Attempt) -> ToolSpec:
    """The named tool's spec (recorded on the attempt), or `unknown_tool` naming the tool its
    name spells another way, if one."""
    spec = attempt.contract.tools.get(attempt.name)
    if spec is None:
        namespace = name_words(attempt.contract.name)
        listed = attempt.contract.listed_names
        raise Refused(
            unknown_tool(attempt.contract.tools, attempt.name, attempt.raw, namespace, listed)
        )
    attempt.spec = spec
    return spec


def unknown_tool(
    tools: Mapping[str, ToolSpec],
    name: str,
    raw: Any,
    namespace: Iterable[str] = (),
    listed: Sequence[str] | None = None,
) -> Envelope:
    """The refusal of a call naming no tool. `listed`: the names tools/list shows (None: every
    tool); a hint names only those, and where they are a large catalog's entry tools, the tool
    is found with find_tools."""
    names = sorted(listed) if listed is not None else sorted(tools)
    said = name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"
    same = same_tools(name, sorted(tools), namespace)
    near = same if len(same) == 1 else []
    repair = None
    if near and isinstance(raw, Mapping):
        repair = _checked(tools, near[0], raw, "call_nearest_tool")
    wrapped = None if near else wrapped_call(raw)
    if wrapped is not None:
        repair = _checked(tools, wrapped[0], wrapped[1], "send_the_call_it_wraps")
    described = [] if same or repair is not None else described_tools(tools, name, raw, namespace)
    if len(described) == 1 and isinstance(raw, Mapping):
        repair = _checked(tools, described[0], raw, "call_the_tool_that_does_it")
    if len(described) == 1:
        how = (
            ""
            if repair is None
            else " (the call in `repair`, the arguments as sent)"
            if repair.arguments == raw
            else f" (the call in `repair`, the arguments as {described[0]} takes them)"
        )
        hint = (
            f"No tool is named {said!r}; {described[0]}'s description says it does that: call "
            f"{described[0]}{how}. Tools: {', '.join(names)}."
        )
    elif described:
        hint = f"No tool is named {said!r}; {', '.join(described)} each say they do that: call the one meant."
    elif near:
        how = " (the call in `repair`)" if repair is not None else ""
        hint = f"{said!r} is what this server calls {near[0]}: call {near[0]}{how}. Tools: {', '.join(names)}."
    elif same:
        hint = f"{said!r} may be any of {', '.join(same)}: call the one meant."
    elif repair is not None:
        # a model sent a repair or next_call as a call of a tool named after it:
        # {"name": "repair", "arguments": {"repair": {"tool": "get_invoice", "arguments": {...}}}}
        hint = (
            f"No tool is named {said!r}: send the call it holds, {repair.tool}, as it is "
            "(the call in `repair`)."
        )
    elif set(tools) <= set(names):
        hint = f"Call one of: {', '.join(names)} (tools/list describes them)."
    else:  # a large catalog: what tools/list shows is how to find the tool
        repair = find_the_tool(name)
        hint = f"No tool is named {said!r}: find the one meant with {FIND_TOOLS} (the call in `repair`)."
    return Envelope("unknown_tool", f"No tool is named {said!r}.", hint=hint, repair=repair)


def find_the_tool(name: str) -> Repair:
    """The call that finds, in a large catalog, the tool a call named `name` meant: its words."""
    query = " ".join(name_words(name[:MAX_NAME], singulars=False)) or name[:MAX_NAME]
    return Repair(FIND_TOOLS, {"query": query}, "find the tool")


def described_tools(
    tools: Mapping[str, ToolSpec], name: str, raw: Any, namespace: Iterable[str] = ()
) -> list[str]:
    """The tools whose own name and the first sentence of whose description (what the tool does,
    in the author's words) hold every word of `name`, a host's namespace aside, each word as its
    singular.
    Several: those of them that take the call's arguments as sent, when that is one; else all
    (docs/decisions/0037-the-tool-whose-description-says-it.md)."""
    words = list(name_words(name))
    prefixes = NAMESPACE_WORDS | set(namespace)
    while len(words) > 1 and words[0] in prefixes:
        words.pop(0)
    if len(words) < 2:  # a name that says what it does has a verb and what it acts on
        return []
    found = [
        n
        for n, spec in sorted(tools.items())
        if set(words) <= set(name_words(f"{n} {first_sentence(spec.description)}"))
    ]
    if len(found) > 1 and isinstance(raw, Mapping):
        fitting = [n for n in found if callable_among(tools, Repair(n, dict(raw), ""))]
        if len(fitting) == 1:
            return fitting
    return found


def first_sentence(text: str) -> str:
    """What a description says first: up to the first full stop, question or exclamation mark
    that ends a sentence."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def wrapped_call(raw: Any) -> tuple[str, Mapping[str, Any]] | None:
    """The call an unknown tool's arguments hold: `{"tool": ..., "arguments": {...}}` itself, or
    as the only value of one key (`{"repair": {...}}`, `{"next_call": {...}}`)."""
    if isinstance(raw, Mapping) and len(raw) == 1:
        (inner,) = raw.values()
        if isinstance(inner, Mapping) and "tool" in inner:
            raw = inner
    if not isinstance(raw, Mapping) or set(raw) - {"tool", "arguments", "next_step"}:
        return None
    tool, arguments = raw.get("tool"), raw.get("arguments", {})
    if isinstance(tool, str) and isinstance(arguments, Mapping):
        return tool, arguments
    return None


def _checked(
    tools: Mapping[str, ToolSpec], tool: str, arguments: Mapping[str, Any], step: str
) -> Repair | None:
    """`tool` with `arguments` as a repair, when the tool exists and they validate as sent; else
    the repair `tool`'s own reading would offer for them (a name spelled another way, a key
    minted, an item nested: `stages.reading.invalid_arguments`), when it is a call of `tool`.
    docs/decisions/0048-a-repair-is-accepted-as-sent.md"""
    repair = Repair(tool, dict(arguments), step)
    spec = tools.get(tool)
    if spec is None or callable_among(tools, repair):
        return repair if spec is not None else None
    try:
        validate(spec.input_model, arguments, intent=spec.intent)
    except ValidationError as error:
        own = invalid_arguments(spec, arguments, error).repair
        return own if own is not None and own.tool == tool else None
    return None


def synonyms(verb: str) -> tuple[str, ...]:
    """The verbs `verb` may stand for, likeliest first: those `VERB_SYNONYMS` gives it, then those
    it is given for (a synonym goes both ways: "find" may mean list, so "list" may mean find)."""
    forward = VERB_SYNONYMS.get(verb, ())
    back = tuple(k for k, meant in VERB_SYNONYMS.items() if verb in meant and k not in forward)
    return forward + back


def same_tools(name: str, names: Sequence[str], namespace: Iterable[str] = ()) -> list[str]:
    """The tools whose name `name` spells another way (one, several, or none), in `names` order.

    Its spellings: itself, and without leading words of a host's namespace (`NAMESPACE_WORDS`
    and the words of the server's own name, `namespace`); then, if none of those names a tool,
    each with its verb read through `synonyms`, the likeliest first.
    """
    words = name_words(name)
    prefixes = NAMESPACE_WORDS | set(namespace)
    bodies = [name]
    for at in range(1, len(words)):
        if not set(words[:at]) <= prefixes:
            break
        bodies.append("_".join(words[at:]))
    tiers: list[set[str]] = [{spelling(body) for body in bodies}]
    for body in bodies:
        head, *rest = name_words(body) or ("",)
        for rank, verb in enumerate(synonyms(head), start=1):
            while len(tiers) <= rank:
                tiers.append(set())
            tiers[rank].add(spelling("_".join((verb, *rest))))
    for keys in tiers:
        found = [n for n in names if spelling(n) in keys]
        if found:
            return found
    return []
