"""Bookmarks on FastMCP: the same four tools as bookmarks_drivable.py, the same behaviour by hand.

    fastmcp run examples/bookmarks_fastmcp.py

A keyed create replays its first result, a delete needs the token its dry run returned, pages
are signed cursors, and every refusal says what to do next. FastMCP leaves those to the author.
"""

import base64
import datetime
import hashlib
import hmac
import json
import os
import sqlite3
from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BaseModel, Field

mcp = FastMCP("bookmarks", instructions="Save, find and delete web bookmarks.")
SECRET = os.environ.get("BOOKMARKS_SECRET", "change-me").encode()


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(os.environ.get("BOOKMARKS_DB", "bookmarks.sqlite"))
    conn.execute(
        "CREATE TABLE IF NOT EXISTS b (id TEXT PRIMARY KEY, url TEXT, title TEXT, saved TEXT)"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS receipts (key TEXT PRIMARY KEY, args TEXT, result TEXT)"
    )
    return conn


def sign(payload: dict[str, Any]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode()
    return f"{body}.{hmac.new(SECRET, body.encode(), hashlib.sha256).hexdigest()[:32]}"


def unsign(token: str) -> dict[str, Any] | None:
    body, _, mac = token.rpartition(".")
    if not hmac.compare_digest(
        mac, hmac.new(SECRET, body.encode(), hashlib.sha256).hexdigest()[:32]
    ):
        return None
    payload: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body))
    return payload


class Bookmark(BaseModel):
    id: str
    url: str
    title: str
    saved_on: datetime.date


class Bookmarks(BaseModel):
    results: list[Bookmark]
    has_more: bool
    next_cursor: str | None = None


def page_of(
    cursor: str | None, limit: int, where: str, params: tuple[str, ...], tool: str
) -> Bookmarks:
    start = 0
    if cursor is not None:
        payload = unsign(cursor)
        if payload is None or payload.get("query") != [tool, *params]:
            raise ToolError(f"invalid_cursor: call {tool} again without cursor to start over.")
        start = payload["offset"]
    rows = (
        db()
        .execute(
            f"SELECT * FROM b {where} ORDER BY saved DESC, id LIMIT ? OFFSET ?",
            (*params, limit + 1, start),
        )
        .fetchall()
    )
    more = len(rows) > limit
    results = [Bookmark(id=i, url=u, title=t, saved_on=s) for i, u, t, s in rows[:limit]]
    following = sign({"query": [tool, *params], "offset": start + limit}) if more else None
    return Bookmarks(results=results, has_more=more, next_cursor=following)


Cursor = Annotated[
    str | None, Field(description="next_cursor of the previous page; omit for the first.")
]
Limit = Annotated[int, Field(ge=1, le=100, description="Bookmarks per page.")]


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def search_bookmarks(
    query: Annotated[
        str, Field(min_length=1, max_length=200, description="Words in the title or URL.")
    ],
    saved_after: Annotated[
        datetime.date | None, Field(description="Only bookmarks saved on or after.")
    ] = None,
    cursor: Cursor = None,
    limit: Limit = 20,
) -> Bookmarks:
    """Find bookmarks by words in the title or URL, optionally saved on or after a date. Use it to
    find a bookmark's id; no match is an empty page, not an error.
    Example: {"query": "python", "saved_after": "2026-01-01"}."""
    since = (saved_after or datetime.date.min).isoformat()
    where = "WHERE (title LIKE ?1 OR url LIKE ?1) AND saved >= ?2"
    return page_of(cursor, limit, where, (f"%{query}%", since), "search_bookmarks")


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def list_bookmarks(cursor: Cursor = None, limit: Limit = 20) -> Bookmarks:
    """List every bookmark, newest first, a page at a time. Use it to browse without words; with
    no bookmarks the page is empty. Example: {"limit": 20}."""
    return page_of(cursor, limit, "", (), "list_bookmarks")


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True})
def create_bookmark(
    url: Annotated[
        str, Field(pattern=r"^https?://", max_length=2000, description="The page's URL.")
    ],
    title: Annotated[
        str, Field(min_length=1, max_length=200, description="A title to find it by.")
    ],
    idempotency_key: Annotated[
        str,
        Field(
            min_length=8,
            max_length=128,
            description="A key you generate once per bookmark and resend on every retry.",
        ),
    ],
) -> Bookmark:
    """Save a bookmark and return it with its id. Use it when the user asks to keep a page; a URL
    that is not http(s) is refused. Retrying with the same idempotency_key replays the first
    result. Example: {"url": "https://docs.python.org", "title": "Python docs",
    "idempotency_key": "a1b2c3d4e5"}."""
    args = json.dumps({"url": url, "title": title}, sort_keys=True)
    with db() as conn:
        seen = conn.execute(
            "SELECT args, result FROM receipts WHERE key = ?", (idempotency_key,)
        ).fetchone()
        if seen is not None:
            if seen[0] != args:
                raise ToolError(
                    "idempotency_mismatch: this key was used with other arguments; use a new key."
                )
            return Bookmark.model_validate_json(seen[1])
        saved = Bookmark(
            id=f"bm_{os.urandom(4).hex()}", url=url, title=title, saved_on=datetime.date.today()
        )
        conn.execute(
            "INSERT INTO b VALUES (?, ?, ?, ?)", (saved.id, url, title, saved.saved_on.isoformat())
        )
        conn.execute(
            "INSERT INTO receipts VALUES (?, ?, ?)",
            (idempotency_key, args, saved.model_dump_json()),
        )
    return saved


class Deleted(BaseModel):
    bookmark: Bookmark
    deleted: bool
    confirm_token: str | None = None


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True})
def delete_bookmark(
    bookmark_id: Annotated[
        str,
        Field(
            pattern=r"^bm_[A-Za-z0-9]+$",
            description="The id search_bookmarks or list_bookmarks returned.",
        ),
    ],
    dry_run: Annotated[
        bool, Field(description="true previews and returns a confirm_token; false deletes.")
    ] = True,
    confirm_token: Annotated[
        str | None, Field(description="The confirm_token of the dry run.")
    ] = None,
) -> Deleted:
    """Delete one bookmark by id in two steps: call with dry_run=true to preview and get a
    confirm_token, then again with dry_run=false and that token. Use it only when the user asks to
    remove a bookmark; an unknown id is not_found. Example: {"bookmark_id": "bm_5f3a9c01"}."""
    with db() as conn:
        row = conn.execute("SELECT * FROM b WHERE id = ?", (bookmark_id,)).fetchone()
        if row is None:
            raise ToolError(
                f"not_found: no bookmark has the id {bookmark_id}; find it with search_bookmarks."
            )
        bookmark = Bookmark(id=row[0], url=row[1], title=row[2], saved_on=row[3])
        if dry_run:
            return Deleted(
                bookmark=bookmark, deleted=False, confirm_token=sign({"delete": bookmark_id})
            )
        if confirm_token is None or unsign(confirm_token) != {"delete": bookmark_id}:
            raise ToolError(
                "confirmation_invalid: call delete_bookmark with dry_run=true for a fresh confirm_token."
            )
        conn.execute("DELETE FROM b WHERE id = ?", (bookmark_id,))
    return Deleted(bookmark=bookmark, deleted=True)


if __name__ == "__main__":
    mcp.run()
