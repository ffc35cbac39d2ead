"""Echo the next call: discovery results carry the exact payload the next tool accepts (rule 7).

Copying beats inferring. A `NextCall` is built through `Contract.next_call`, which validates the
arguments against the named tool's own input model, so an echoed call is always literally callable.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class NextCall(BaseModel):
    """A call the caller can make as it is: a real tool and arguments its schema accepts."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(description="The tool to call next.")
    arguments: dict[str, Any] = Field(description="Arguments to pass as they are.")


# A result's `next_call` (the runtime writes it on a page with more after it and on a dry run's
# preview): no `next_step` label beside the tool, unlike a repair. Shown
# {"next_step": "confirm_with_the_token", "tool": "refund_invoice", ...}, the real model called a
# tool named confirm_with_the_token.
NEXT_CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "The call to make next, as it is: the next page, the confirmation of a dry run, or "
        "the call this result leads to. Present when there is one."
    ),
    "additionalProperties": False,
    "required": ["tool", "arguments"],
    "properties": {
        "tool": {"type": "string"},
        # untyped, so that the outputSchema stays closed: its shape is the named tool's input
        "arguments": {"description": "Arguments the named tool's inputSchema accepts."},
    },
}
