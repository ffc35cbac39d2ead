"""A small server built with FastMCP (run with a venv that has `fastmcp`): the auditor must cope."""

from __future__ import annotations

from fastmcp import FastMCP

mcp = FastMCP("fastmcp-notes")
NOTES = {"n1": "Taxes 2025", "n2": "Garden plan"}


@mcp.tool
def search_notes(query: str, limit: int = 10) -> list[dict[str, str]]:
    """Search notes by title words. Use when you need note ids. Example: search_notes(query="tax")."""
    hits = [{"note_id": k, "title": v} for k, v in NOTES.items() if query.lower() in v.lower()]
    return hits[:limit]


@mcp.tool
def get_note(note_id: str) -> dict[str, str]:
    """Read one note by id."""
    return {"note_id": note_id, "title": NOTES[note_id]}


@mcp.tool
def delete_note(note_id: str) -> str:
    """Delete a note."""
    NOTES.pop(note_id, None)
    return "deleted"


if __name__ == "__main__":
    mcp.run(show_banner=False)
