"""The peers' demo server, rewritten for our tests (MCPServer, stdio). v2 with `--v2` or NOTES_VERSION=2.

v2: `delete_note` removed, `add_note` requires `body` and a new `tags`, its description changed,
`archive_note` added. The expected diff: 3 breaking, 1 routing, 1 additive (peers.md §1).
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

V2 = "--v2" in sys.argv or os.environ.get("NOTES_VERSION") == "2"
srv = MCPServer("notes", version="2.0.0" if V2 else "1.0.0")


@srv.tool(description="Search notes by text.")
def search_notes(query: str, limit: int = 10) -> str:
    return f"{query}:{limit}"


@srv.tool()
def read_file(path: str) -> str:
    return path


# Each version's tools are declared in a function of their own: the same name, two signatures.
def _v2() -> None:
    @srv.tool(description="Add a note with a body and tags; returns its id.")
    def add_note(title: str, body: str, tags: list[str]) -> str:
        return title

    @srv.tool(description="Archive a note so search no longer finds it.")
    def archive_note(id: int) -> str:
        return str(id)


def _v1() -> None:
    @srv.tool(description="Add a note.")
    def add_note(title: str, body: str = "") -> str:
        return title

    @srv.tool(description="Delete.")
    def delete_note(id: int) -> str:
        return str(id)


if V2:
    _v2()
else:
    _v1()


if __name__ == "__main__":
    srv.run()
