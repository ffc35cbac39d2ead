"""What the documents tools share: rows as shown, refusals with their repairs, and what an empty
search counts and names.

An empty page under filters leads on by the runtime's minimal relaxation (`Call.relax` over
FILTERS and the query's words, rule 6); this module gives it the domain's counting and each
filter's values among the documents found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.contract import Repair, ToolError
from drivable.contract.relax import Filter
from drivable.effects import Transaction
from drivable.eval.corpus.documents.data import size_label, within
from drivable.eval.corpus.documents.models import DocumentRow
from drivable.eval.corpus.documents.store import Filters, Row, Store, query_words

SEARCH = "search_documents"
# search_documents' filters. None is a requirement (decision 0021): each says which document the
# user means (where it is filed, whose, what type, when changed, how big), and a document that
# misses one may still be the one, misremembered; none is a capacity a row must hold to be of use.
FILTERS = (
    Filter("folder"),
    Filter("owner"),
    Filter("type"),
    Filter("modified_from", "lower"),
    Filter("modified_to", "upper"),
    Filter("min_size", "lower"),
    Filter("max_size", "upper"),
)
_COLUMNS = {
    "modified_from": "modified_on",
    "modified_to": "modified_on",
    "min_size": "size_bytes",
    "max_size": "size_bytes",
}


def filters_of(query: str | None, values: Mapping[str, Any]) -> Filters:
    """A search's filters from the values read (canonical JSON: days as YYYY-MM-DD, sizes as
    bytes)."""
    return Filters(
        words=query_words(query),
        folder=values.get("folder"),
        owner=values.get("owner"),
        type=values.get("type"),
        modified_from=values.get("modified_from"),
        modified_to=values.get("modified_to"),
        min_size=values.get("min_size"),
        max_size=values.get("max_size"),
    )


async def facet(store: Store, tx: Transaction, among: Filters, name: str) -> list[tuple[Any, int]]:
    """The values of one filter among the documents `among` finds, each with the documents a
    search by it would find: a folder is every folder one is filed in, counting the folders below
    it (the folder filter takes them in); a day or size bound is each day or size there is."""
    found = await store.values(tx, among, _COLUMNS.get(name, name))
    if name != "folder":
        return found
    return [(f, sum(n for g, n in found if within(g, f))) for f, _ in found]


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


def share_id(document_id: str, email: str) -> str:
    """A share as the record a keyed share_document names (`tx.made`): its document and address."""
    return f"{document_id}/{email}"


def reread(document_id: str) -> Repair:
    return Repair("get_document", {"document_id": document_id}, "reread_the_document_then_replan")
