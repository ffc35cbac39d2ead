"""summarize_decisions: the whole result set of a search, tallied (caselaw's long-running tool).

A model that wants "how do the courts split on this, over the years" would otherwise page through
search_decisions fifty rows at a time. This tool reads every matching decision (at most the whole
database, 5 000 decisions), page by page, and answers counts per court, year, subject and statute.
It is declared long-running: with the tasks extension it answers a task handle at once and reports
"Read N of M matching decisions." as it goes; a worker that dies mid-way is replaced by another that
reads again from the start (reading twice changes nothing). Declared on `server.contract` after
its three reads (the package's __init__ imports this module after `server`).
"""

from __future__ import annotations

import datetime
from collections import Counter

import anyio
from pydantic import Field

from drivable.contract import READ_ONLY, Call
from drivable.contract.output import Output
from drivable.kinds import KindModel
from drivable.servers.caselaw.data import Subject
from drivable.servers.caselaw.domain import (
    Handle,
    court_for_query,
    reads_any_word,
    search_filters,
)
from drivable.servers.caselaw.models import CourtValue
from drivable.servers.caselaw.server import contract
from drivable.tasks import LongRunning

PAGE = 100
TOP = 10
LONG_RUNNING = LongRunning(
    duration="seconds", timeout_s=120, keep_s=3_600, on_worker_lost="restart"
)


class Count(Output):
    value: str
    decisions: int


class SummaryOutput(Output):
    matched: int = Field(description="Decisions matching the query and filters.")
    read: int = Field(description="Decisions read and tallied (all of the matching ones).")
    by_court: list[Count] = Field(description="Decisions per court, most first.")
    by_year: list[Count] = Field(description="Decisions per year decided, newest first.")
    by_subject: list[Count] = Field(description="Decisions per subject area, most first.")
    top_statutes: list[Count] = Field(
        description=f"The {TOP} statutes (ELI) applied most often, most first."
    )


def _counts(
    counter: Counter[str], *, by_value: bool = False, limit: int | None = None
) -> list[Count]:
    if by_value:
        ordered = sorted(counter.items(), key=lambda kv: kv[0], reverse=True)
    else:
        ordered = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Count(value=v, decisions=n) for v, n in ordered[:limit]]


class SummarizeInput(KindModel):
    query: str | None = Field(
        None,
        max_length=300,
        description="Words the decisions contain, as in search_decisions. Omit for every "
        "decision matching the filters.",
    )
    court: CourtValue | None = Field(
        None, description="Only decisions of this court (name, English name or abbreviation)."
    )
    date_from: datetime.date | None = Field(
        None, description="Decided on or after this day; a bare year means its first day."
    )
    date_to: datetime.date | None = Field(
        None, description="Decided on or before this day; a bare year means its last day."
    )
    subject: Subject | None = Field(None, description="Only decisions of this subject area.")


@contract.tool(
    name="summarize_decisions",
    title="Summarize a whole search result",
    description=(
        "Tally every decision a search matches (not one page): counts per court, per year, "
        "per subject and the statutes applied most. Use for questions about a body of case "
        "law (how many, which courts, which years); search_decisions with a court value it "
        "returns then lists that court's decisions. Takes the filters of search_decisions without paging. If no "
        "decision contains every query word, decisions containing any of them are tallied "
        "and a note says so; no match answers matched 0 with empty lists. Example: "
        '{"query": "<the user\'s words>"}.'
    ),
    effects=READ_ONLY,
    task=LONG_RUNNING,
)
async def summarize_decisions(args: SummarizeInput, call: Call, db: Handle) -> SummaryOutput:
    store = db.store
    args = court_for_query(args, call)
    filters = search_filters(args)
    any_word = reads_any_word(store, args.query)
    if any_word:
        call.note(
            "query: No decision contains all these words, so decisions containing any of "
            "them were tallied."
        )
    courts: Counter[str] = Counter()
    years: Counter[str] = Counter()
    subjects: Counter[str] = Counter()
    statutes: Counter[str] = Counter()
    read, total = 0, None
    while total is None or read < total:
        rows, total = store.search(args.query, filters, read, PAGE, any_word=any_word)
        if not rows:
            break
        for row in rows:
            courts[str(row["court"])] += 1
            years[str(row["decided_on"])[:4]] += 1
            subjects[str(row["subject"])] += 1
            statutes.update(row.get("statutes") or [])
        read += len(rows)
        await call.report_progress(read, total, f"Read {read} of {total} matching decisions.")
        await anyio.sleep(0)  # a cancellation takes effect between pages
    by_court = _counts(courts)
    if by_court:
        # the drill-down as a call (docs/decisions/0024-how-a-next-step-is-said.md, 2)
        largest = args.model_copy(update={"court": by_court[0].value})
        call.follow("search_decisions", largest.model_dump(mode="json", exclude_none=True))
    return SummaryOutput(
        matched=total or 0,
        read=read,
        by_court=by_court,
        by_year=_counts(years, by_value=True),
        by_subject=_counts(subjects),
        top_statutes=_counts(statutes, limit=TOP),
    )
