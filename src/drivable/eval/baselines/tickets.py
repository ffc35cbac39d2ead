"""The ticket tracker written the naive way: the same six tools over the same generated tickets.

The tickets live in this process, loaded from the shared generated data at start, as a quick
server keeps them before it has a database. Plain `str`/`int` parameters, one-line docstrings,
labels as a comma-separated string, dates as ISO strings, an integer offset as the cursor, no
idempotency keys, no dry run, errors as whatever the code raises. Run as a module for stdio.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from drivable.eval.corpus.tickets.data import (
    API_USER,
    NAMES,
    PRIORITIES,
    PROJECTS,
    STATUSES,
    generate,
    now_stamp,
)

server = MCPServer("tickets-naive", version="1.0.0")

PROJECT_NAMES = {p.key: p.name for p in PROJECTS}
TICKETS: dict[str, dict[str, Any]] = {}
COMMENTS: dict[str, list[dict[str, Any]]] = {}
for _t in generate().tickets:
    TICKETS[_t.ticket_id] = {
        "ticket_id": _t.ticket_id,
        "project": _t.project,
        "title": _t.title,
        "description": _t.description,
        "status": _t.status,
        "priority": _t.priority,
        "assignee": _t.assignee,
        "reporter": _t.reporter,
        "labels": list(_t.labels),
        "created_at": _t.created_at,
        "updated_at": _t.updated_at,
        "version": _t.version,
    }
    COMMENTS[_t.ticket_id] = [
        {"comment_id": c.comment_id, "author": c.author, "body": c.body, "created_at": c.created_at}
        for c in _t.comments
    ]


def plain_errors(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Whatever a tool raises reaches the caller as its type and text ("KeyError: 'MOB-9'"),
    the last line of the traceback, as most quick servers send it."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    return run


def _row(t: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: v for k, v in t.items() if k not in ("description", "reporter")},
        "assignee_name": NAMES.get(t["assignee"] or ""),
        "comments": len(COMMENTS[t["ticket_id"]]),
    }


def _detail(t: dict[str, Any]) -> dict[str, Any]:
    return {
        **t,
        "project_name": PROJECT_NAMES[t["project"]],
        "assignee_name": NAMES.get(t["assignee"] or ""),
        "reporter_name": NAMES.get(t["reporter"], t["reporter"]),
        "comments": [
            {**c, "author_name": NAMES.get(c["author"], c["author"])}
            for c in COMMENTS[t["ticket_id"]]
        ],
    }


@server.tool()
@plain_errors
def search_tickets(
    query: str | None = None,
    project: str | None = None,
    status: str | None = None,
    priority: str | None = None,
    assignee: str | None = None,
    labels: str | None = None,
    created_from: str | None = None,
    created_to: str | None = None,
    updated_from: str | None = None,
    updated_to: str | None = None,
    limit: int = 20,
    cursor: str | None = None,
) -> dict[str, Any]:
    """Search tickets."""
    if status and status not in STATUSES:
        raise ValueError("invalid status")
    if priority and priority not in PRIORITIES:
        raise ValueError("invalid priority")
    wanted = labels.split(",") if labels else []
    bounds = [
        (field, op, datetime.date.fromisoformat(value).isoformat())
        for field, op, value in (
            ("created_at", ">=", created_from),
            ("created_at", "<=", created_to),
            ("updated_at", ">=", updated_from),
            ("updated_at", "<=", updated_to),
        )
        if value
    ]
    rows = []
    for t in TICKETS.values():
        if query and query.lower() not in (t["title"] + " " + t["description"]).lower():
            continue
        if project and t["project"] != project:
            continue
        if status and t["status"] != status:
            continue
        if priority and t["priority"] != priority:
            continue
        if assignee and t["assignee"] != assignee:
            continue
        if any(label not in t["labels"] for label in wanted):
            continue
        day = {"created_at": t["created_at"][:10], "updated_at": t["updated_at"][:10]}
        if any(
            (day[field] < value) if op == ">=" else (day[field] > value)
            for field, op, value in bounds
        ):
            continue
        rows.append(t)
    rows.sort(key=lambda t: t["ticket_id"])
    rows.sort(key=lambda t: t["updated_at"], reverse=True)
    start = int(cursor) if cursor else 0
    page = rows[start : start + limit]
    return {
        "results": [_row(t) for t in page],
        "total": len(rows),
        "next_cursor": str(start + limit) if start + limit < len(rows) else None,
    }


@server.tool()
@plain_errors
def get_ticket(ticket_id: str) -> dict[str, Any]:
    """Get a ticket."""
    return {"ticket": _detail(TICKETS[ticket_id])}


@server.tool()
@plain_errors
def create_ticket(
    project: str,
    title: str,
    description: str = "",
    priority: str = "normal",
    labels: str = "",
    assignee: str | None = None,
) -> dict[str, Any]:
    """Create a ticket."""
    if project not in PROJECT_NAMES:
        raise ValueError(f"unknown project {project}")
    if priority not in PRIORITIES:
        raise ValueError("invalid priority")
    number = 1 + max(int(k.split("-")[1]) for k in TICKETS if k.startswith(project + "-"))
    ticket_id = f"{project}-{number}"
    stamp = now_stamp()
    TICKETS[ticket_id] = {
        "ticket_id": ticket_id,
        "project": project,
        "title": title,
        "description": description,
        "status": "open",
        "priority": priority,
        "assignee": assignee,
        "reporter": API_USER.email,
        "labels": labels.split(",") if labels else [],
        "created_at": stamp,
        "updated_at": stamp,
        "version": 1,
    }
    COMMENTS[ticket_id] = []
    return {"ticket": _detail(TICKETS[ticket_id])}


@server.tool()
@plain_errors
def update_ticket(
    ticket_id: str,
    expected_version: int | None = None,
    status: str | None = None,
    assignee: str | None = None,
    priority: str | None = None,
) -> dict[str, Any]:
    """Update a ticket."""
    t = TICKETS[ticket_id]
    if expected_version is not None and expected_version != t["version"]:
        raise ValueError("version mismatch")
    if status is not None:
        if status not in STATUSES:
            raise ValueError("invalid status")
        t["status"] = status
    if assignee is not None:
        t["assignee"] = assignee or None
    if priority is not None:
        if priority not in PRIORITIES:
            raise ValueError("invalid priority")
        t["priority"] = priority
    t["version"] += 1
    t["updated_at"] = now_stamp()
    return {"ticket": _detail(t)}


@server.tool()
@plain_errors
def add_comment(ticket_id: str, body: str) -> dict[str, Any]:
    """Add a comment."""
    t = TICKETS[ticket_id]
    comments = COMMENTS[ticket_id]
    comment = {
        "comment_id": f"{ticket_id}#c{len(comments) + 1}",
        "author": API_USER.email,
        "body": body,
        "created_at": now_stamp(),
    }
    comments.append(comment)
    t["updated_at"] = comment["created_at"]
    return {
        "ticket_id": ticket_id,
        "comment": {**comment, "author_name": API_USER.name},
        "comments": len(comments),
    }


@server.tool()
@plain_errors
def delete_ticket(ticket_id: str) -> dict[str, Any]:
    """Delete a ticket."""
    t = TICKETS.pop(ticket_id)
    COMMENTS.pop(ticket_id, None)
    return {"status": "deleted", "ticket_id": ticket_id, "summary": f"Deleted {t['title']}"}


if __name__ == "__main__":
    server.run()
