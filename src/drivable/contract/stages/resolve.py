"""Stage: find the tool a call names, or refuse with the one it most likely meant."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from drivable.contract.envelope import Envelope, Repair
from drivable.contract.stages.base import Attempt, Refused
from drivable.kinds import validate

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
        target = tools[near[0]]
        try:
            validate(target.input_model, raw, intent=target.intent)
            repair = Repair(near[0], dict(raw), "call_nearest_tool")
        except ValidationError:
            repair = None
    hint = (
        f"Did you mean {near[0]}? Tools: {', '.join(names)}."
        if near
        else f"Call one of: {', '.join(names)} (tools/list describes them)."
    )
    return Envelope("unknown_tool", f"No tool is named {name!r}.", hint=hint, repair=repair)


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
