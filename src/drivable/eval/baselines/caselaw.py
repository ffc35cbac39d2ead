"""The caselaw server written the naive way: the same three tools over the same decision database.

search_decisions, get_decision and list_courts with plain `str`/`int` parameters; the court filter
compares the official name exactly, dates are parsed with `date.fromisoformat`, the cursor is an
integer offset, errors are whatever the code raises. Run as a module for stdio.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from drivable.servers.caselaw.courts import COURTS
from drivable.servers.caselaw.store import Filters, Store

server = MCPServer("caselaw-naive", version="1.0.0")
_STORE: list[Store] = []


def _store() -> Store:
    if not _STORE:
        _STORE.append(Store.open())
    return _STORE[0]


def _row(r: dict[str, Any]) -> dict[str, Any]:
    keep = ("decision_id", "court", "case_number", "decided_on", "subject", "headline", "snippet")
    return {k: r[k] for k in keep if r.get(k) is not None}


@server.tool()
def search_decisions(
    query: str | None = None,
    court: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    subject: str | None = None,
    limit: int = 10,
    cursor: str | None = None,
) -> dict[str, Any]:
    """Search court decisions."""
    import datetime

    start = int(cursor) if cursor else 0
    filters = Filters(
        court=court,
        date_from=datetime.date.fromisoformat(date_from).isoformat() if date_from else None,
        date_to=datetime.date.fromisoformat(date_to).isoformat() if date_to else None,
        subject=subject,
    )
    rows, total = _store().search(query, filters, start, limit)
    more = start + len(rows) < total
    return {
        "results": [_row(r) for r in rows],
        "total": total,
        "next_cursor": str(start + limit) if more else None,
    }


@server.tool()
def get_decision(decision_id: str) -> dict[str, Any]:
    """Get a decision by id."""
    found = _store().get(decision_id)
    if found is None:
        raise KeyError(decision_id)
    return {"decision": {k: v for k, v in found.items() if k != "text"} | {"text": found["text"]}}


@server.tool()
def list_courts(country: str | None = None) -> dict[str, Any]:
    """List courts."""
    return {
        "courts": [
            {"court": c.value, "english": c.english, "country": c.country}
            for c in COURTS
            if country is None or c.country == country
        ]
    }


if __name__ == "__main__":
    server.run()
