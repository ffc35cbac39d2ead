"""The caselaw server's models: what each tool reads and returns.

Every input model is closed (`KindModel`): courts read through their vocabulary, ids through the
identifier kind, case numbers through this package's own kind.
"""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from drivable.contract.output import Output
from drivable.contract.paging import Detail, PageInfo
from drivable.kinds import Kind, KindModel
from drivable.servers.caselaw.case_number import CaseNumberField
from drivable.servers.caselaw.courts import COURT_VOCABULARY
from drivable.servers.caselaw.data import Subject

NAME = "caselaw"
VERSION = "1.0.0"
ID_PREFIX = "dec_"
EXAMPLE_QUERY = "náhrada škody"
CURSOR_LIFETIME_S = 3600

# A court in any language, read through the vocabulary (official name, English name, abbreviation).
# Listed as a plain string: the 37 names as an enum were a third of tools/list, and a model writes
# a court in its own words anyway (shown only the native names, it picked the wrong one); the
# reader maps what it writes and says so in `notes`, and list_courts names every court.
CourtValue = Annotated[
    str, Kind("vocabulary", vocabulary=COURT_VOCABULARY), WithJsonSchema({"type": "string"})
]
DecisionId = Annotated[  # = IdOf(ID_PREFIX, lookup=("search_decisions", "query")), as a type
    str, Kind("identifier", prefix=ID_PREFIX, lookup=("search_decisions", "query"))
]


class DecisionRow(Output):
    """One decision; snippet comes with a query, the fields after it with detail=full."""

    decision_id: str = Field(description="Pass to get_decision.")
    court: str
    case_number: str
    decided_on: str
    subject: str
    headline: str
    uri: str = Field(description="Resource: the index of the decision's text chunks.")
    snippet: str | SkipJsonSchema[None] = Field(None, description="Query words marked «so».")
    court_english: str | SkipJsonSchema[None] = None
    ecli: str | SkipJsonSchema[None] = None
    decision_type: str | SkipJsonSchema[None] = None
    locale: str | SkipJsonSchema[None] = None
    summary: str | SkipJsonSchema[None] = None
    statutes: list[str] | SkipJsonSchema[None] = Field(None, description="ELI URIs applied.")


class SearchOutput(PageInfo):
    results: list[DecisionRow]
    total: int = Field(description="Decisions matching the query and every filter applied.")


class Statute(Output):
    eli: str
    title: str | SkipJsonSchema[None] = None


class Chunk(Output):
    """A part of the text; `text` comes with detail=full, `uri` reads it alone."""

    chunk_id: str
    heading: str
    chars: int
    uri: str
    text: str | SkipJsonSchema[None] = None


class DecisionDetail(Output):
    decision_id: str
    court: str
    court_english: str
    case_number: str
    ecli: str | SkipJsonSchema[None] = None
    decided_on: str
    decision_type: str
    subject: str
    locale: str
    headline: str
    summary: str
    statutes: list[Statute]
    uri: str
    chunks: list[Chunk]


class GetOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision: DecisionDetail


class CourtRow(Output):
    """A court; the fields after `decisions` come with detail=full."""

    court: str = Field(description="The exact value search_decisions' `court` takes.")
    english: str
    abbreviations: list[str]
    country: str = Field(description="ISO 3166-1 code; EU, or COE for the ECtHR.")
    decisions: int
    aliases: list[str] | SkipJsonSchema[None] = None
    locale: str | SkipJsonSchema[None] = None
    level: str | SkipJsonSchema[None] = None
    case_number_example: str | SkipJsonSchema[None] = None
    subjects: list[str] | SkipJsonSchema[None] = None
    first_decided_on: str | SkipJsonSchema[None] = None
    last_decided_on: str | SkipJsonSchema[None] = None


class CourtsOutput(PageInfo):
    courts: list[CourtRow]


# -- inputs ------------------------------------------------------------------------------------


class SearchInput(KindModel):
    query: str | None = Field(
        None,
        max_length=300,
        description="Words the decision contains, in its language. Omit for the newest first.",
    )
    court: CourtValue | None = Field(
        None,
        description=(
            "Only this court, in any language: name, English name or abbreviation, e.g. "
            "'Supreme Court of the Czech Republic' (list_courts names them)."
        ),
    )
    date_from: datetime.date | None = Field(
        None,
        description=(
            "Decided on or after this day (or year). A date may be sent as the user wrote it; "
            "one that reads two ways (03/04/2025) is asked about."
        ),
    )
    date_to: datetime.date | None = Field(
        None, description="Decided on or before this day (or year), written like date_from."
    )
    subject: Subject | None = Field(None, description="Only this subject area.")
    locale: str | None = Field(None, description="Only texts in this language; 'cs' covers cs-CZ.")
    eli: str | None = Field(
        None, description="Only decisions applying this statute (ELI URI or citation)."
    )
    detail: Detail = Field(
        "summary",
        description="full adds ECLI, locale, type, summary and statutes to each row.",
    )
    limit: int = Field(10, ge=1, le=50, description="Page size.")
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )


class GetInput(KindModel):
    decision_id: DecisionId | None = Field(
        None, description="The decision_id a search_decisions result carries."
    )
    case_number: CaseNumberField | None = Field(
        None,
        description="The court's case number as the user cited it, in any spelling.",
    )
    detail: Detail = Field("summary", description="full adds the text of each chunk.")


class CourtsInput(KindModel):
    # groups: "EU" reads as the group, which list_courts' filter matches as the Union's courts
    country: Annotated[str | None, Kind("country", groups=True)] = Field(
        None,
        description="Only courts of this country (name or ISO code).",
    )
    detail: Detail = Field(
        "summary", description="full adds aliases, case-number format, subjects and date range."
    )
    limit: int = Field(50, ge=1, le=50, description="Page size.")
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
