"""A small drivable server used by the runtime's tests (run as a script for stdio)."""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from drivable.contract import (
    READ_ONLY,
    Call,
    Contract,
    Effects,
    Repair,
    Summary,
    ToolError,
)
from drivable.contract.collections import EachOnItsOwn
from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.contract.paging import Detail, PageInfo, Pager
from drivable.contract.relax import Filter
from drivable.contract.resources import PromptArgumentSpec, ResourceBody, ResourceError
from drivable.kinds import Kind, KindModel
from drivable.kinds.identifier import IdOf

contract = Contract(
    "notes-example",
    version="1.0.0",
    summary=Summary(
        text="Search and read short notes. Use search_notes first, then get_note with an id it returned.",
        does=[
            "search notes by text and date",
            "read one note by id",
            "create notes",
            "delete a note for good (a dry run, then the confirmed call)",
        ],
        does_not=["edit notes"],
    ),
    settings_url="https://example.test/settings/notes",
)

# Every title has a topic word, so a search for the words a user gives finds something, and one
# for words no note has finds nothing (a search that ignored its words answered "note_999" with
# ten unrelated notes, and a model read one of those as the note it had asked for).
TOPICS = ("garden", "budget", "plan", "taxes")
NOTES = {
    f"note_{i}": {
        "id": f"note_{i}",
        "title": f"{TOPICS[(i - 1) % len(TOPICS)].capitalize()} note {i}",
        "day": (datetime.date(2026, 1, 1) + datetime.timedelta(days=i * 7)).isoformat(),
    }
    for i in range(1, 31)
}
DELETED: list[str] = []  # deleted for good: no tool or resource shows them again


def _note(note_id: str) -> dict[str, str] | None:
    return None if note_id in DELETED else NOTES.get(note_id)


def _live() -> list[dict[str, str]]:
    return [n for n in NOTES.values() if n["id"] not in DELETED]


class SearchInput(KindModel):
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words to find.")]
    date_from: datetime.date | None = Field(None, description="First day, inclusive.")
    date_to: datetime.date | None = Field(None, description="Last day, inclusive.")
    limit: int = Field(10, ge=1, le=20, description="Page size.")
    detail: Literal["summary", "full"] = "summary"


class NoteRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    day: str


class SearchOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    results: list[NoteRow]
    has_more: bool


@contract.tool(
    name="search_notes",
    title="Search notes",
    description=(
        "Find notes by words and an optional date range. Use it before get_note. A date may "
        "be sent as the user wrote it; one that reads two ways (01/02/2026) is asked about, and "
        'a bare year covers the whole year. Example: {"query": "<the user\'s words>"}.'
    ),
    effects=READ_ONLY,
)
async def search_notes(args: SearchInput, call: Call) -> SearchOutput:
    words = [w for w in re.split(r"\W+", args.query.lower()) if w]

    def matching(kept: Mapping[str, Any]) -> list[dict[str, str]]:
        return [
            n
            for n in _live()
            if n["day"] >= kept.get("date_from", n["day"])
            and n["day"] <= kept.get("date_to", n["day"])
            and all(w in _words(n["title"]) for w in words)
        ]

    rows = [NoteRow(**n) for n in matching(_sent_dates(args))]
    relaxed = None
    if not rows:
        # the dates emptied it: the same search without the one whose removal finds fewest
        relaxed = await call.relax(
            args,
            NOTE_FILTERS,
            count=lambda kept: len(matching(kept)),
            facet=lambda _, kept: Counter(n["day"] for n in matching(kept)).items(),
            noun="note",
        )
    if not rows and (relaxed is None or (not relaxed.unfiltered and not relaxed.dropped)):
        # the words match no note at all. The call to copy, literally: a model follows a call it
        # can copy (docs/decisions/0010-real-model-rounds-1-to-13.md).
        call.warn(
            "no_hits",
            f"No note has every word of {args.query!r}. Every note title has the word 'note'. "
            f"Next call: search_notes {json.dumps(_widened(args))}",
            "query",
        )
    return SearchOutput(results=rows[: args.limit], has_more=len(rows) > args.limit)


