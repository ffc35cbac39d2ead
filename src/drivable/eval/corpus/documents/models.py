"""What each documents tool reads and returns, and the vocabularies its values are read through.

Folders, owners, file types, roles and sort orders are vocabularies: "Reports > 2026",
"/reports/2026/" and "Reports 2026" name one folder, "Dana" and "dana.kim@example.org" one owner,
".pdf" and "PDF files" one type, "read-only" one role. Sizes read through `file_size` ("2,5 MB"),
dates through the date kind (relative days by the store's clock, TODAY), the address a document
is shared with through the email kind (bound by the name `email`: "Tom Reed <tom.reed@acme.example>"
is the address). Every input model is closed (`KindModel`): the schema a model sees is the one the
handler reads.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.contract.output import Output
from drivable.contract.paging import PageInfo
from drivable.eval.corpus.documents.data import PEOPLE, TODAY, TYPES, generate
from drivable.eval.corpus.documents.sizes import MaxSize, MinSize
from drivable.kinds import Kind, KindModel
from drivable.kinds.vocabulary import Entry, Vocabulary

NAME = "documents"
VERSION = "1.0.0"
CURSOR_LIFETIME_S = 3600
MAX_NAME = 200


def today() -> datetime.date:
    """The store's clock: the day its data was generated around."""
    return TODAY


def _folder_entries() -> list[Entry]:
    folders = generate().folders
    last = [f.rsplit("/", 1)[-1] for f in folders]
    entries = [Entry("/", name="root", aliases=("top", "top level", "home", "my documents"))]
    for path, name in zip(folders, last, strict=True):
        if path != "/":
            # A folder's own name names it where no other folder has that name ("Invoices").
            alone = (name,) if last.count(name) == 1 else ()
            entries.append(Entry(path, aliases=alone))
    return entries


FOLDERS = Vocabulary(_folder_entries(), name="folder", list_tool="list_folder")
OWNERS = Vocabulary(
    [Entry(p.email, name=p.name, aliases=tuple(p.name.split())) for p in PEOPLE],
    name="owner",
)
_TYPE_ALIASES = {
    "pdf": ("pdf file", "pdfs", "adobe pdf", "acrobat"),
    "docx": ("word", "word document", "word file", "doc", "ms word"),
    "xlsx": ("excel", "spreadsheet", "excel file", "sheet", "workbook", "xls"),
    "pptx": ("powerpoint", "presentation", "slides", "slide deck", "deck", "ppt"),
    "md": ("markdown", "markdown file", "markdown document"),
    "txt": ("text", "text file", "plain text"),
    "csv": ("csv file", "comma separated values"),
}
TYPE_VOCABULARY = Vocabulary(
    [
        Entry(t, aliases=(*aliases, *(f"{a}s" for a in aliases), f"{t} file", f"{t} files"))
        for t, aliases in _TYPE_ALIASES.items()
    ],
    name="type",
)
assert TYPE_VOCABULARY.values == TYPES
ROLES = Vocabulary(
    [
        Entry(
            "viewer",
            aliases=(
                "view",
                "can view",
                "view only",
                "read",
                "reader",
                "read only",
                "read access",
                "view access",
                "viewing",
            ),
        ),
        Entry(
            "editor",
            aliases=(
                "edit",
                "can edit",
                "edit access",
                "write",
                "writer",
                "write access",
                "read write",
                "editing",
                "contributor",
            ),
        ),
    ],
    name="role",
)
SORTS = Vocabulary(
    [
        Entry("name", aliases=("alphabetical", "alphabetically", "by name", "name ascending")),
        Entry(
            "newest",
            aliases=(
                "newest first",
                "latest",
                "most recent",
                "recent",
                "recently modified",
                "last modified",
                "modified",
                "date modified",
                "modified descending",
            ),
        ),
        Entry("oldest", aliases=("oldest first", "earliest", "least recent")),
        Entry("largest", aliases=("largest first", "biggest", "biggest first", "size")),
        Entry("smallest", aliases=("smallest first", "smallest size")),
    ],
    name="sort order",
)

# Folders and owners are listed as plain strings: the vocabulary reads whatever the user wrote
# and list_folder shows the tree.
FolderFilter = Annotated[
    str, Kind("vocabulary", vocabulary=FOLDERS), WithJsonSchema({"type": "string"})
]
FolderPath = Annotated[
    str, Kind("vocabulary", vocabulary=FOLDERS, strict=True), WithJsonSchema({"type": "string"})
]
OwnerFilter = Annotated[
    str, Kind("vocabulary", vocabulary=OWNERS), WithJsonSchema({"type": "string"})
]
TypeFilter = Annotated[str, Kind("vocabulary", vocabulary=TYPE_VOCABULARY)]
Role = Annotated[str, Kind("vocabulary", vocabulary=ROLES)]
SortOrder = Annotated[str, Kind("vocabulary", vocabulary=SORTS, strict=True)]
DocumentId = Annotated[  # = IdOf("doc_", lookup=("search_documents", "query")), as a type
    str, Kind("identifier", prefix="doc_", lookup=("search_documents", "query"))
]
ModifiedFrom = Annotated[datetime.date, Kind("date", bound="from", clock=today)]
ModifiedTo = Annotated[datetime.date, Kind("date", bound="to", clock=today)]


