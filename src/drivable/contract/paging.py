"""Paging: opaque signed cursors scoped to the tool and its query, and the detail toggle.

A cursor is issued by `Pager.next_cursor` and read back by `Pager.offset`. The kinds own what a
cursor *spelling* means (an invented first-page cursor like "0" or "start" is no cursor); this
module owns what a real token decodes to, and refuses a damaged, foreign or expired one with the
call that restarts paging — never a silent restart at page one ([8.cursor-lifetime]).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from drivable.contract.call import Call
from drivable.contract.envelope import Repair, ToolError
from drivable.kinds.cursor import check_cursor, cursor_scope, encode_cursor
from drivable.settings import token_secret

Detail = Literal["summary", "full"]

# Inputs that do not change which rows a query returns; left out of a cursor's scope so a caller
# may switch detail (or page size) between pages.
NOT_SCOPED = frozenset({"cursor", "page_token", "detail", "limit", "page_size"})


class PageInfo(BaseModel):
    """The house pagination fields of a tool result ([8.house-pagination])."""

    model_config = ConfigDict(extra="forbid")

    has_more: bool = Field(
        description="True when another page follows; pass next_cursor to get it."
    )
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` to get the next page; null on the last page."
    )


@dataclass(frozen=True)
class Pager:
    """Issues and reads cursors for one server. Several worker processes share `secret`; without
    one, the runtime's token secret (`drivable.settings.token_secret`: configured, or derived in
    the shared store at startup) signs them."""

    secret: bytes | None = None
    lifetime_s: float = 3600.0

    @property
    def key(self) -> bytes:
        return self.secret or token_secret()

    def _scope(self, tool: str, args: BaseModel) -> str:
        query = args.model_dump(mode="json", exclude=set(NOT_SCOPED))
        return cursor_scope(tool, query)

    def _restart(self, tool: str, args: BaseModel, cursor_field: str) -> Repair:
        arguments = args.model_dump(mode="json", exclude={cursor_field}, exclude_defaults=True)
        return Repair(tool, arguments, "restart_paging_from_the_first_page")

    def offset(self, tool: str | Call, args: BaseModel, *, cursor_field: str = "cursor") -> int:
        """The offset a cursor points at (0 without one); a bad cursor is refused with a restart.

        `tool` is the tool's name or the handler's `Call` (which knows it)."""
        tool = _name(tool)
        token = getattr(args, cursor_field, None)
        if token is None:
            return 0
        check = check_cursor(
            token, secret=self.key, scope=self._scope(tool, args), lifetime=self.lifetime_s
        )
        if check.status == "ok" and check.payload is not None:
            value = check.payload.get("o")
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        expired = check.status == "expired"
        raise ToolError(
            "cursor_expired" if expired else "invalid_cursor",
            (
                f"The cursor is older than {int(self.lifetime_s)} seconds."
                if expired
                else f"The cursor was not issued by {tool} for this query, or it is damaged."
            ),
            hint=f"Call {tool} again without `cursor` to start from the first page (the call in `repair`).",
            repair=self._restart(tool, args, cursor_field),
        )

    def next_cursor(self, tool: str | Call, args: BaseModel, offset: int) -> str:
        tool = _name(tool)
        return encode_cursor({"o": offset}, secret=self.key, scope=self._scope(tool, args))

    def page(
        self, tool: str | Call, args: BaseModel, start: int, shown: int, more: bool
    ) -> PageInfo:
        """Page fields for rows `start .. start+shown`; `more` says whether rows follow."""
        if not more:
            return PageInfo(has_more=False, next_cursor=None)
        return PageInfo(has_more=True, next_cursor=self.next_cursor(tool, args, start + shown))


def _name(tool: str | Call) -> str:
    return tool if isinstance(tool, str) else tool.tool


T = TypeVar("T")


def paged_rows(rows: list[T], start: int, size: int) -> tuple[list[T], bool]:
    """The slice `start .. start+size` of an in-memory list, and whether rows follow."""
    return rows[start : start + size], len(rows) > start + size
