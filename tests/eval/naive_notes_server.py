"""The example notes server written the naive way: plain MCPServer tools, no drivable runtime.

Open schemas (plain `str`/`int` parameters, no formats, no bounds), errors as exception strings, no
repairs, integer-offset cursors. The same data and tool names as tests/contract/example_server.py,
so the same workflows run against both. Run as a script for stdio.
"""

from __future__ import annotations

import datetime
from typing import Any

from mcp.server.mcpserver import MCPServer

NOTES = {
    f"note_{i}": {
        "id": f"note_{i}",
        "title": f"Note {i}",
        "day": (datetime.date(2026, 1, 1) + datetime.timedelta(days=i * 7)).isoformat(),
    }
    for i in range(1, 31)
}

server = MCPServer("notes-naive", version="1.0.0")


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
    rows = [
        n
        for n in NOTES.values()
        if (start is None or n["day"] >= start.isoformat())
        and (end is None or n["day"] <= end.isoformat())
    ]
    return {"results": rows[:limit], "has_more": len(rows) > limit}


@server.tool()
def get_note(note_id: str) -> dict[str, Any]:
    """Get a note."""
    return {"note": NOTES[note_id]}


@server.tool()
def list_notes(
    cursor: str | None = None, limit: int = 5, detail: str = "summary"
) -> dict[str, Any]:
    """List notes."""
    start = int(cursor) if cursor else 0
    rows = list(NOTES.values())[start : start + limit]
    more = start + limit < len(NOTES)
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


if __name__ == "__main__":
    server.run()
