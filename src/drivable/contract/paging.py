"""Paging: opaque signed cursors scoped to the tool and its query, and the detail toggle.

A cursor is issued by `Pager.next_cursor` and read back by `Pager.offset`. The kinds own what a
cursor *spelling* means (an invented first-page cursor like "0" or "start" is no cursor); this
module owns what a real token decodes to, and refuses a damaged, foreign, expired or invented
later-page one ("2", "next"), never with a silent restart at page one ([8.cursor-lifetime]).

The refusal's repair leads forward when it can: the Pager remembers (bounded, in this process) the
last cursor it issued for each query scope, so a caller on page 3 that mangled its token is handed
the call with the last cursor that query was given, not sent back to page 1 to loop. Without one
(another worker issued it, or it was forgotten) the repair restarts paging. Two callers paging the
same query share the memory: the worst case is a page served twice, never a wrong query's rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

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


REMEMBERED_SCOPES = 4096


@dataclass(frozen=True)
class Pager:
    """Issues and reads cursors for one server. Several worker processes share `secret`; without
    one, the runtime's token secret (`drivable.settings.token_secret`: configured, or derived in
    the shared store at startup) signs them."""

    secret: bytes | None = None
    lifetime_s: float = 3600.0
    # scope -> the last cursor issued for it (most recent last); bounded, per process
    _issued: OrderedDict[str, str] = field(default_factory=OrderedDict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def key(self) -> bytes:
        return self.secret or token_secret()

    def _remember(self, scope: str, token: str) -> None:
        with self._lock:
            self._issued[scope] = token
            self._issued.move_to_end(scope)
            while len(self._issued) > REMEMBERED_SCOPES:
                self._issued.popitem(last=False)

    def _forward(self, tool: str, args: BaseModel, cursor_field: str, scope: str) -> Repair | None:
        """The call with the last cursor this query was issued, when it is still good."""
        with self._lock:
            latest = self._issued.get(scope)
        token = getattr(args, cursor_field, None)
        if latest is None or latest == token:
            return None
        check = check_cursor(latest, secret=self.key, scope=scope, lifetime=self.lifetime_s)
        if check.status != "ok":
            return None
        arguments = _sent(args, cursor_field)
        arguments[cursor_field] = latest
        return Repair(tool, arguments, "continue_from_the_last_page_served")

    def _scope(self, tool: str, args: BaseModel) -> str:
        query = args.model_dump(mode="json", exclude=set(NOT_SCOPED))
        return cursor_scope(tool, query)

    def _restart(self, tool: str, args: BaseModel, cursor_field: str) -> Repair:
        return Repair(tool, _sent(args, cursor_field), "restart_paging_from_the_first_page")

    def offset(self, tool: str | Call, args: BaseModel, *, cursor_field: str = "cursor") -> int:
        """The offset a cursor points at (0 without one); a bad cursor is refused with a restart.

        `tool` is the tool's name or the handler's `Call` (which knows it)."""
        tool = _name(tool)
        token = getattr(args, cursor_field, None)
        if token is None:
            return 0
        scope = self._scope(tool, args)
        check = check_cursor(token, secret=self.key, scope=scope, lifetime=self.lifetime_s)
        if check.status == "ok" and check.payload is not None:
            value = check.payload.get("o")
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        expired = check.status == "expired"
        forward = self._forward(tool, args, cursor_field, scope)
        hint = (
            f"Call {tool} with the next_cursor of the last page this query served (the call in "
            "`repair`), unchanged; or without `cursor` to start again from the first page."
            if forward is not None
            else f"Call {tool} again without `cursor` to start from the first page (the call "
            "in `repair`, every other argument kept); a next page comes only from the previous "
            "page's next_call (its next_cursor as `cursor`, unchanged)."
        )
        raise ToolError(
            "cursor_expired" if expired else "invalid_cursor",
            (
                f"The cursor is older than {int(self.lifetime_s)} seconds."
                if expired
                else f"The cursor was not issued by {tool} for this query, or it is damaged."
            ),
            hint=hint,
            repair=forward or self._restart(tool, args, cursor_field),
        )

    def _next_cursor(self, tool: str, args: BaseModel, offset: int) -> str:
        scope = self._scope(tool, args)
        token = encode_cursor({"o": offset}, secret=self.key, scope=scope)
        self._remember(scope, token)
        return token

    def page(
        self, tool: str | Call, args: BaseModel, start: int, shown: int, more: bool
    ) -> PageInfo:
        """Page fields for rows `start .. start+shown`; `more` says whether rows follow."""
        if not more:
            return PageInfo(has_more=False, next_cursor=None)
        return PageInfo(
            has_more=True, next_cursor=self._next_cursor(_name(tool), args, start + shown)
        )


def _sent(args: BaseModel, cursor_field: str) -> dict[str, object]:
    """Every argument the caller sent, as read, but the cursor: a restart keeps the query whole."""
    return args.model_dump(mode="json", exclude={cursor_field}, exclude_unset=True)


def _name(tool: str | Call) -> str:
    return tool if isinstance(tool, str) else tool.tool
