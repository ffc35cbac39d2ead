"""Output models: closed, and concise by default.

`Output` is the base for a tool's result shapes: a closed object ([3.closed-schemas]) whose unset
(null) fields are left out of the result rather than sent as null ([8.strip-nulls]), so a concise
answer carries only what it says. The outputSchema still lists every field.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_serializer


class Output(BaseModel):
    """A closed result object whose null fields are left out of the result."""

    model_config = ConfigDict(extra="forbid")

    # Unannotated on purpose: pydantic then keeps the fields' own schema for the outputSchema.
    @model_serializer(mode="wrap")
    def _without_nulls(self, handler):  # type: ignore[no-untyped-def]
        out: dict[str, Any] = handler(self)
        return {k: v for k, v in out.items() if v is not None}