NOTE_FILTERS = (Filter("date_from", "lower"), Filter("date_to", "upper"))


def _sent_dates(args: SearchInput) -> dict[str, str]:
    return {
        name: day.isoformat()
        for name, day in (("date_from", args.date_from), ("date_to", args.date_to))
        if day is not None
    }


def _words(text: str) -> set[str]:
    return set(re.split(r"\W+", text.lower()))


def _widened(args: SearchInput) -> dict[str, object]:
    """The search with the words every note has, the same date range."""
    out: dict[str, object] = {"query": "note"}
    if args.date_from is not None:
        out["date_from"] = args.date_from.isoformat()
    if args.date_to is not None:
        out["date_to"] = args.date_to.isoformat()
    return out


# The search a not_found leads to: one note, so the next call (get_note) has one id to read.
FIRST_NOTE = {"query": "note", "limit": 1}


class GetInput(KindModel):
    note_id: Annotated[str, Kind("identifier", prefix="note_")] = Field(
        description="The note_id a search_notes result carries."
    )


class GetOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    note: NoteRow


@contract.tool(
    name="get_note",
    title="Get a note",
    description=(
        "Read one note by the id search_notes returned. An unknown id is not_found, whose repair "
        'is the search to run. Example: {"note_id": "<note_id of a search result>"}.'
    ),
    effects=READ_ONLY,
    errors=["not_found"],
)
async def get_note(args: GetInput, call: Call) -> GetOutput:
    note = _note(args.note_id)
    if note is None:
        # The repair is a search for one note that exists (every title has the word "note"),
        # said literally in the message too. Shown only a structured repair, a model resent its
        # own search for the missing id, then the same id; given a search of ten, it followed it
        # and then paged list_notes instead of reading one (docs/decisions/0010-real-model-rounds-1-to-13.md).
        raise ToolError(
            "not_found",
            f"No note has the id {args.note_id}; do not ask for it again. "
            f"Next call: search_notes {json.dumps(FIRST_NOTE)}, then get_note with the id it "
            "returns.",
            hint="Search with search_notes and read the id it returns.",
            repair=Repair("search_notes", FIRST_NOTE, "search_first"),
        )
    return GetOutput(note=NoteRow(**note))


class BoomInput(KindModel):
    flag: bool = False


class BoomOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool


@contract.tool(
    name="check_failure",
    title="Fail on purpose",
    description=(
        "Fails with an unexpected exception that mentions a database path, to prove nothing of it "
        'reaches the client. Example: {"flag": "<true or false>"}.'
    ),
    effects=Effects(read_only=True, destructive=False, idempotent=True, open_world=False),
)
async def check_failure(args: BoomInput, call: Call) -> BoomOutput:
    raise RuntimeError("sqlite3.OperationalError: no such table: notes at /srv/db/notes.sqlite")


PAGER = Pager(secret=b"example-secret-for-tests")


class ListInput(KindModel):
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
    limit: int = Field(5, ge=1, le=10, description="Page size, 1 to 10.")
    detail: Detail = Field("summary", description="summary: id and title; full: adds the day.")


