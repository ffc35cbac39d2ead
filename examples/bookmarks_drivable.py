"""Bookmarks on drivable: search with a date filter, a keyed create, a two-step delete, a paged list.

    drivable serve examples/bookmarks_drivable.py:contract [--http --workers 2 --store sqlite:///s.db]

The bookmarks live in BOOKMARKS_DB (default bookmarks.sqlite), so every worker sees the same ones.
"""

import datetime as dt
import os
import sqlite3
from typing import Annotated

from pydantic import Field

from drivable import (
    CREATE,
    DELETE,
    READ_ONLY,
    ConfirmToken,
    Contract,
    DryRun,
    Id,
    IdempotencyKey,
    Output,
    Page,
    Paged,
    Summary,
    ToolError,
)

contract = Contract(
    "bookmarks",
    version="1.0.0",
    summary=Summary(
        "Save, find and delete web bookmarks.",
        does=["search bookmarks by words and date", "save a bookmark", "delete a bookmark"],
        does_not=["fetch or archive the pages themselves"],
    ),
)


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
    saved_on: dt.date


def bookmarks(where: str, params: tuple[str, ...], page: Page) -> Paged[Bookmark]:
    query = f"SELECT * FROM b {where} ORDER BY saved DESC, id LIMIT ? OFFSET ?"
    rows = db().execute(query, (*params, page.fetch, page.offset)).fetchall()
    return Paged(results=[Bookmark(id=i, url=u, title=t, saved_on=s) for i, u, t, s in rows])


@contract.tool(effects=READ_ONLY)
def search_bookmarks(
    query: Annotated[
        str, Field(min_length=1, max_length=200, description="Words in the title or URL.")
    ],
    saved_after: Annotated[
        dt.date | None, Field(description="Only bookmarks saved on or after.")
    ] = None,
    *,
    page: Page,
) -> Paged[Bookmark]:
    """Find bookmarks by words in the title or URL, optionally saved on or after a date. Use it to
    find a bookmark's id; no match is an empty page, not an error.
    Example: {"query": "<the user's words>", "saved_after": "<YYYY-MM-DD>"}."""
    since = (saved_after or dt.date.min).isoformat()
    where = "WHERE (title LIKE ?1 OR url LIKE ?1) AND saved >= ?2"
    return bookmarks(where, (f"%{query}%", since), page)


@contract.tool(effects=READ_ONLY)
def list_bookmarks(page: Page) -> Paged[Bookmark]:
    """List every bookmark, newest first, a page at a time. Use it to browse without words; with
    no bookmarks the page is empty. Example: {"limit": "<page size>"}."""
    return bookmarks("", (), page)


@contract.tool(effects=CREATE)
def create_bookmark(
    url: Annotated[
        str, Field(pattern=r"^https?://", max_length=2000, description="The page's URL.")
    ],
    title: Annotated[
        str, Field(min_length=1, max_length=200, description="A title to find it by.")
    ],
    idempotency_key: IdempotencyKey,
) -> Bookmark:
    """Save a bookmark and return it with its id. Use it when the user asks to keep a page; a URL
    that is not http(s) is refused. Example: {"url": "<the page's URL>", "title": "<title>",
    "idempotency_key": "<a key you make up>"}."""
    saved = Bookmark(id=f"bm_{os.urandom(4).hex()}", url=url, title=title, saved_on=dt.date.today())
    with db() as conn:
        row = (saved.id, saved.url, saved.title, saved.saved_on.isoformat())
        conn.execute("INSERT INTO b VALUES (?, ?, ?, ?)", row)
    return saved


class Deleted(Output):
    bookmark: Bookmark
    deleted: bool


@contract.tool(effects=DELETE, errors=["not_found"])
def delete_bookmark(
    bookmark_id: Annotated[
        str, Id("bm_"), Field(description="The id search_bookmarks or list_bookmarks returned.")
    ],
    dry_run: DryRun = False,
    confirm_token: ConfirmToken = None,
) -> Deleted:
    """Delete one bookmark by id: the dry run shows it, the confirmed call deletes it. Use it only
    when the user asks to remove a bookmark; an unknown id is not_found.
    Example: {"bookmark_id": "<bookmark_id of a result>"}."""
    with db() as conn:
        row = conn.execute("SELECT * FROM b WHERE id = ?", (bookmark_id,)).fetchone()
        if row is None:
            raise ToolError(
                "not_found",
                f"No bookmark has the id {bookmark_id}.",
                hint="Find it with search_bookmarks.",
            )
        if not dry_run:
            conn.execute("DELETE FROM b WHERE id = ?", (bookmark_id,))
    return Deleted(
        bookmark=Bookmark(id=row[0], url=row[1], title=row[2], saved_on=row[3]), deleted=not dry_run
    )
