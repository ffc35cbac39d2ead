"""Stage: find the tool a call names, or refuse with the one it most likely meant."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from drivable.contract.envelope import Envelope, Repair
from drivable.contract.stages.base import Attempt, Refused
from drivable.contract.validation import callable_among

if TYPE_CHECKING:
    from drivable.contract.tool import ToolSpec

# Verbs models use for the fixed verbs of [3.verbs]; the first of each list is the likeliest.
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "find": ("search", "list", "get"),
    "query": ("search", "list"),
    "lookup": ("get", "search"),
    "fetch": ("get", "read"),
    "show": ("get", "list"),
    "retrieve": ("get",),
    "add": ("create",),
    "new": ("create",),
    "make": ("create",),
    "remove": ("delete",),
    "edit": ("update",),
    "modify": ("update",),
}


def resolve(attempt: Attempt) -> ToolSpec:
    """The named tool's spec (recorded on the attempt), or `unknown_tool` naming the nearest."""
    spec = attempt.contract.tools.get(attempt.name)
    if spec is None:
        raise Refused(unknown_tool(attempt.contract.tools, attempt.name, attempt.raw))
    attempt.spec = spec
    return spec


def unknown_tool(tools: Mapping[str, ToolSpec], name: str, raw: Any) -> Envelope:
    names = sorted(tools)
    near = nearest_tool(name, names)
    repair = None
    if near and isinstance(raw, Mapping):
        repair = _checked(tools, near[0], raw, "call_nearest_tool")
    wrapped = None if near else wrapped_call(raw)
    if wrapped is not None:
        repair = _checked(tools, wrapped[0], wrapped[1], "send_the_call_it_wraps")
    if near:
        hint = f"Did you mean {near[0]}? Tools: {', '.join(names)}."
    elif repair is not None:
        # a model sent a repair or next_call as a call of a tool named after it:
        # {"name": "repair", "arguments": {"repair": {"tool": "get_invoice", "arguments": {...}}}}
        hint = (
            f"No tool is named {name!r}: send the call it holds, {repair.tool}, as it is "
            "(the call in `repair`)."
        )
    else:
        hint = f"Call one of: {', '.join(names)} (tools/list describes them)."
    return Envelope("unknown_tool", f"No tool is named {name!r}.", hint=hint, repair=repair)


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
    """`tool` with `arguments` as a repair, when the tool exists and they validate as sent."""
    repair = Repair(tool, dict(arguments), step)
    return repair if callable_among(tools, repair) else None


def nearest_tool(name: str, names: Sequence[str]) -> list[str]:
    """The tool an unknown name most likely meant: by spelling, and by verb synonyms
    ("find_notes" -> search_notes), as a list of at most one name."""
    spellings = [name]
    head, _, rest = name.partition("_")
    for verb in VERB_SYNONYMS.get(head.casefold(), ()):
        spellings.append(f"{verb}_{rest}" if rest else verb)
    best: tuple[float, str] | None = None
    for rank, spelling in enumerate(spellings):
        for candidate in names:
            score = difflib.SequenceMatcher(None, spelling, candidate).ratio() - rank * 0.01
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, candidate)
    return [best[1]] if best else []