# -- outputs -------------------------------------------------------------------------------------


class DocumentRow(Output):
    """One document of a page: what choosing one takes."""

    document_id: str = Field(description="Pass to get_document and the tools that change it.")
    name: str
    folder: str
    type: str
    size: str = Field(description="The size in binary units (1 MB = 1024 KB).")
    owner: str = Field(description="The owner's email.")
    modified_on: str
    version: int = Field(description="Pass as expected_version to move_document.")


class SearchOutput(PageInfo):
    results: list[DocumentRow]
    total: int = Field(description="Documents matching the words and every filter.")


class FolderRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    folder: str = Field(description="The folder's path: pass it as `folder`.")
    documents: int = Field(description="Documents directly in it.")
    folders: int = Field(description="Folders directly in it.")


class ListOutput(PageInfo):
    folder: str
    folders: list[FolderRow] = Field(description="The folders directly in this one (every page).")
    documents: list[DocumentRow] = Field(description="This page of the documents directly in it.")
    total_documents: int


class ShareRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str
    role: Literal["viewer", "editor"]


class DocumentDetail(DocumentRow):
    path: str
    size_bytes: int
    owner_name: str
    shared_with: list[ShareRow]


class GetOutput(Output):
    document: DocumentDetail
    part: int = Field(description="Which part of the text `text` is, from 1.")
    parts: int = Field(description="How many parts the text has.")
    text: str = Field(description="This part of the document's text.")


class MoveOutput(Output):
    status: Literal["moved", "renamed", "moved_and_renamed", "unchanged"]
    document: DocumentRow
    summary: str


class ShareOutput(Output):
    status: Literal["shared", "role_changed", "already_shared", "owner"]
    document_id: str
    email: str
    role: Literal["viewer", "editor"]
    shared_with: list[ShareRow]
    summary: str


class DeleteOutput(Output):
    status: Literal["would_delete", "deleted"]
    document_id: str
    path: str
    summary: str


class DeleteFolderOutput(Output):
    status: Literal["would_delete", "deleted"]
    folder: str
    documents: int = Field(description="Documents deleted with it, at every level below it.")
    folders: int = Field(description="Folders below it deleted with it.")
    size: str
    summary: str


# -- inputs --------------------------------------------------------------------------------------


class SearchInput(KindModel):
    query: str | None = Field(
        None,
        max_length=200,
        description="Words in the document's name or text, any case; omit to match every document.",
    )
    folder: FolderFilter | None = Field(
        None, description="Only documents in this folder or below it, as list_folder shows it."
    )
    owner: OwnerFilter | None = Field(
        None, description="Only this person's documents: email or name."
    )
    type: TypeFilter | None = Field(None, description="Only this file type.")
    modified_from: ModifiedFrom | None = Field(
        None, description="Only documents modified on or after this day (YYYY-MM-DD)."
    )
    modified_to: ModifiedTo | None = Field(
        None, description="Only documents modified on or before this day (YYYY-MM-DD)."
    )
    min_size: MinSize | None = Field(
        None, description="Only documents at least this big, in KB, MB or GB (1 MB = 1024 KB)."
    )
    max_size: MaxSize | None = Field(
        None, description="Only documents at most this big, in KB, MB or GB (1 MB = 1024 KB)."
    )
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
    limit: int = Field(10, ge=1, le=50, description="Page size, 1 to 50.")


class ListInput(KindModel):
    folder: FolderPath = Field("/", description="The folder's path; omit for the top folder.")
    sort: SortOrder = Field("name", description="The order of the documents.")
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
    limit: int = Field(20, ge=1, le=50, description="Documents per page, 1 to 50.")


class GetInput(KindModel):
    document_id: DocumentId = Field(description="The document_id a search or listing returned.")
    part: int = Field(
        1, ge=1, le=10_000, description="Which part of the text to show, from 1 (the first)."
    )
    find: str | None = Field(
        None,
        max_length=200,
        description="Words to look for: shows the first part, from `part` on, that has them all.",
    )


class MoveInput(KindModel):
    document_id: DocumentId = Field(description="The document to move or rename.")
    expected_version: int = Field(
        ge=1, description="The version a search, listing or get_document returned."
    )
    folder: FolderPath | None = Field(
        None, description="The folder to move it to; omit to keep it."
    )
    new_name: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_NAME,
        pattern=r"^[^/\\]+$",
        description="The document's new name; omit to keep it (it keeps its extension).",
    )


class ShareInput(KindModel):
    document_id: DocumentId = Field(description="The document to share.")
    email: str = Field(description="The email address of the person to share it with.")
    role: Role = Field("viewer", description="viewer reads it; editor can also change it.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class DeleteInput(KindModel):
    document_id: DocumentId = Field(description="The document to delete.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class DeleteFolderInput(KindModel):
    folder: FolderPath = Field(description="The folder to delete, with everything in it.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN
