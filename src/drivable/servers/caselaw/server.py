"""The caselaw reference server: search and read court decisions.

Three read-only tools (search_decisions, get_decision, list_courts) and a long-running one that
tallies a whole result set (summarize_decisions, in `analysis`), each decision's text as a chunked
resource with an index before the body, a capability summary resource, and two advisory prompts.
Every value is read through `drivable.kinds` (courts through their vocabulary, dates, ELI
references, locales, cursors); case numbers through this package's `case_number`.

`contract` is what `drivable serve caselaw` serves: its lifespan (`open_database`) opens the
database (building it on the first start, a few seconds) once per server start, and every handler
takes it by a parameter annotated `Handle`. A test opens it on its own database:
`async with contract.started(handle=Handle(path)):`.

The package keeps its parts apart, as a server to copy: `models` (what each tool reads and
returns), `domain` (the database handle, rows, refusals that name the next call), `store` (the
SQL), `courts`, `data` and `case_number` (the vocabulary, the bundled decisions, the server's own
kind), this module (the contract, its lifespan and the three reads), `analysis` (the long-running
tally) and `resources` (the resources and prompts). The package's __init__ imports the last two,
so that any import of the server declares all of it, in the order tools are listed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from drivable.contract import READ_ONLY, Call, Contract, Repair, Summary, ToolError
from drivable.contract.envelope import Issue
from drivable.servers.caselaw.courts import (
    COURTS,
)
from drivable.servers.caselaw.domain import (
    SEARCH_FILTERS,
    Handle,
    court_for_query,
    decision_detail,
    decision_not_found,
    decision_row,
    reads_any_word,
    search_filters,
)
from drivable.servers.caselaw.models import (
    CURSOR_LIFETIME_S,
    NAME,
    VERSION,
    CourtRow,
    CourtsInput,
    CourtsOutput,
    GetInput,
    GetOutput,
    SearchInput,
    SearchOutput,
)
from drivable.servers.caselaw.store import Filters

SUMMARY = Summary(
    text=(
        "Search and read court decisions of Czech, German, Austrian, French, Polish and European "
        "courts. Use search_decisions to find decisions, get_decision to read one by decision_id "
        "or case number, and list_courts for the exact court names the court filter accepts. "
        "Every tool is read-only. Texts stay in the court's language; the server does not "
        "translate them."
    ),
    does=[
        "full-text search of decisions (case and diacritics ignored) with filters: court, "
        "date range, subject, text language (locale), statute applied (ELI)",
        "read one decision by decision_id or case number in any spelling",
        "list the courts and the exact values the court filter accepts",
        "serve each decision's text as chunked resources: caselaw://decisions/{decision_id}",
    ],
    does_not=[
        "change, add or delete decisions (imports run offline: drivable import-decisions)",
        "translate texts, give legal advice, or judge how a court would decide",
        "fetch decisions from court websites at run time",
    ],
    prerequisites={
        "credentials": "none",
        "data": "a local SQLite database, built on first start (a few seconds)",
        "cursor_lifetime_seconds": CURSOR_LIFETIME_S,
    },
)


READ_SCOPE = "caselaw:read"


@asynccontextmanager
async def open_database(contract: Contract, handle: Handle | None = None) -> AsyncIterator[Handle]:
    """The decisions the handlers read: `handle`'s (a test's own database), else the default
    one, built before the first request rather than during it."""
    opened = handle or Handle()
    opened.store.count()
    yield opened


contract = Contract(
    NAME, version=VERSION, title="Case law", summary=SUMMARY, lifespan=open_database
)


def filters_in(kept: Mapping[str, Any]) -> Filters:
    """The filters an empty page's relaxation keeps (its query's words aside)."""
    return Filters(**{k: v for k, v in kept.items() if k != "query"})


@contract.tool(
    name="search_decisions",
    title="Search court decisions",
    description=(
        "Find court decisions by words of their text and optional filters. Use it for "
        "decisions on a question, of a court or period, or applying a statute. Each result "
        "has its court, date, headline and a snippet: enough to show it. The next page is "
        "the same call with cursor set to next_cursor. An empty page caused by filters names "
        'the next call to make. Example: {"query": "<the user\'s words>"}.'
    ),
    more=(
        "Results contain every query word; when no decision has them all, any word counts "
        "(a note says so). Case, diacritics and word endings do not matter. Without query, "
        "newest first. court takes a name, English name or abbreviation (NS, Supreme Court); "
        "one naming no court is dropped with a warning. A bare year in date_from/date_to "
        "covers the year. An empty page caused by filters carries no_hits_filtered naming "
        f"values that would match. Cursors last {CURSOR_LIFETIME_S // 60} minutes and belong "
        "to one query. detail never changes the rows."
    ),
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["invalid_cursor", "cursor_expired"],
)
async def search_decisions(args: SearchInput, call: Call, db: Handle) -> SearchOutput:
    store, pager = db.store, db.pager
    args = court_for_query(args, call)
    if args.date_from and args.date_to and args.date_from > args.date_to:
        swapped = args.model_dump(
            mode="json", exclude_none=True, exclude_defaults=True, exclude={"cursor"}
        )
        swapped["date_from"], swapped["date_to"] = swapped["date_to"], swapped["date_from"]
        raise ToolError(
            "invalid_arguments",
            "date_from is after date_to, so no day is in the range.",
            hint="Swap date_from and date_to (the call in `repair`) and call search_decisions again.",
            issues=[
                Issue(
                    "date_from",
                    "out_of_range",
                    f"date_from {args.date_from.isoformat()} is after date_to "
                    f"{args.date_to.isoformat()}.",
                    received=args.date_from.isoformat(),
                    expected=f"a day on or before {args.date_to.isoformat()}",
                    has_received=True,
                ),
                # the swap changes both bounds (and keeps both days): it names both
                Issue(
                    "date_to",
                    "out_of_range",
                    f"date_to {args.date_to.isoformat()} is before date_from "
                    f"{args.date_from.isoformat()}.",
                    received=args.date_to.isoformat(),
                    expected=f"a day on or after {args.date_from.isoformat()}",
                    has_received=True,
                ),
            ],
            repair=Repair("search_decisions", swapped, "swap_the_dates"),
        )
    start = pager.offset("search_decisions", args)
    filters = search_filters(args)
    any_word = reads_any_word(store, args.query)
    if any_word:
        call.note(
            "query: No decision contains all these words, so the results contain any of "
            "them, the most matching first."
        )
    rows, total = store.search(args.query, filters, start, args.limit, any_word=any_word)
    if not rows and start == 0:
        # the same search without the one filter whose removal finds fewest decisions
        await call.relax(
            args,
            SEARCH_FILTERS,
            count=lambda kept: store.matching(
                kept.get("query"), filters_in(kept), any_word=any_word
            ),
            facet=lambda name, kept: store.values(
                kept.get("query"), filters_in(kept), name, any_word=any_word
            ),
            noun="decision",
            query="query",
        )
    more = start + len(rows) < total
    page = pager.page("search_decisions", args, start, len(rows), more)
    return SearchOutput(
        results=[decision_row(r, args.detail) for r in rows],
        total=total,
        has_more=page.has_more,
        next_cursor=page.next_cursor,
    )


@contract.tool(
    name="get_decision",
    title="Get a court decision",
    description=(
        "Read one decision in full: metadata, summary, statutes and its text in chunks. Use "
        "it only when the user wants one decision itself, with a decision_id a "
        "search_decisions result carries or a case number the user cites, in any spelling; "
        "send one of the two. If none has it, the error is not_found with the search to run. "
        'Example: {"decision_id": "<decision_id of a search result>"}.'
    ),
    more=(
        "Case numbers are read in any spelling ('21 Cdo 1096/2021', '21cdo1096/2021', "
        "'I. ÚS 23/23'); both given must name the same decision. detail=summary lists the "
        "chunks (ids, resource URIs) without text; full adds the text. A case number several "
        "courts use is asked about."
    ),
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["not_found"],
)
async def get_decision(args: GetInput, call: Call, db: Handle) -> GetOutput:
    store = db.store
    by_number: dict[str, str] | None = None
    if args.case_number is not None:
        named = store.by_case_number(args.case_number)
        if len(named) > 1:
            readings = [n["decision_id"] for n in named]
            which = "; ".join(
                f"{n['decision_id']} ({n['court']}, {n['case_number']})" for n in named
            )
            raise ToolError(
                "invalid_arguments",
                f"The case number {args.case_number!r} names several decisions.",
                hint=f"Call get_decision with the decision_id you mean: {which}.",
                issues=[
                    Issue(
                        "case_number",
                        "ambiguous_value",
                        f"Several courts use this case number: {which}.",
                        received=args.case_number,
                        expected="one decision",
                        readings=readings,
                        has_received=True,
                    )
                ],
            )
        if not named:
            if args.decision_id is None:
                raise decision_not_found(
                    f"case number {args.case_number!r}", args.case_number, args.detail
                )
        else:
            by_number = named[0]
            if by_number["case_number"] != args.case_number:
                call.note(
                    f"case_number: Read {args.case_number!r} as "
                    f"{by_number['case_number']} ({by_number['court']})."
                )
    if args.decision_id is not None:
        if by_number is not None and by_number["decision_id"] != args.decision_id:
            # two references to two decisions: asked, never guessed (a repair that kept one
            # dropped the other, which the caller had sent as much)
            cited = by_number["decision_id"]
            raise ToolError(
                "invalid_arguments",
                "decision_id and case_number name two different decisions.",
                hint=(
                    f"Call get_decision with one of them: decision_id {cited} (the decision "
                    f"case number {by_number['case_number']} names) or decision_id "
                    f"{args.decision_id}."
                ),
                issues=[
                    Issue(
                        "decision_id",
                        "ambiguous_value",
                        f"{args.decision_id} and case number {args.case_number!r} ({cited}) "
                        "are two decisions; send one.",
                        received=args.decision_id,
                        expected="one decision",
                        readings=[cited, args.decision_id],
                        has_received=True,
                    ),
                    Issue(
                        "case_number",
                        "invalid_value",
                        f"{args.case_number!r} is decision {cited}, not {args.decision_id}.",
                        received=args.case_number,
                        has_received=True,
                    ),
                ],
            )
        found = store.get(args.decision_id)
        if found is None:
            raise decision_not_found(
                f"id {args.decision_id!r}", args.case_number or "", args.detail
            )
    elif by_number is not None:
        found = store.get(by_number["decision_id"])
    else:
        raise ToolError(
            "invalid_arguments",
            "get_decision needs a decision_id or a case_number.",
            hint=(
                "Send decision_id as search_decisions returned it, or case_number as the court "
                "writes it; search_decisions finds both."
            ),
            issues=[
                Issue(
                    "decision_id",
                    "missing_property",
                    "Send decision_id (e.g. from search_decisions) or case_number.",
                )
            ],
        )
    if found is None:  # the row a case number named went away between two reads
        raise decision_not_found(
            f"case number {args.case_number!r}", args.case_number or "", args.detail
        )
    return GetOutput(decision=decision_detail(found, args.detail))


@contract.tool(
    name="list_courts",
    title="List the courts",
    description=(
        "List the courts that can be searched, with the court value search_decisions takes. "
        "Use it when unsure how to name a court; country narrows the list (European courts "
        'are always included). Example: {"country": "<two-letter country code>"}.'
    ),
    more=(
        "Rows carry English names, abbreviations and decision counts; detail=full adds "
        "aliases, a case-number example, subjects and dates."
    ),
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["invalid_cursor", "cursor_expired"],
)
async def list_courts(args: CourtsInput, call: Call, db: Handle) -> CourtsOutput:
    start = db.pager.offset("list_courts", args)
    counts = db.store.courts()
    full = args.detail == "full"
    chosen = [c for c in COURTS if not args.country or c.country in (args.country, "EU", "COE")]
    rows = []
    for court in chosen[start : start + args.limit]:
        number, first, last = counts.get(court.value, (0, None, None))
        rows.append(
            CourtRow(
                court=court.value,
                english=court.english,
                abbreviations=list(court.abbreviations),
                country=court.country,
                decisions=number,
                aliases=list(court.aliases) if full else None,
                locale=court.locale if full else None,
                level=court.level if full else None,
                case_number_example=court.example if full else None,
                subjects=list(court.subjects) if full else None,
                first_decided_on=first if full else None,
                last_decided_on=last if full else None,
            )
        )
    more = start + len(rows) < len(chosen)
    page = db.pager.page("list_courts", args, start, len(rows), more)
    return CourtsOutput(courts=rows, has_more=page.has_more, next_cursor=page.next_cursor)


__all__ = ["READ_SCOPE", "Handle", "contract", "open_database"]
