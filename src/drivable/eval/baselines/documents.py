"""The documents server written the naive way: the same seven tools over the same generated data.

The quick FastMCP-style server most authors write: `str`/`int` parameters, one-line docstrings,
every tool returns a string (JSON on success), and a failure is caught and returned as a success
whose text starts "Error: ..." with the exception's words. No hints, no dry run, no confirm token,
no idempotency key, integer offsets as cursors, and a document's whole text inline. State lives in
this process. Run as a module for stdio.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from mcp.server.mcpserver import MCPServer

from drivable.eval.corpus.documents.data import PEOPLE, generate, size_label

server = MCPServer("documents-naive", version="1.0.0")
_LIBRARY = generate()
DOCS: dict[str, dict[str, Any]] = {
    d.document_id: {
        "document_id": d.document_id,
        "name": d.name,
        "folder": d.folder,
        "type": d.type,
        "size": size_label(d.size_bytes),
        "size_bytes": d.size_bytes,
        "owner": d.owner,
        "modified_on": d.modified_on.isoformat(),
        "version": d.version,
        "shared_with": [{"email": s.email, "role": s.role} for s in d.shares],
        "text": d.text,
    }
    for d in _LIBRARY.documents
}
FOLDERS = set(_LIBRARY.folders)
NAMES = {p.email: p.name for p in PEOPLE}
ROW = ("document_id", "name", "folder", "type", "size", "owner", "modified_on", "version")
SORTS = {
    "name": (lambda d: d["name"].lower(), False),
    "newest": (lambda d: d["modified_on"], True),
    "oldest": (lambda d: d["modified_on"], False),
    "largest": (lambda d: d["size_bytes"], True),
    "smallest": (lambda d: d["size_bytes"], False),
}


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: doc[k] for k in ROW}


def _in(folder: str, under: str) -> bool:
    return under == "/" or folder == under or folder.startswith(under + "/")


@server.tool()
def search_documents(
    query: str = "",
    folder: str = "",
    owner: str = "",
    type: str = "",
    modified_from: str = "",
    modified_to: str = "",
    min_size: int = 0,
    max_size: int = 0,
    cursor: str = "",
    limit: int = 10,
) -> str:
    """Search documents."""
    try:
        words = query.lower().split()
        start = datetime.date.fromisoformat(modified_from).isoformat() if modified_from else ""
        end = datetime.date.fromisoformat(modified_to).isoformat() if modified_to else ""
        found = [
            d
            for d in DOCS.values()
            if all(w in f"{d['name']} {d['text']}".lower() for w in words)
            and (not folder or _in(d["folder"], folder.rstrip("/") or "/"))
            and (not owner or d["owner"] == owner.lower())
            and (not type or d["type"] == type.lower())
            and (not start or d["modified_on"] >= start)
            and (not end or d["modified_on"] <= end)
            and (not min_size or d["size_bytes"] >= min_size)
            and (not max_size or d["size_bytes"] <= max_size)
        ]
        # the words in the name first, then the newest
        found.sort(key=lambda d: d["document_id"])
        found.sort(key=lambda d: d["modified_on"], reverse=True)
        found.sort(key=lambda d: not all(w in d["name"].lower() for w in words))
        offset = int(cursor) if cursor else 0
        page = found[offset : offset + limit]
        more = offset + limit < len(found)
        return json.dumps(
            {
                "results": [_row(d) for d in page],
                "total": len(found),
                "next_cursor": str(offset + limit) if more else None,
            }
        )
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def list_folder(folder: str = "/", sort: str = "name", cursor: str = "", limit: int = 20) -> str:
    """List a folder."""
    try:
        if folder not in FOLDERS:
            return f"Error: folder not found: {folder}"
        key, reverse = SORTS[sort]
        docs = sorted((d for d in DOCS.values() if d["folder"] == folder), key=key, reverse=reverse)
        offset = int(cursor) if cursor else 0
        more = offset + limit < len(docs)
        prefix = "/" if folder == "/" else folder + "/"
        subfolders = sorted(
            f for f in FOLDERS if f.startswith(prefix) and "/" not in f[len(prefix) :] and f != "/"
        )
        return json.dumps(
            {
                "folder": folder,
                "folders": subfolders,
                "documents": [_row(d) for d in docs[offset : offset + limit]],
                "next_cursor": str(offset + limit) if more else None,
            }
        )
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def get_document(document_id: str) -> str:
    """Get a document."""
    try:
        doc = DOCS[document_id]
        return json.dumps({**doc, "owner_name": NAMES.get(doc["owner"], doc["owner"])})
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def move_document(
    document_id: str, expected_version: int, folder: str = "", new_name: str = ""
) -> str:
    """Move or rename a document."""
    try:
        doc = DOCS[document_id]
        if doc["version"] != expected_version:
            return "Error: version mismatch"
        if folder and folder not in FOLDERS:
            return f"Error: folder not found: {folder}"
        doc["folder"] = folder or doc["folder"]
        doc["name"] = new_name or doc["name"]
        doc["version"] += 1
        return json.dumps({"status": "moved", "document": _row(doc)})
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def share_document(document_id: str, email: str, role: str = "viewer") -> str:
    """Share a document."""
    try:
        doc = DOCS[document_id]
        if role not in ("viewer", "editor"):
            return "Error: invalid role"
        shares = [s for s in doc["shared_with"] if s["email"] != email]
        doc["shared_with"] = [*shares, {"email": email, "role": role}]
        return json.dumps(
            {"status": "shared", "document_id": document_id, "email": email, "role": role}
        )
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def delete_document(document_id: str) -> str:
    """Delete a document."""
    try:
        doc = DOCS.pop(document_id)
        return json.dumps({"status": "deleted", "document": _row(doc)})
    except Exception as e:
        return f"Error: {e}"


@server.tool()
def delete_folder(folder: str) -> str:
    """Delete a folder."""
    try:
        if folder not in FOLDERS or folder == "/":
            return f"Error: cannot delete folder {folder}"
        gone = [k for k, d in DOCS.items() if _in(d["folder"], folder)]
        for k in gone:
            del DOCS[k]
        for f in [f for f in FOLDERS if _in(f, folder)]:
            FOLDERS.discard(f)
        return json.dumps({"status": "deleted", "folder": folder, "documents": len(gone)})
    except Exception as e:
        return f"Error: {e}"


if __name__ == "__main__":
    server.run()
