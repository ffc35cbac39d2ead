"""The rules of an empty filtered page, checked from the outside: by calling the tool again, with
each filter (or pair) left out and with each value the page names, and counting what comes back.

One checker for every server (a generated table, billing, caselaw): `check_empty_page(send, tool,
read, filters, page)`, where `send` calls the tool (in process or over a real transport) and
answers the structured result with `is_error`, `read` is what the first call's arguments read as
(canonical JSON, no cursor) and `filters` the tool's filters in declaration order with their side.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import combinations
from typing import Any

from pydantic import BaseModel

from drivable.contract import envelope_of
from drivable.kinds.text_folding import words as folded
from drivable.target import Target, connect

Send = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
VALUES = 5
# the server runs the code under test, wherever the test's own imports come from
PASSED = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}


@contextmanager
def over_stdio(target: Target) -> Iterator[Send]:
    """A `send` over the SDK client connected to `target` on stdio, usable from any event loop
    (each hypothesis example runs its own): the client lives on a loop in a thread of its own."""
    loop = asyncio.new_event_loop()
    opened: concurrent.futures.Future[Any] = concurrent.futures.Future()
    stop = threading.Event()

    async def hold() -> None:
        try:
            with open(os.devnull, "w") as errlog:
                async with connect(
                    target, mode="auto", errlog=errlog, read_timeout_seconds=60
                ) as client:
                    opened.set_result(client)
                    while not stop.is_set():
                        await asyncio.sleep(0.05)
        except BaseException as error:
            if not opened.done():
                opened.set_exception(error)
            raise

    thread = threading.Thread(target=loop.run_until_complete, args=(hold(),), daemon=True)
    thread.start()
    client = opened.result(timeout=120)

    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(tool, arguments)
        data = dict(envelope_of(result) or result.structured_content or {})
        assert json.loads(result.content[0].text) == data
        return dict(data, is_error=bool(result.is_error))

    async def send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        done = asyncio.run_coroutine_threadsafe(call(tool, arguments), loop)
        return await asyncio.wrap_future(done)

    try:
        yield send
    finally:
        stop.set()
        thread.join(timeout=30)
        loop.close()


_COUNT = re.compile(r" \((\d+)\)(?:, |\.$)")


def named_values(message: str) -> list[tuple[Any, int]]:
    """The values a no_hits_filtered warning names: JSON values, each with its count."""
    text = message.split("would match", 1)[1].split(": ", 1)[1]
    decoder, out, at = json.JSONDecoder(), [], 0
    while at < len(text):
        value, at = decoder.raw_decode(text, at)
        count = _COUNT.match(text, at)
        assert count is not None, text
        out.append((value, int(count.group(1))))
        at = count.end()
    return out


def read_as(model: type[BaseModel], arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """What `arguments` read as through the tool's own input model: each argument sent, in its
    canonical spelling (None when the model refuses them; absent values left out; no cursor)."""
    try:
        read = model.model_validate(dict(arguments))
    except ValueError:
        return None
    out = read.model_dump(mode="json", include=set(read.model_fields_set), exclude_none=True)
    out.pop("cursor", None)
    return out


def without(arguments: Mapping[str, Any], dropped: Sequence[str]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k not in dropped}


def _order(value: Any) -> tuple[int, Any]:
    """Values in the stated order: numbers by size (a size in bytes), anything else by its text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value))


def _named(word: str, page: Mapping[str, Any]) -> bool:
    return json.dumps(word, ensure_ascii=False) in page["message"]


def _relaxing(page: Mapping[str, Any]) -> list[Any]:
    return [w for w in page.get("warnings") or [] if w.get("code") == "no_hits_filtered"]


def _spells(word: str, value: Any) -> bool:
    """Rule 6's "asked by a filter": the word is one of the value's words (or a listed value's),
    case, accents and punctuation aside."""
    pieces = set(folded(word).split())
    values = value if isinstance(value, list) else [value]
    return bool(pieces) and any(
        pieces <= set(folded(str(v)).split()) for v in values if not isinstance(v, bool)
    )


