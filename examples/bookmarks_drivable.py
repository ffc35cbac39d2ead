"""Bookmarks on drivable: search with a date filter, a keyed create, a two-step delete, a paged list.

    drivable serve examples/bookmarks_drivable.py:contract [--http --workers 2 --store sqlite:///s.db]

The bookmarks live in BOOKMARKS_DB (default bookmarks.sqlite), so every worker sees the same ones.
"""

import datetime
import os
import sqlite3

from pydantic import Field

from drivable.contract import CREATE, DELETE, READ_ONLY, Call, Contract, Output, Summary, ToolError
from drivable.contract.paging import PageInfo, Pager
from drivable.kinds import KindModel
from drivable.kinds.identifier import IdOf

contract = Contract(
    "bookmarks",
    version="1.0.0",
    summary=Summary(
        "Save, find and delete web bookmarks.",
        does=["search bookmarks by words and date", "save a bookmark", "delete a bookmark"],
        does_not=["fetch or archive the pages themselves"],
    ),
)
pager = Pager()


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(os.environ.get("BOOKMARKS_DB", "bookmarks.sqlite"))
    conn.execute(
        "CREATE TABLE IF NOT EXISTS b (id TEXT PRIMARY KEY, url TEXT, title TEXT, saved TEXT)"
    )
    return conn


class Bookmark(Output):
    id: str
    url: str
    title: str
    saved_on: datetime.date


class Bookmarks(PageInfo):
    results: list[Bookmark]


class Page(KindModel):
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first."
    )
    limit: int = Field(20, ge=1, le=100, description="Bookmarks per page.")


def page_of(call: Call, args: Page, where: str, params: tuple[str, ...]) -> Bookmarks:
    start = pager.offset(call, args)
    rows = (
        db()
        .execute(
            f"SELECT * FROM b {where} ORDER BY saved DESC, id LIMIT ? OFFSET ?",
            (*params, args.limit + 1, start),
        )
        .fetchall()
    )
    page = pager.page(call, args, start, min(len(rows), args.limit), len(rows) > args.limit)
    results = [Bookmark(id=i, url=u, title=t, saved_on=s) for i, u, t, s in rows[: args.limit]]
    return Bookmarks(results=results, has_more=page.has_more, next_cursor=page.next_cursor)


class Search(Page):
    query: str = Field(min_length=1, max_length=200, description="Words in the title or URL.")
    saved_after: datetime.date | None = Field(None, description="Only bookmarks saved on or after.")


@contract.tool(effects=READ_ONLY, examples=[{"query": "<the user's words>", "saved_after": "<YYYY-MM-DD>"}])
async def search_bookmarks(args: Search, call: Call) -> Bookmarks:
    """Find bookmarks by words in the title or URL, optionally saved on or after a date. Use it to
    find a bookmark's id; no match is an empty page, not an error."""
    since = (args.saved_after or datetime.date.min).isoformat()
    return page_of(
        call,
        args,
        "WHERE (title LIKE ?1 OR url LIKE ?1) AND saved >= ?2",
        (f"%{args.query}%", since),
    )


@contract.tool(effects=READ_ONLY, examples=[{"limit": "<page size>"}])
async def list_bookmarks(args: Page, call: Call) -> Bookmarks:
    """List every bookmark, newest first, a page at a time. Use it to browse without words; with
    no bookmarks the page is empty."""
    return page_of(call, args, "", ())


class New(KindModel):
    url: str = Field(pattern=r"^https?://", max_length=2000, description="The page's URL.")
    title: str = Field(min_length=1, max_length=200, description="A title to find it by.")


@contract.tool(
    effects=CREATE,
    examples=[
        {"url": "<the page's URL>", "title": "<title>", "idempotency_key": "<a key you make up>"}
    ],
)
def create_bookmark(args: New) -> Bookmark:
    """Save a bookmark and return it with its id. Use it when the user asks to keep a page; a URL
    that is not http(s) is refused."""
    saved = Bookmark(
        id=f"bm_{os.urandom(4).hex()}",
        url=args.url,
        title=args.title,
        saved_on=datetime.date.today(),
    )
    with db() as conn:
        conn.execute(
            "INSERT INTO b VALUES (?, ?, ?, ?)",
            (saved.id, saved.url, saved.title, saved.saved_on.isoformat()),
        )
    return saved


class Delete(KindModel):
    bookmark_id: IdOf("bm_") = Field(
        description="The id search_bookmarks or list_bookmarks returned."
    )


class Deleted(Output):
    bookmark: Bookmark
    deleted: bool


@contract.tool(effects=DELETE, errors=["not_found"], examples=[{"bookmark_id": "<bookmark_id of a result>"}])
def delete_bookmark(args: Delete) -> Deleted:
    """Delete one bookmark by id: the dry run shows it, the confirmed call deletes it. Use it only
    when the user asks to remove a bookmark; an unknown id is not_found."""
    with db() as conn:
        row = conn.execute("SELECT * FROM b WHERE id = ?", (args.bookmark_id,)).fetchone()
        if row is None:
            raise ToolError(
                "not_found",
                f"No bookmark has the id {args.bookmark_id}.",
                hint="Find it with search_bookmarks.",
            )
        if not args.dry_run:
            conn.execute("DELETE FROM b WHERE id = ?", (args.bookmark_id,))
    return Deleted(
        bookmark=Bookmark(id=row[0], url=row[1], title=row[2], saved_on=row[3]),
        deleted=not args.dry_run,
    )
