"""A wrapped tool's effects: the upstream's annotations, overridden by the config.

A tool with no annotations is a write that a retry would repeat (it gains `idempotency_key`),
never read-only: a hint the author did not give is not assumed in the caller's favour. A hint
given is taken at its word. Without `destructiveHint`, a write is destructive when its name leads
with a destructive verb (`drivable.verbs.DESTRUCTIVE_VERBS`, the vocabulary the auditor reads a
name's effect from: `delete_note`, `remove-item`), else not, so an upstream that says nothing of
destruction is not made two-step for nothing (the config says `effects = "delete"` when it is).
The control fields follow from the effects as on any drivable tool (`Preset.adds`).

An upstream that declares a control field itself (`owned`: a drivable server behind the wrapper,
or any server with its own keys or two steps) means the same thing by it, and the runtime reserves
those names for its own mechanism, so the mechanism is the wrapper's and the value is passed on
(`drivable.wrap.build`): a write that declares `idempotency_key` is keyed (the one key is the
wrapper's receipt and the upstream's); a tool that declares `dry_run` or `confirm_token` is
two-step (destructive), whatever its hints say.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from drivable.contract.declare import Preset
from drivable.verbs import DESTRUCTIVE_VERBS


def effects_of(
    annotations: Mapping[str, Any] | None,
    configured: Mapping[str, bool] | None,
    name: str = "",
    owned: Collection[str] = (),
) -> Preset:
    """The effects a wrapped tool named `name` is declared with; `owned`: the control fields
    its upstream schema declares itself."""
    hints = dict(annotations or {})
    if configured is not None:
        read_only = configured.get("read_only", False)
        destructive = configured.get("destructive", False)
        idempotent = configured.get("idempotent", read_only)
        open_world = configured.get("open_world", hints.get("openWorldHint") is not False)
    else:
        read_only = hints.get("readOnlyHint") is True
        said = hints.get("destructiveHint")
        destructive = not read_only and (said is True or (said is None and _destroys(name)))
        idempotent = read_only or hints.get("idempotentHint") is True
        # MCP's default for openWorldHint is true: only an explicit false closes the world
        open_world = hints.get("openWorldHint") is not False
    if {"dry_run", "confirm_token"} & set(owned):
        read_only, destructive = False, True
    if read_only:
        destructive, idempotent = False, True
    adds: tuple[str, ...] = ()
    if not read_only and (not idempotent or "idempotency_key" in owned):
        adds += ("idempotency_key",)
    if destructive:
        adds += ("dry_run", "confirm_token")
    return Preset(
        read_only=read_only,
        destructive=destructive,
        idempotent=idempotent,
        open_world=open_world,
        adds=adds,
    )


def _destroys(name: str) -> bool:
    """The name leads with a destructive verb (`verb_noun`, or `prefix_verb_noun`)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().replace("-", "_").split("_")
    words = [w for w in words if w]
    return bool(words) and (
        words[0] in DESTRUCTIVE_VERBS or (len(words) >= 3 and words[1] in DESTRUCTIVE_VERBS)
    )
