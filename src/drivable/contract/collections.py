"""Best effort for collections: each entry validated alone, valid ones applied, the rest reported.

`lines: EachOnItsOwn[LineInput]` advertises an ordinary array of `LineInput`; reading keeps the
entries that validate and records the others, with their issues under `lines.<index>.<field>`,
so one bad property does not sink a call that carried seven good entries (seed 000, rule 6).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import (
    GetCoreSchemaHandler,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
)
from pydantic_core import core_schema

REJECTED_KEY = "drivable.rejected"

T = TypeVar("T")


class _EachOnItsOwn:
    """Field metadata: validate a list's entries independently."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        args = getattr(source, "__args__", None)
        if not args:
            raise TypeError("EachOnItsOwn applies to list[Model]")
        item = TypeAdapter(args[0])
        strict = handler(source)

        def validate(value: Any, _strict: Any, info: ValidationInfo) -> list[Any]:
            entries = value if isinstance(value, list) else [value]
            kept: list[Any] = []
            rejected: list[dict[str, Any]] = []
            for index, entry in enumerate(entries):
                try:
                    kept.append(item.validate_python(entry, context=info.context))
                except ValidationError as error:
                    rejected.append(
                        {"field": info.field_name, "index": index, "entry": entry, "error": error}
                    )
            if rejected and isinstance(info.context, dict):
                info.context.setdefault(REJECTED_KEY, []).extend(rejected)
            return kept

        # A wrap validator: the inner (strict list) schema is what JSON Schema shows; reading
        # goes entry by entry instead of calling it.
        return core_schema.with_info_wrap_validator_function(validate, strict)


EACH_ON_ITS_OWN = _EachOnItsOwn()


EachOnItsOwn = Annotated[list[T], EACH_ON_ITS_OWN]
"""`EachOnItsOwn[LineInput]` is `list[LineInput]`, read entry by entry (a generic alias, so a type
checker sees the list a handler iterates)."""
