"""The caselaw server written the naive way: the same four tools over the same decision database.

search_decisions, get_decision, list_courts and summarize_decisions with plain `str`/`int`
parameters; the court filter compares the official name exactly, dates are parsed with
`date.fromisoformat`, the cursor is an integer offset, errors are whatever the code raises. The
summary reads the whole result set in one blocking call, without progress or a task. Run as a
module for stdio.
"""

from __future__ import annotations

from collections import Counter
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


@server.tool()
def summarize_decisions(
    query: str | None = None,
    court: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    subject: str | None = None,
) -> dict[str, Any]:
    """Summarize all decisions matching a search."""
    import datetime

    filters = Filters(
        court=court,
        date_from=datetime.date.fromisoformat(date_from).isoformat() if date_from else None,
        date_to=datetime.date.fromisoformat(date_to).isoformat() if date_to else None,
        subject=subject,
    )
    _, total = _store().search(query, filters, 0, 1)
    rows, _ = _store().search(query, filters, 0, max(total, 1))
    courts = Counter(str(r["court"]) for r in rows)
    years = Counter(str(r["decided_on"])[:4] for r in rows)
    subjects = Counter(str(r["subject"]) for r in rows)
    statutes = Counter(s for r in rows for s in r.get("statutes") or [])
    return {
        "matched": total,
        "by_court": dict(courts.most_common()),
        "by_year": dict(sorted(years.items(), reverse=True)),
        "by_subject": dict(subjects.most_common()),
        "top_statutes": dict(statutes.most_common(10)),
    }


if __name__ == "__main__":
    server.run()
