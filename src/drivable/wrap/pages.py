"""A large upstream result cut into pages, and the pages joined back into it.

A result is a sequence of units in the order the upstream sent them: the rows of a list result;
for an object result, each item of each of its list fields and each of its other fields; the
text cut at line ends; each attached block. A page holds at most `PAGE_ROWS` units (the runtime's
default page size, `drivable.contract.paged.LIMIT`) and at most `PAGE_CHARS` characters of them
as JSON, and always at least one unit (a single unit larger than a page is never cut). `join` of
every page gives back what was cut: `join(pages(x)) == x` (tests/wrap/test_wrap_pages.py).

The upstream's answer is kept whole in the effect store and each page is cut from it again when
asked (`drivable.wrap.paging`): a page is named by the offset of its first unit.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from drivable.contract.paged import LIMIT

PAGE_ROWS: int = LIMIT.default
PAGE_CHARS = 8_000  # about 2,000 tokens: a page a small model reads whole (decision 0047)


@dataclass(frozen=True)
class Unit:
    """One indivisible piece of a result: `kind` row | item | field | empty | text | block."""

    kind: str
    value: Any
    key: str | None = None  # the object field an item, field or empty list belongs to

    @property
    def size(self) -> int:
        if self.kind == "text":
            return len(self.value)
        if self.kind == "block":
            return len(json.dumps(self.value.wire(), ensure_ascii=False))
        return len(json.dumps(self.value, ensure_ascii=False, default=str))


@dataclass
class Piece:
    """A result, or one page of it: the data, the text and the attached blocks."""

    result: Any = None
    text: str | None = None
    blocks: list[Any] = field(default_factory=list)


def units(whole: Piece) -> list[Unit]:
    """The units of `whole`, in order."""
    out: list[Unit] = []
    if isinstance(whole.result, list):
        out += [Unit("row", row) for row in whole.result]
    elif isinstance(whole.result, dict):
        for key, value in whole.result.items():
            if isinstance(value, list) and value:
                out += [Unit("item", item, key) for item in value]
            elif isinstance(value, list):
                out.append(Unit("empty", None, key))
            else:
                out.append(Unit("field", value, key))
    elif whole.result is not None:
        out.append(Unit("field", whole.result))
    if whole.text is not None:
        out += [Unit("text", chunk) for chunk in _chunks(whole.text)]
    out += [Unit("block", block) for block in whole.blocks]
    return out


def _chunks(text: str) -> Iterator[str]:
    """`text` cut into pieces of at most PAGE_CHARS characters, after a line end when one falls
    in the second half of the piece; an empty text is one empty piece."""
    if not text:
        yield text
        return
    start = 0
    while start < len(text):
        end = start + PAGE_CHARS
        if end < len(text):
            cut = text.rfind("\n", start + PAGE_CHARS // 2, end)
            end = cut + 1 if cut != -1 else end
        yield text[start:end]
        start = end


def page_end(all_units: Sequence[Unit], start: int) -> int:
    """The offset after the last unit of the page that begins at `start`."""
    end, size = start, 0
    while end < len(all_units) and end - start < PAGE_ROWS:
        size += all_units[end].size
        if end > start and size > PAGE_CHARS:
            break
        end += 1
    return end


def starts(all_units: Sequence[Unit]) -> list[int]:
    """The offset each page begins at."""
    out: list[int] = []
    start = 0
    while start < len(all_units) or not out:
        out.append(start)
        start = page_end(all_units, start)
        if start >= len(all_units):
            break
    return out


def piece(whole: Piece, all_units: Sequence[Unit], start: int, end: int) -> Piece:
    """The page of `whole` holding units `start .. end`."""
    chosen = all_units[start:end]
    result: Any = None
    if isinstance(whole.result, list):
        result = [u.value for u in chosen if u.kind == "row"]
    elif isinstance(whole.result, dict):
        result = {}
        for unit in chosen:
            if unit.kind == "item":
                result.setdefault(unit.key, []).append(unit.value)
            elif unit.kind == "empty":
                result[unit.key] = []
            elif unit.kind == "field":
                result[unit.key] = unit.value
        # a page without a field of it has no object; the first page keeps even an empty one
        result = result if result or start == 0 else None
    elif start == 0:
        result = whole.result
    texts = [u.value for u in chosen if u.kind == "text"]
    return Piece(
        result=result,
        text="".join(texts) if texts else None,
        blocks=[u.value for u in chosen if u.kind == "block"],
    )


def pages(whole: Piece) -> list[Piece]:
    """Every page of `whole`, in order (one when it fits a page)."""
    all_units = units(whole)
    bounds = [*starts(all_units), len(all_units)]
    return [piece(whole, all_units, a, b) for a, b in itertools.pairwise(bounds)]


def more_than_a_page(whole: Piece) -> bool:
    all_units = units(whole)
    return page_end(all_units, 0) < len(all_units)


def join(parts: Sequence[Piece]) -> Piece:
    """The result the pages were cut from."""
    first = parts[0]
    result: Any = first.result
    if isinstance(result, list):
        result = [row for p in parts for row in (p.result or [])]
    elif isinstance(result, dict):
        result = {}
        for part in parts:
            for key, value in (part.result or {}).items():
                if isinstance(value, list) and isinstance(result.get(key), list):
                    result[key] = [*result[key], *value]
                else:
                    result[key] = value
    texts = [p.text for p in parts if p.text is not None]
    return Piece(
        result=result,
        text="".join(texts) if texts else None,
        blocks=[b for p in parts for b in p.blocks],
    )
