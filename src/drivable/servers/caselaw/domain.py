"""What caselaw's tools share: the database a contract serves (`Handle`), resource URIs, rows, the
filters an empty search is relaxed by, and refusals that name the next call (a decision not found).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from drivable.contract import Call, Issue, Repair, ToolError
from drivable.contract.paging import Pager
from drivable.contract.relax import Filter
from drivable.kinds import Reading, jsonable, read
from drivable.servers.caselaw.courts import BY_VALUE, COURT_VOCABULARY
from drivable.servers.caselaw.models import (
    CURSOR_LIFETIME_S,
    Chunk,
    DecisionDetail,
    DecisionRow,
    Statute,
)
from drivable.servers.caselaw.statutes import STATUTES
from drivable.servers.caselaw.store import Filters, Store, chunk_text, query_words

T = TypeVar("T", bound=BaseModel)


class Handle:
    """The database a contract serves, opened (and built if missing) on first use."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._store: Store | None = None
        self._pager: Pager | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store.open(self._path)
        return self._store

    @property
    def pager(self) -> Pager:
        if self._pager is None:
            self._pager = Pager(secret=self.store.cursor_secret(), lifetime_s=CURSOR_LIFETIME_S)
        return self._pager


def decision_uri(decision_id: str) -> str:
    return f"caselaw://decisions/{decision_id}"


def chunk_uri(decision_id: str, chunk_id: str) -> str:
    return f"caselaw://decisions/{decision_id}/chunks/{chunk_id}"


def chunk_ids(text: str) -> list[tuple[str, str, str]]:
    """(chunk_id, heading, body) of a text; ids are c1, c2, ... in order, stable for the text."""
    return [(f"c{i}", heading, body) for i, (heading, body) in enumerate(chunk_text(text), 1)]


def decision_row(row: dict[str, Any], detail: str) -> DecisionRow:
    full = detail == "full"
    court = BY_VALUE.get(row["court"])
    snippet = row.get("snippet")
    return DecisionRow(
        decision_id=row["decision_id"],
        court=row["court"],
        case_number=row["case_number"],
        decided_on=row["decided_on"],
        subject=row["subject"],
        headline=row["headline"],
        uri=decision_uri(row["decision_id"]),
        snippet=" ".join(snippet.split()) if snippet else None,
        court_english=(court.english if court else row["court"]) if full else None,
        ecli=row["ecli"] if full else None,
        decision_type=row["decision_type"] if full else None,
        locale=row["locale"] if full else None,
        summary=row["summary"] if full else None,
        statutes=list(row["statutes"]) if full else None,
    )


# search_decisions' filters, for the minimal relaxation of an empty page (`Call.relax`).
SEARCH_FILTERS = (
    Filter("court"),
    Filter("date_from", "lower"),
    Filter("date_to", "upper"),
    Filter("subject"),
    Filter("locale"),
    Filter("eli"),
)


def search_filters(args: Any) -> Filters:
    """The store's filters from a search's arguments: search_decisions and summarize_decisions
    filter alike, and a filter the tool does not declare (summarize has no locale) stays unset."""
    date_from, date_to = getattr(args, "date_from", None), getattr(args, "date_to", None)
    return Filters(
        court=getattr(args, "court", None),
        date_from=date_from.isoformat() if date_from else None,
        date_to=date_to.isoformat() if date_to else None,
        subject=getattr(args, "subject", None),
        locale=getattr(args, "locale", None),
        eli=getattr(args, "eli", None),
    )


# A day written after a court's name in `query`: "Constitutional Court since 01/02/2021".
_DAY_WORDS = {
    "date_from": ("since", "from", "after", "od", "seit", "ab", "depuis"),
    "date_to": ("until", "till", "before", "to", "do", "bis", "avant"),
}
_DAY_WORD = re.compile(
    r"\s+(" + "|".join(w for ws in _DAY_WORDS.values() for w in ws) + r")\s+", re.IGNORECASE
)
_FIELD_OF_WORD = {w: field for field, ws in _DAY_WORDS.items() for w in ws}


