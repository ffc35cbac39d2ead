"""Output models: closed, and concise by default.

`Output` is the base for a tool's result shapes: a closed object ([3.closed-schemas]) whose unset
optional fields are left out of the result rather than sent as null ([8.strip-nulls]), so a concise
answer carries only what it says. A required field keeps its null: the outputSchema requires the
property, so leaving it out would break the tool's own schema. The outputSchema lists every field.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_serializer


@cache
def _omittable(model: type[BaseModel]) -> frozenset[str]:
    """The keys (names and aliases) of fields with a default: those a null may be left out of."""
    keys: set[str] = set()
    for name, info in model.model_fields.items():
        if not info.is_required():
            keys.add(name)
            if info.serialization_alias or info.alias:
                keys.add(str(info.serialization_alias or info.alias))
    return frozenset(keys)


class Output(BaseModel):
    """A closed result object whose optional null fields are left out of the result."""

    model_config = ConfigDict(extra="forbid")

    # The field a model reads as the answer's first text block when it holds text (a wrapped
    # server's prose, `drivable.wrap.results`): sent as it is, the rest of the result as JSON
    # after it, structuredContent whole. None: the first block is the result's JSON.
    prose_field: ClassVar[str | None] = None

    # Unannotated on purpose: pydantic then keeps the fields' own schema for the outputSchema.
    @model_serializer(mode="wrap")
    def _without_nulls(self, handler):  # type: ignore[no-untyped-def]
        out: dict[str, Any] = handler(self)
        omittable = _omittable(type(self))
        return {k: v for k, v in out.items() if v is not None or k not in omittable}
