"""What the runtime adds to what an author wrote, in one registry.

An author writes a tool's description and its input model; the runtime adds sentences to the
description (the example call, the retry and two-step rules, a long task's duration) and keywords
to the input schema (the dialect, the stored integer range, example values, the descriptions of
the control fields it requires). Each addition is an entry here: its id, where it goes, what it
adds, and the decision that keeps it in `tools/list` or leaves it to the detail.

`tools/list` carries the additions in `SHOWN`; `server/discover`'s detail (`dev.drivable/tools`)
carries every one. Only an addition with real-model evidence, or one a model needs to call at all,
is in `SHOWN` (docs/decisions/0033-a-compact-baseline.md); dropping or restoring one is one line.

Not additions: the author's own text and `more`, the schema the input model declares (types,
bounds, enums, defaults, `required`), and a kind's description where the author wrote none (the
form a value is written in, which stands in for the `format` and `pattern` the listing leaves out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

DECISION: Final = "docs/decisions/0033-a-compact-baseline.md"

Place = Literal["description", "inputSchema"]


@dataclass(frozen=True)
class Addition:
    """One thing the runtime adds to a tool's listing: where, what, and why it is (not) shown."""

    id: str
    place: Place
    adds: str

    @property
    def decision(self) -> str:
        """The decision file (and its section for this id) that keeps or drops it."""
        return f"{DECISION}#{self.id}"


ADDITIONS: Final[dict[str, Addition]] = {
    a.id: a
    for a in (
        Addition(
            "example-sentence",
            "description",
            "`Example: {...}.`: the first of the tool's `examples=`, when the author's text has "
            "no example of its own",
        ),
        Addition(
            "retry-sentence",
            "description",
            "on a keyed tool: resending the same idempotency_key and arguments within the "
            "receipt window replays the first result",
        ),
        Addition(
            "two-step-sentence",
            "description",
            "on a destructive tool: call with dry_run=true to preview, then send the preview's "
            "next_call as it is (the confirm_token's lifetime and single use)",
        ),
        Addition(
            "task-duration",
            "description",
            "on a long-running tool: its usual duration and when it is stopped",
        ),
        Addition(
            "task-protocol",
            "description",
            "on a long-running tool: how the tasks extension runs it, and how long its result "
            "is kept",
        ),
        Addition("dialect", "inputSchema", "`$schema`: JSON Schema 2020-12, MCP's default"),
        Addition(
            "integer-range",
            "inputSchema",
            "the stored 64-bit range as `minimum`/`maximum` of an integer that declares none",
        ),
        Addition(
            "property-examples",
            "inputSchema",
            "a kind's example value (`2026-10-01`, `14:30`) on a required property (an optional "
            "property's is never listed: decision 0023)",
        ),
        Addition(
            "call-examples",
            "inputSchema",
            "the tool's `examples=` that hold no placeholder, as the schema's `examples`",
        ),
        Addition(
            "key-description",
            "inputSchema",
            "the description of `idempotency_key`: the caller makes the key up and resends it",
        ),
        Addition(
            "dry-run-description",
            "inputSchema",
            "the description of `dry_run`: true previews and returns a confirm_token",
        ),
        Addition(
            "confirm-token-description",
            "inputSchema",
            "the description of `confirm_token`: the one the dry run of this exact call returned",
        ),
    )
}

# What tools/list carries; every other addition is in server/discover's detail only.
# One line per addition: the decision file says why each one is here.
SHOWN: Final[frozenset[str]] = frozenset(
    {
        "example-sentence",
        "two-step-sentence",
        "task-duration",
        "key-description",
        "confirm-token-description",
    }
)

EVERY: Final[frozenset[str]] = frozenset(ADDITIONS)