def _days_after(query: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The words of `query` before its first day phrase, and each day phrase after them as
    (field, phrase, day): "Ústavní soud from 1. 2. 2021 until 2022" is "Ústavní soud" with
    date_from "1. 2. 2021" and date_to "2022"."""
    head, *rest = _DAY_WORD.split(query.strip())
    days = [
        (_FIELD_OF_WORD[word.lower()], f"{word} {day.strip()}", day.strip())
        for word, day in zip(rest[::2], rest[1::2], strict=True)
    ]
    return head.strip(), days


def court_for_query(args: T, call: Call) -> T:
    """`args` with a query that is only a court's name, and the days after it, read as that court
    and those days (when no court is given): a model put "Constitutional Court" into `query`,
    matched the words in other courts' names, and read those decisions to its turn cap; another
    sent the whole request, "Constitutional Court since 01/02/2021", as the query. The notes say
    so, and how to search the words instead. A day that reads two ways is asked about, as it is
    in date_from. A pure function of the arguments, so every page of one search reads alike."""
    query = getattr(args, "query", None)
    if not query or getattr(args, "court", None) is not None:
        return args
    head, days = _days_after(query)
    court = COURT_VOCABULARY.named(head)
    if court is None:
        return args
    update: dict[str, Any] = {"query": None, "court": court}
    notes = [
        f"court: Read {head!r}, sent as query, as {court}. It is the name of a court; to search "
        "for words in the texts of that court, send them as query with court set."
    ]
    for field, phrase, day in days:
        if field not in type(args).model_fields or getattr(args, field) is not None:
            continue  # a day the call sets itself wins over the one in the query
        reading = read("date", day, bound="from" if field == "date_from" else "to")
        if reading.outcome == "ask":
            raise _ask_for_day(call.tool, field, phrase, reading, court)
        if reading.outcome != "value":
            return args  # not a day after all: the query is words
        update[field] = reading.value
        notes.append(f"{field}: Read {phrase!r}, sent as query, as {reading.value.isoformat()}.")
    # the notes have the kinds' shape ("<name>: Read <sent> as <value>."): a reader of notes, the
    # eval's scorer among them, learns from them which court and days the search was of
    for note in notes:
        call.note(note)
    return args.model_copy(update=update)


def _ask_for_day(tool: str, field: str, phrase: str, reading: Reading, court: str) -> ToolError:
    return ToolError(
        "invalid_arguments",
        f"query names the court {court} and a day that reads two ways ({phrase!r}).",
        hint=(
            f"{reading.hint} Send {tool} with court {court!r}, {field} set to the "
            "day meant (one of `readings`), and without query."
        ),
        issues=[
            Issue(
                field,
                reading.code,
                reading.hint,
                received=reading.received,
                expected=reading.expected,
                readings=[jsonable(r) for r in reading.readings],
                has_received=True,
            )
        ],
    )


def reads_any_word(store: Store, query: str | None) -> bool:
    """A query whose words never occur together anywhere is read as "any of these words" (a
    model's long question would otherwise find nothing). The choice depends on the query alone,
    so every page of one query makes the same one."""
    return bool(query and len(query_words(query)) > 1 and not store.matches_every_word(query))


def statute_of(eli: str) -> Statute:
    return Statute(eli=eli, title=STATUTES.get(eli))


def decision_detail(found: dict[str, Any], detail: str) -> DecisionDetail:
    court = BY_VALUE.get(found["court"])
    decision_id = found["decision_id"]
    chunks = [
        Chunk(
            chunk_id=chunk_id,
            heading=heading,
            chars=len(body),
            uri=chunk_uri(decision_id, chunk_id),
            text=body if detail == "full" else None,
        )
        for chunk_id, heading, body in chunk_ids(found["text"])
    ]
    return DecisionDetail(
        decision_id=decision_id,
        court=found["court"],
        court_english=court.english if court else found["court"],
        case_number=found["case_number"],
        ecli=found["ecli"],
        decided_on=found["decided_on"],
        decision_type=found["decision_type"],
        subject=found["subject"],
        locale=found["locale"],
        headline=found["headline"],
        summary=found["summary"],
        statutes=[statute_of(e) for e in found["statutes"]],
        uri=decision_uri(decision_id),
        chunks=chunks,
    )


def decision_not_found(what: str, query: str, detail: str = "summary") -> ToolError:
    """Not found: the search to make, with the case number as its words and the detail asked
    for (an argument search_decisions takes too, so the next step keeps it)."""
    arguments: dict[str, Any] = {"query": query} if query else {}
    if detail != "summary":
        arguments["detail"] = detail
    return ToolError(
        "not_found",
        f"No decision has the {what}.",
        hint=(
            "Find the decision with search_decisions (words of its subject, its court, a date "
            "range) and pass a decision_id it returns to get_decision."
        ),
        repair=Repair("search_decisions", arguments, "search_first"),
    )