Reads = Callable[[str, str], Any]


def field_reads(model: type[BaseModel]) -> Reads:
    """How the tool's own input model reads one word as a filter's value (canonical JSON), or
    None; a field that reads a word naming nothing ("qzxjv") as a value reads no word as one."""

    def reads(name: str, word: str) -> Any:
        if (read_as(model, {name: "qzxjv"}) or {}).get(name) is not None:
            return None
        return (read_as(model, {name: word}) or {}).get(name)

    return reads


def _asked(word: str, value: Any, got: Any) -> bool:
    """The word spells the value sent, or is read as it (or as values a list sent holds)."""
    listed = value if isinstance(value, list) else [value]
    if _spells(word, value) or (got is not None and got == value):
        return True
    return bool(got) and all(g in listed for g in (got if isinstance(got, list) else [got]))


async def _words_step(
    send: Send,
    tool: str,
    read: Mapping[str, Any],
    names: Sequence[str],
    query: str,
    reads: Reads | None = None,
    unsent: Sequence[str] = (),
) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """Rules 6 and 7 from the outside: the words the next call's query leaves out (a filter sent
    asks it, or no row holds it alone and another unasked word stays; or, rule 7, no row holds
    it and one equal filter of `unsent` reads it as its value), the arguments without them, and
    the filters rule 7 moves words to."""
    text = read.get(query)
    if not isinstance(text, str):
        return [], dict(read), {}
    words = text.split()
    asked = [
        w for w in words if any(_asked(w, read[n], reads(n, w) if reads else None) for n in names)
    ]
    rest = [w for w in words if w not in asked]
    nowhere = []
    for word in dict.fromkeys(rest):
        out = await send(tool, {query: word})
        assert not out["is_error"], out
        if not out["total"]:
            nowhere.append(word)
    moved: dict[str, Any] = {}
    clash: set[str] = set()
    read_word = reads if reads is not None else (lambda name, word: None)
    for word in nowhere:
        found = [(n, v) for n in unsent if (v := read_word(n, word)) is not None]
        if len(found) == 1:
            name, value = found[0]
            if moved.setdefault(name, value) != value:
                clash.add(name)
    moved = {n: v for n, v in moved.items() if n not in clash}
    if moved:
        gone = [w for w in words if w in asked or w in nowhere]
        return gone, _without_words(read, query, gone) | moved, moved
    narrows = any(w not in nowhere for w in rest)  # another word of what was asked stays
    gone = [w for w in words if w in asked or (narrows and w in nowhere)]
    return gone, _without_words(read, query, gone), {}


def _without_words(read: Mapping[str, Any], query: str, gone: Sequence[str]) -> dict[str, Any]:
    kept = [w for w in str(read[query]).split() if w not in gone]
    reduced = {k: v for k, v in read.items() if k != query}
    if kept:
        reduced[query] = " ".join(kept)
    return reduced if gone else dict(read)


