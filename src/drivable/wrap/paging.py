"""A large upstream answer served page by page behind the runtime's own cursor.

The first call reaches upstream; when its answer is more than a page (`drivable.wrap.pages`), the
answer is kept whole, as the upstream's JSON text, in the effect store (a receipt of its own, under
`<tool>#pages`, scoped to the caller like any receipt and kept the store's receipt window), and
the first page is answered with `next_cursor`. The cursor is the runtime's signed one
(`drivable.kinds.cursor`, scoped to the tool and its query as `drivable.contract.paging.Pager`
scopes it) carrying the offset of the next page's first unit and the answer's key; the runtime's
shaping turns it into `next_call` (the same call with `cursor`). A page call never reaches
upstream: it is cut from the kept answer. A damaged, foreign or expired cursor is refused by the
runtime's pager (`invalid_cursor` / `cursor_expired`, the repair the first page); a good cursor
whose answer the store no longer holds is refused the same way (`cursor_expired`). A cursor no
page issued is refused only when the call's answer has pages: where it is one page, there is no
later page the cursor could mean, and the answer is given whole with a note (`SET_ASIDE`,
decision 0058).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection
from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import BaseModel, create_model

from drivable.contract.call import Call
from drivable.contract.declare import Preset
from drivable.contract.envelope import Repair, ToolError
from drivable.contract.paged import CURSOR as CURSOR_FIELD
from drivable.contract.paged import PAGER
from drivable.contract.paging import NOT_SCOPED
from drivable.contract.tool import CURSOR_FIELDS
from drivable.effects import StoreUnavailable, StoreUnavailableError
from drivable.kinds import Kind, KindModel
from drivable.kinds.cursor import cursor_scope, decode_cursor, encode_cursor
from drivable.wrap.pages import Piece, page_end, piece, units

CURSOR = "cursor"
RESTART_STEP = "restart_paging_from_the_first_page"


def pageable(effects: Preset, properties: Collection[str]) -> bool:
    """Whether a tool's answers are paged: a call that can be made again as it is (no key, no
    confirm token: a page call under the same key would replay the first page, decision 0047),
    and no cursor of the upstream's own (its paging is its own, passed on)."""
    return (
        not effects.destructive
        and "idempotency_key" not in effects.adds
        and not set(properties) & set(CURSOR_FIELDS)
    )


def with_cursor(model: type[KindModel]) -> type[KindModel]:
    """`model` with the runtime's `cursor` property, read through the cursor kind."""
    annotation: Any = Annotated[str | None, Kind("cursor")]
    extended: type[KindModel] = create_model(
        model.__name__,
        __base__=model,
        __module__=model.__module__,
        cursor=(annotation, CURSOR_FIELD),
    )
    extended.__doc__ = model.__doc__
    return extended


# The note of a cursor no page issued, on a call whose whole answer is one page: there is no
# later page it could mean, so the answer is the whole. It quotes no value: a model sent a note
# that quoted its cursor back as the next cursor, turn after turn (decision 0058).
SET_ASIDE = "cursor: Set aside (no page issued it); the whole answer is this one page."


def kept_as(tool: str) -> str:
    """The receipt tool name a paged answer of `tool` is kept under."""
    return f"{tool}#pages"


def _scope(tool: str, args: BaseModel) -> str:
    return cursor_scope(tool, args.model_dump(mode="json", exclude=set(NOT_SCOPED)))


def _restart(tool: str, args: BaseModel) -> Repair:
    sent = args.model_dump(mode="json", exclude={CURSOR}, exclude_unset=True)
    return Repair(tool, sent, RESTART_STEP)


def page_of(
    whole: Piece, args: BaseModel, tool: str, ref: str, start: int
) -> tuple[Piece, str | None]:
    """The page of `whole` that begins at `start`, and the cursor of the next (None: the last)."""
    all_units = units(whole)
    end = page_end(all_units, start)
    cut = piece(whole, all_units, start, end)
    if end >= len(all_units):
        return cut, None
    token = encode_cursor({"o": end, "r": ref}, secret=PAGER.key, scope=_scope(tool, args))
    return cut, token


async def keep(contract: Any, call: Call, answer: CallToolResult) -> str | None:
    """Keep `answer` in the store; its key, or None when the store cannot take it now."""
    ref = uuid.uuid4().hex
    text = json.dumps(answer.model_dump(mode="json", by_alias=True), ensure_ascii=False)

    async def record(tx: Any) -> dict[str, Any]:
        return {"answer": text}

    try:
        durability = await contract.durable()
        outcome = await durability.store.run_idempotent(
            tool=kept_as(call.tool),
            principal=call.principal.id,
            key=ref,
            arguments={},
            effect=record,
            window_s=durability.window_s,
        )
    except StoreUnavailableError:
        return None
    if isinstance(outcome, StoreUnavailable):
        return None
    return ref


async def kept(contract: Any, call: Call, args: BaseModel) -> tuple[CallToolResult, int, str]:
    """The kept answer a page call's cursor names, and the page's offset; refused as the runtime
    refuses a bad cursor, with the first page as the repair."""
    start = PAGER.offset(call, args)  # raises invalid_cursor / cursor_expired with the restart
    payload = decode_cursor(getattr(args, CURSOR), secret=PAGER.key, scope=_scope(call.tool, args))
    ref = (payload or {}).get("r")
    view = None
    if isinstance(ref, str):
        try:
            durability = await contract.durable()
            view = await durability.store.receipt(
                tool=kept_as(call.tool), principal=call.principal.id, key=ref
            )
        except StoreUnavailableError as down:
            raise ToolError(
                "unavailable",
                "The store that keeps the pages cannot be reached now.",
                hint=f"Call {call.tool} again with the same cursor in a moment.",
                retry_after_ms=down.outcome.retry_after_ms,
            ) from None
    if view is None or view.state != "done" or view.result is None or view.expires_at < time.time():
        raise ToolError(
            "cursor_expired",
            "The pages this cursor belongs to are no longer kept.",
            hint=f"Call {call.tool} again without `cursor` to start from the first page (the "
            "call in `repair`, every other argument kept).",
            repair=_restart(call.tool, args),
        )
    answer = CallToolResult.model_validate(json.loads(view.result["answer"]))
    assert isinstance(ref, str)
    return answer, start, ref
