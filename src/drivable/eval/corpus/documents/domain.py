"""What the documents tools share: rows as shown, refusals with their repairs, the empty search.

An empty page under filters leads on by the smallest relaxation: of the searches that leave out
exactly one constraint the caller sent (a filter, or one word of the query), the one that finds
the fewest documents but some; its next_call keeps every other constraint as sent, and its message
names the values the documents it would find have.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from drivable.contract import Call, Repair, ToolError
from drivable.effects import Transaction
from drivable.eval.corpus.documents.data import size_label
from drivable.eval.corpus.documents.models import DocumentRow
from drivable.eval.corpus.documents.store import Filters, Row, Store, query_words

SEARCH = "search_documents"
_SHOWN_VALUES = 5


def row_of(row: Row) -> DocumentRow:
    return DocumentRow(
        document_id=row.document_id,
        name=row.name,
        folder=row.folder,
        type=row.type,
        size=size_label(row.size_bytes),
        owner=row.owner,
        modified_on=row.modified_on,
        version=row.version,
    )


def not_found(document_id: str) -> ToolError:
    return ToolError(
        "not_found",
        f"No document has the id {document_id}.",
        hint="Find the document with search_documents (the call in `repair`, with words of its "
        "name) and use a document_id it returns.",
        repair=Repair(SEARCH, {}, "find_the_document_first"),
    )


def folder_gone(path: str) -> ToolError:
    return ToolError(
        "not_found",
        f"The folder {path} no longer exists.",
        hint="List the top folder with list_folder (the call in `repair`) to see the folders "
        "there are.",
        repair=Repair("list_folder", {}, "list_the_folders_first"),
    )


def reread(document_id: str) -> Repair:
    return Repair("get_document", {"document_id": document_id}, "reread_the_document_then_replan")


def _words_after(asked: dict[str, Any], dropped: str) -> str | None:
    left = [w for i, w in enumerate(str(asked.get("query", "")).split()) if f"word {i}" != dropped]
    return " ".join(left) or None


def relaxed(asked: dict[str, Any], dropped: str) -> dict[str, Any]:
    """The search as asked, without one constraint: a filter's name, or "word N" of the query."""
    if not dropped.startswith("word "):
        return {k: v for k, v in asked.items() if k != dropped}
    out = {k: v for k, v in asked.items() if k != "query"}
    query = _words_after(asked, dropped)
    return {**out, "query": query} if query else out


def _constraints(asked: dict[str, Any], filters: Filters) -> dict[str, Filters]:
    """Each constraint the caller sent, and the filters without it; none when only one was sent
    (leaving it out would list everything, which is not a narrower question)."""
    out = {name: filters.without(name) for name in filters.active()}
    sent = str(asked.get("query", "")).split()
    for i in range(len(sent)):
        kept = " ".join(w for j, w in enumerate(sent) if j != i)
        out[f"word {i}"] = replace(filters, words=query_words(kept))
    return out if len(out) > 1 else {}


def _label(asked: dict[str, Any], constraint: str) -> str:
    if constraint.startswith("word "):
        return f"the word {asked['query'].split()[int(constraint[5:])]!r}"
    value = asked[constraint]
    if constraint in ("min_size", "max_size"):
        value = size_label(int(value))
    return f"{constraint}={value}"


async def _values(store: Store, tx: Transaction, filters: Filters, constraint: str) -> str:
    """What the documents found without `constraint` have where it would have narrowed."""
    if constraint.startswith("word "):
        column = "name"
    else:
        column = {"modified_from": "modified_on", "modified_to": "modified_on"}.get(
            constraint, "size_bytes" if constraint.endswith("_size") else constraint
        )
    spread = await store.spread(tx, filters, column)
    if column == "modified_on":
        return f"modified {spread[0][0]} to {spread[1][0]}"
    if column == "size_bytes":
        return f"sizes {size_label(int(spread[0][0]))} to {size_label(int(spread[1][0]))}"
    shown = ", ".join(f"{value} ({n})" for value, n in spread[:_SHOWN_VALUES])
    more = len(spread) - _SHOWN_VALUES
    label = "names" if column == "name" else f"{column}s"
    return f"{label} {shown}" + (f" and {more} more" if more > 0 else "")


async def explain_empty_search(
    store: Store, tx: Transaction, call: Call, filters: Filters, asked: dict[str, Any]
) -> None:
    """An empty first page says what happened and leads on by the smallest relaxation (above):
    `message` and `hint` in words, `next_call` literally, the no_hits_filtered warning for a
    program. With no relaxation that finds anything, its warning says so and it leads nowhere."""
    options = _constraints(asked, filters)
    found = {name: await store.count(tx, without) for name, without in options.items()}
    some = {name: n for name, n in found.items() if n > 0}
    if not some:
        # Nothing narrower than what was asked finds anything: no call to lead on to that keeps
        # the user's question, so the page says so and leads nowhere.
        call.warn(
            "no_hits_filtered",
            "No document matches, and none would with any one filter or word left out: tell "
            "the user nothing matches."
            if options
            else "No document matches.",
            next(iter(filters.active()), "query"),
        )
        return
    drop = min(some, key=lambda name: some[name])  # the first of the fewest, in the order sent
    label = _label(asked, drop)
    values = await _values(store, tx, options[drop], drop)
    message = (
        f"No document matches the words and every filter together. Without {label}, "
        f"{some[drop]} would match: {values}."
    )
    call.follow(
        SEARCH,
        relaxed(asked, drop),
        message=message,
        hint=f"If another value will do for the user, call {SEARCH} again without {label} (the "
        "call in next_call); if not, tell the user no document matches.",
    )
    call.warn("no_hits_filtered", message, "query" if drop.startswith("word ") else drop)