class ListedNote(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    day: str | None = None


class ListOutput(PageInfo):
    results: list[ListedNote]


@contract.tool(
    name="list_notes",
    title="List notes",
    description=(
        "List every note, oldest first, a page at a time. Pass next_cursor back as cursor for the "
        "next page; detail=full adds each note's day without changing the rows. "
        'Example: {"limit": "<page size>"}.'
    ),
    effects=READ_ONLY,
    errors=["invalid_cursor", "cursor_expired"],
)
async def list_notes(args: ListInput, call: Call) -> ListOutput:
    start = PAGER.offset("list_notes", args)
    notes = _live()
    rows, more = notes[start : start + args.limit], len(notes) > start + args.limit
    listed = [
        ListedNote(id=n["id"], title=n["title"], day=n["day"] if args.detail == "full" else None)
        for n in rows
    ]
    page = PAGER.page("list_notes", args, start, len(rows), more)
    return ListOutput(results=listed, has_more=page.has_more, next_cursor=page.next_cursor)


class NoteDraft(KindModel):
    title: str = Field(min_length=1, max_length=80)
    day: datetime.date


class CreateInput(KindModel):
    drafts: EachOnItsOwn[NoteDraft] = Field(
        description="The notes to add; each is applied on its own."
    )
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class CreateOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    created: list[str]


CREATED: list[dict[str, str]] = []


@contract.tool(
    name="create_notes",
    title="Create notes",
    description=(
        "Add notes. Each draft is checked on its own: valid drafts are created, the others come "
        "back under `rejected` with their issues. "
        'Example: {"drafts": [{"title": "<title>", "day": "<YYYY-MM-DD>"}], '
        '"idempotency_key": "<a key you generate>"}.'
    ),
    effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
)
async def create_notes(args: CreateInput, call: Call) -> CreateOutput:
    made = []
    for draft in args.drafts:
        note_id = f"new_{len(CREATED) + 1}"
        CREATED.append({"id": note_id, "title": draft.title, "day": draft.day.isoformat()})
        made.append(note_id)
    return CreateOutput(created=made)


class DeleteInput(KindModel):
    note_id: Annotated[str, Kind("identifier", prefix="note_")] = Field(
        description="The id of the note to delete, as search_notes returned it."
    )
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class DeleteOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    note_id: str
    status: Literal["would_delete", "deleted"]
    title: str


@contract.tool(
    name="delete_note",
    title="Delete a note",
    description=(
        "Delete one note for good; it cannot be restored. Use get_note first to be sure of the id. "
        'Example: {"note_id": "<from search_notes>", "dry_run": true}.'
    ),
    effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    errors=["not_found"],
)
async def delete_note(args: DeleteInput, call: Call) -> DeleteOutput:
    note = _note(args.note_id)
    if note is None:
        raise ToolError(
            "not_found",
            f"No note has the id {args.note_id}.",
            hint="Find the note with search_notes and use an id it returns.",
            repair=Repair("search_notes", {"query": "note"}, "search_first"),
        )
    if args.dry_run:
        return DeleteOutput(note_id=args.note_id, status="would_delete", title=note["title"])
    DELETED.append(args.note_id)
    return DeleteOutput(note_id=args.note_id, status="deleted", title=note["title"])


@contract.resource(
    "notes://summary",
    name="summary",
    title="What this server does",
    description="The capability summary: what the server does, does not, and needs.",
)
async def summary_resource() -> ResourceBody:
    return ResourceBody(json.dumps(contract.summary_dict()))


@contract.resource_template(
    "notes://notes/{note_id}",
    name="note",
    title="A note",
    description="One note as JSON. Use an id that search_notes or list_notes returned.",
)
async def note_resource(note_id: str) -> ResourceBody:
    note = _note(note_id)
    if note is None:
        raise ResourceError(
            "not_found",
            f"No note has the id {note_id}.",
            hint="Find the note with search_notes first.",
            repair=Repair("search_notes", {"query": "note"}, "search_first"),
        )
    return ResourceBody(json.dumps(note))


@contract.prompt(
    name="find_a_note",
    title="Find a note",
    description="Walks through finding a note by words and reading it.",
    when_to_use="When the user asks for a note they remember a few words of.",
    arguments=[PromptArgumentSpec("words", "What the user remembers of the note.", required=True)],
    prerequisites={"tools": ["search_notes", "get_note"], "permissions": []},
    followups=["search_notes", "get_note"],
)
async def find_a_note(words: str = "") -> str:
    return f"Call search_notes with query {json.dumps(words)}, then get_note with an id it returns."


IdOf("note_")  # the shared id type is importable as a type too

if __name__ == "__main__":
    from drivable.serve import run_stdio

    run_stdio(contract)
