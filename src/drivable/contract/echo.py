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
