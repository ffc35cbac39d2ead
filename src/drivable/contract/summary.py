"""The capability summary ([2.summary]): what the server does, does not, and needs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# A sentence of negative scope, as a reader (or the auditor) recognises one.
_NEGATIVE = re.compile(r"\b(does not|doesn't|do not|cannot|can't|never|out of scope)\b", re.I)


@dataclass(frozen=True)
class Summary:
    """The capability summary ([2.summary]): what the server does, does not, and needs."""

    text: str
    does: Sequence[str]
    does_not: Sequence[str]
    prerequisites: Mapping[str, Any] = field(default_factory=dict)

    def instructions(self) -> str:
        """`instructions` as served: the text, and what the server does not do when the text
        does not say so itself ([2.negative-scope])."""
        text = self.text.strip()
        if not self.does_not or _NEGATIVE.search(text):
            return text
        return f"{text} It does not: {'; '.join(self.does_not)}."

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.text,
            "does": list(self.does),
            "does_not": list(self.does_not),
            "prerequisites": dict(self.prerequisites),
            "error_carriers": {
                "tool_errors": "tools/call result with isError: true; the envelope's JSON "
                "text in content[0] and the object in _meta['dev.drivable/envelope']",
                "non_tool_rpc_errors": "JSON-RPC error with the envelope in error.data "
                "(machine_code, human_message)",
            },
        }
