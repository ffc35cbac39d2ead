"""The author's side of paging: a handler returns `Paged[Row]`, the runtime does the arithmetic.

A tool whose handler is declared to return `Paged[Row]` (or a subclass) takes `cursor` and `limit`:
both are added to its input unless it declares them itself (`limit`, to choose its default and
bounds). The handler pages in one of two ways:

- it takes `page: Page` and reads one page at the source: `page.offset` rows skipped and
  `page.fetch` rows read (one more than `page.limit`, so that the runtime sees whether more
  follow), e.g. `LIMIT ? OFFSET ?` with `(page.fetch, page.offset)`;
- or it takes no `Page` and returns every row, and the runtime slices the page out of them.

Either way the runtime decodes the cursor (a damaged, foreign or expired one is refused with the
call that restarts, `drivable.contract.paging.Pager`), keeps `limit` rows, sets `has_more` and
signs `next_cursor` for the rows that follow; a page with no rows is the last. A handler that
knows more rows follow without reading one (an upstream API's flag) says `has_more=True`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, GetJsonSchemaHandler, create_model
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from drivable.contract.call import Call
from drivable.contract.output import Output
from drivable.contract.paging import Pager

Row = TypeVar("Row")

# The fields a paged tool takes when it does not declare them.
CURSOR: Any = Field(
    None, description="The next_cursor of the previous page; omit it for the first page."
)
LIMIT: Any = Field(20, ge=1, le=100, description="How many results a page holds, 1 to 100.")

# One pager for every `Paged` tool of the process: a cursor's scope names its tool and query.
PAGER = Pager()


class Paged(Output, Generic[Row]):
    """A page of rows. The handler fills `results`; the runtime trims them to the page, and sets
    `has_more` and `next_cursor`. Subclass it to return more fields beside the rows."""

    results: list[Row] = Field(description="The rows of this page, in order.")
    has_more: bool = Field(
        False, description="True when another page follows; its call is this result's next_call."
    )
    next_cursor: str | None = Field(
        None, description="Pass as `cursor` to get the next page; absent on the last page."
    )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # every page says has_more (the runtime sets it), so the outputSchema requires it
        json_schema = handler.resolve_ref_schema(handler(schema))
        json_schema["properties"]["has_more"].pop("default", None)
        required = json_schema.setdefault("required", [])
        if "has_more" not in required:
            required.append("has_more")
        return json_schema


@dataclass(frozen=True)
class Page:
    """Which rows a paged handler reads (`page: Page`): skip `offset`, read `fetch`."""

    offset: int
    limit: int

    @property
    def fetch(self) -> int:
        """How many rows to read: one past the page tells the runtime whether more follow."""
        return self.limit + 1


def is_paged(output: Any) -> bool:
    """The handler returns `Paged[Row]` (or a subclass of it)."""
    return isinstance(output, type) and issubclass(output, Paged)


def with_paging(model: type[BaseModel]) -> Any:
    """`model` with `cursor` and `limit`, those of the two it does not declare added last."""
    missing = {
        name: (annotation, default)
        for name, annotation, default in (("cursor", str | None, CURSOR), ("limit", int, LIMIT))
        if name not in model.model_fields
    }
    if not missing:
        return model
    extended = create_model(  # type: ignore[call-overload]
        model.__name__, __base__=model, __module__=model.__module__, **missing
    )
    extended.__doc__ = model.__doc__
    return extended


def open_page(call: Call, args: BaseModel) -> Page:
    """The page the call asks for: its cursor decoded (or refused), its limit."""
    limit = getattr(args, "limit", None)
    if not isinstance(limit, int) or limit < 1:
        raise TypeError(f"{call.tool}: a paged tool's `limit` must be a positive integer")
    return Page(offset=PAGER.offset(call, args), limit=limit)


def close_page(call: Call, args: BaseModel, page: Page, result: Any, *, sliced: bool) -> Any:
    """The handler's `Paged` as the page it answers: its rows from `page.offset` (`sliced`: the
    handler read from there itself; else every row was returned), at most `page.limit` of them,
    and the cursor of the rows that follow. Anything else is left for shaping to refuse."""
    if not isinstance(result, Paged):
        return result
    rows = list(result.results if sliced else result.results[page.offset :])
    shown = rows[: page.limit]
    more = bool(shown) and (result.has_more or len(rows) > page.limit)
    info = PAGER.page(call, args, page.offset, len(shown), more)
    return result.model_copy(
        update={"results": shown, "has_more": info.has_more, "next_cursor": info.next_cursor}
    )
