"""The example notes server written the naive way (plain MCPServer tools, no drivable runtime).

The same data and tool names as the drivable example server (tests/contract/example_server.py):
search_notes, get_note, list_notes, create_notes, delete_note. Open schemas, errors as exception
strings, no repairs, integer-offset cursors, a delete that deletes. Run as a module for stdio.
"""

from __future__ import annotations

import datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

TOPICS = ("garden", "budget", "plan", "taxes")
NOTES = {
    f"note_{i}": {
        "id": f"note_{i}",
        "title": f"{TOPICS[(i - 1) % len(TOPICS)].capitalize()} note {i}",
        "day": (datetime.date(2026, 1, 1) + datetime.timedelta(days=i * 7)).isoformat(),
    }
    for i in range(1, 31)
}
DELETED: set[str] = set()

server = MCPServer("notes-naive", version="1.0.0")


def _live() -> list[dict[str, str]]:
    return [n for k, n in NOTES.items() if k not in DELETED]


@server.tool()
def search_notes(
    query: str,
    date_from: str | None = None,
    date_to: str | None = None,
    limit: int = 10,
    detail: str = "summary",
) -> dict[str, Any]:
    """Search notes."""
    start = datetime.date.fromisoformat(date_from) if date_from else None
    end = datetime.date.fromisoformat(date_to) if date_to else None
    words = query.lower().split()
    rows = [
        n
        for n in _live()
        if (start is None or n["day"] >= start.isoformat())
        and (end is None or n["day"] <= end.isoformat())
        and all(w in n["title"].lower().split() for w in words)
    ]
    return {"results": rows[:limit], "has_more": len(rows) > limit}


@server.tool()
def get_note(note_id: str) -> dict[str, Any]:
    """Get a note."""
    if note_id not in NOTES or note_id in DELETED:
        raise ToolError(f"Note {note_id} not found")
    return {"note": NOTES[note_id]}


@server.tool()
def list_notes(
    cursor: str | None = None, limit: int = 5, detail: str = "summary"
) -> dict[str, Any]:
    """List notes."""
    start = int(cursor) if cursor else 0
    live = _live()
    rows = live[start : start + limit]
    more = start + limit < len(live)
    return {
        "results": [{"id": n["id"], "title": n["title"]} for n in rows],
        "next_cursor": str(start + limit) if more else None,
    }


@server.tool()
def create_notes(drafts: list[dict[str, Any]]) -> dict[str, Any]:
    """Create notes."""
    made = []
    for draft in drafts:
        datetime.date.fromisoformat(draft["day"])  # all or nothing
    for i, draft in enumerate(drafts):
        made.append(f"new_{i + 1}")
        del draft
    return {"created": made}


@server.tool()
def delete_note(note_id: str) -> dict[str, Any]:
    """Delete a note."""
    if note_id not in NOTES or note_id in DELETED:
        raise ToolError(f"Note {note_id} not found")
    DELETED.add(note_id)
    return {"note_id": note_id, "status": "deleted"}


if __name__ == "__main__":
    server.run()
