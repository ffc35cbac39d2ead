"""`Kind`: the field metadata that puts a kind on a pydantic field.

Apart from the pydantic seam (`_pydantic`) so that a kind module can declare its aliases
(`Integer = Annotated[int, Kind("integer")]`) without importing pydantic: `drivable read` and
every other user of the readers alone start without it. pydantic is imported only when a model
that uses the field is built, which has imported it already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivable.kinds._reading import jsonable
from drivable.kinds._registry import (
    KINDS,
    NOT_CANONICAL,
    Intent,
    _load_all,
    make_options,
    read_with,
    spec_of,
)

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationInfo
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import core_schema

INTENT_KEY = "drivable.intent"


class Kind:
    """Field metadata that makes a pydantic field read through one kind.

    `Kind("integer", minimum=1, maximum=100, clamp=True)`; options as for `drivable.kinds.read`.
    """

    __slots__ = ("name", "options")

    def __init__(self, name: str, **options: Any) -> None:
        if spec_of(name) is None:
            _load_all()  # the message lists every kind
            raise KeyError(f"unknown kind {name!r}; kinds: {', '.join(sorted(KINDS))}")
        self.name = name
        self.options: dict[str, Any] = options

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"Kind({self.name!r}{opts})"

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from pydantic_core import core_schema

        from drivable.kinds._apply import apply_reading

        spec = KINDS[self.name]
        given = {k: v for k, v in self.options.items() if k != "json_extra"}
        declared = (self.options.get("json_extra") or {}).get("maxLength")
        if isinstance(declared, int) and "max_chars" not in given:
            given["max_chars"] = declared  # the field's own bound, named when it is exceeded
        base = make_options(**given)
        # An intent given to the Kind is the field's own and outlasts the call's: a field whose
        # absence can only refuse (a confirm token) reads a placeholder as absence on a write too.
        pinned = "intent" in self.options

        fast = spec.canonical

        def validate(value: Any, info: ValidationInfo) -> Any:
            if fast is not None:
                got = fast(value, base)
                if got is not NOT_CANONICAL:
                    return got
            context = info.context if isinstance(info.context, dict) else None
            intent: Intent = context.get(INTENT_KEY, "read") if context is not None else "read"
            options = base if pinned or intent == base.intent else base.with_(intent=intent)
            reading = read_with(spec, value, options)
            return apply_reading(reading, info.field_name, context)

        return core_schema.with_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                jsonable, when_used="json"
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        options = dict(self.options)
        extra = options.pop("json_extra", None) or {}
        return {**KINDS[self.name].schema(make_options(**options)), **extra}