async def check_empty_page(
    send: Send,
    tool: str,
    read: Mapping[str, Any],
    filters: Sequence[tuple[str, str]],
    page: Mapping[str, Any],
    *,
    query: str | None = None,
    model: type[BaseModel] | None = None,
) -> str:
    """Every rule of an empty filtered page; returns the case met. `query`: the argument whose
    words rules 6 and 7 read (a search whose rows hold every word); `model`: the tool's input
    model, through whose fields a word is read as a filter's value (rule 7's equal filters here
    are never requirements)."""
    names = [n for n, _ in filters if n in read]
    side = dict(filters)
    gone: list[str] = []
    if query is not None and not page["results"]:
        unsent = [n for n, s in filters if s == "equal" and n not in read]
        reads = field_reads(model) if model is not None else None
        gone, reduced, moved = await _words_step(send, tool, read, names, query, reads, unsent)
        if moved:
            # (7) the words a filter not sent reads move there, whatever that call finds
            assert page["next_call"] == {"tool": tool, "arguments": reduced}, (page, reduced)
            assert all(json.dumps(w, ensure_ascii=False) in page["message"] for w in gone), page
            out = await send(tool, reduced)
            assert not out["is_error"], out
            return "moved" if out["total"] else "moved, nothing"
        if gone:
            # (6) the words alone come first, and every word the next call leaves out is named
            out = await send(tool, reduced)
            if out["total"]:
                assert page["next_call"] == {"tool": tool, "arguments": reduced}, (page, reduced)
                assert not _relaxing(page), page
                assert all(_named(w, page) for w in gone), page
                return "words"
            if not names:
                assert "next_call" not in page, page
                assert all(_named(w, page) for w in gone), page
                return "words, nothing"
            # filters may go from here on: a word a filter asked is back in the query
            text = str(read[query]).split()
            asked = [
                w
                for w in text
                if any(_asked(w, read[n], reads(n, w) if reads else None) for n in names)
            ]
            gone = [w for w in gone if w not in asked]
            assert all(_named(w, page) for w in gone), page
            read = _without_words(read, query, gone)
    if page["results"] or not names:
        # rows, or no filter to blame: the page says nothing of filters and leads nowhere new
        assert "message" not in page and "hint" not in page and not _relaxing(page), page
        if not page["results"]:
            assert "next_call" not in page
        return "rows" if page["results"] else "no filter"
    counted: dict[frozenset[str], int] = {}

    async def rows_without(dropped: Sequence[str]) -> int:
        key = frozenset(dropped)
        if key not in counted:
            out = await send(tool, without(read, dropped))
            assert not out["is_error"], out
            counted[key] = int(out["total"])
        return counted[key]

    for size in (1, 2):
        options = {c: await rows_without(c) for c in combinations(names, size)}
        found = {c: n for c, n in options.items() if n}
        if found:
            break
    else:
        # no filter, nor any pair, left out brings rows back: said so, and no call pretends it
        assert "next_call" not in page and page["message"] and page["hint"], page
        if await rows_without(names):
            assert "even without the filters" not in page["message"], page
            return "none"
        assert "even without the filters" in page["message"] and not _relaxing(page), page
        return "nothing at all"
    # (a) the next call keeps every argument sent but the dropped filters, and returns rows
    following = page["next_call"]
    assert following["tool"] == tool
    dropped = tuple(k for k in read if k not in following["arguments"])
    assert following["arguments"] == without(read, dropped), (following, read)
    assert dropped in found and len(dropped) == size
    again = await send(tool, following["arguments"])
    assert again["results"] and again["total"] == found[dropped] > 0, again
    # (b) minimal: no other filter (pair) left out brings back fewer; a tie goes to the one
    # declared last (for a pair, the pair whose later filter is declared later)
    order = {n: i for i, n in enumerate(names)}

    def lateness(c: Sequence[str]) -> list[int]:
        return sorted((order[n] for n in c), reverse=True)

    for other, n in found.items():
        if other != dropped:
            assert n > found[dropped] or (
                n == found[dropped] and lateness(other) < lateness(dropped)
            )
    # the words: a message and hint naming the dropped filters, one warning per dropped filter
    assert all(d in page["message"] and d in page["hint"] for d in dropped), page
    warnings = _relaxing(page)
    assert [w["path"] for w in warnings] == [n for n in names if n in dropped], page
    # (c) every value named as one that would match does, sent in the dropped filter's place
    # with everything else as the next call has it; at most VALUES, in the stated order
    for warning in warnings:
        path = warning["path"]
        if f"has a value of {path}." in warning["message"]:
            continue  # the rows found without it lack the field: no value to name
        values = named_values(warning["message"])
        assert 0 < len(values) <= VALUES, warning
        for value, n in values:
            out = await send(tool, {**following["arguments"], path: value})
            assert not out["is_error"] and out["results"], (path, value, out)
            assert out["total"] == n if side[path] == "equal" else out["total"] >= n > 0
        if side[path] == "equal":
            keys: list[Any] = [(-n, _order(v)) for v, n in values]
            assert keys == sorted(keys), values
        else:
            keys = [_order(v) for v, _ in values]
            assert keys == sorted(keys, reverse=side[path] == "lower"), values
    return "one" if size == 1 else "two"
