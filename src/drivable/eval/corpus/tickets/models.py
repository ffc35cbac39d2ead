"""What each tracker tool reads and returns.

Inputs are closed `KindModel`s: projects, statuses, priorities and people read through their
vocabularies (vocab.py; an address however it is written, a name, "unassigned"), labels as a
list of the tracker's labels ("bug, ui" is two), dates through the date kind with the tracker's
clock ("yesterday" is a day before TODAY).
"""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from drivable.contract import Output
from drivable.contract.durable import CONFIRM_TOKEN, DRY_RUN, ConfirmToken
from drivable.contract.paging import PageInfo
from drivable.eval.corpus.tickets.data import LABELS, TODAY
from drivable.eval.corpus.tickets.vocab import (
    PERSON_VOCABULARY,
    PRIORITY_VOCABULARY,
    PROJECT_VOCABULARY,
    STATUS_VOCABULARY,
)
from drivable.kinds import Kind, KindModel

NAME = "tickets"
VERSION = "1.0.0"
PAGE_MAX = 50


def tracker_today() -> datetime.date:
    """The tracker's clock: relative days ("yesterday", "3 days ago") count from here."""
    return TODAY


# Ticket ids are a project key and a number ("MOB-12"): no fixed prefix to declare. Spelled out
# as IdOf("", lookup=...) is, so that it is a type (IdOf's return is not one to mypy).
TicketId = Annotated[str, Kind("identifier", prefix="", lookup=("search_tickets", "query"))]
Project = Annotated[str, Kind("vocabulary", vocabulary=PROJECT_VOCABULARY)]
Status = Annotated[str, Kind("vocabulary", vocabulary=STATUS_VOCABULARY)]
Priority = Annotated[str, Kind("vocabulary", vocabulary=PRIORITY_VOCABULARY)]
Person = Annotated[str, Kind("vocabulary", vocabulary=PERSON_VOCABULARY)]
Labels = Annotated[list[str], Kind("string_list", choices=LABELS)]
From = Annotated[datetime.date, Kind("date", bound="from", clock=tracker_today)]
To = Annotated[datetime.date, Kind("date", bound="to", clock=tracker_today)]


class SearchInput(KindModel):
    query: str | None = Field(
        None, max_length=200, description="Words in the title or description, in any case."
    )
    project: Project | None = Field(None, description="Only this project: key or name.")
    status: Status | None = Field(
        None, description="Only this status: open, in_progress, in_review or closed."
    )
    priority: Priority | None = Field(
        None, description="Only this priority: urgent (P1), high (P2), normal (P3), low (P4)."
    )
    assignee: Person | None = Field(
        None,
        description="Only tickets assigned to this person (e-mail or name); 'unassigned' for "
        "tickets nobody has.",
    )
    labels: Labels | None = Field(None, description="Only tickets carrying every label given.")
    created_from: From | None = Field(None, description="Created on or after this day.")
    created_to: To | None = Field(None, description="Created on or before this day.")
    updated_from: From | None = Field(None, description="Last changed on or after this day.")
    updated_to: To | None = Field(None, description="Last changed on or before this day.")
    limit: int = Field(20, ge=1, le=PAGE_MAX, description="Tickets per page.")
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )


class GetInput(KindModel):
    ticket_id: TicketId = Field(description="The ticket's id, e.g. as search_tickets returns it.")


class CreateInput(KindModel):
    project: Project = Field(description="The project's key or name.")
    title: str = Field(min_length=3, max_length=200, description="One line saying what is wrong.")
    # Not `str = ""`: the text kind advertises minLength 1, which the default itself breaks, and
    # an idempotency_mismatch repair that echoed the default did not validate.
    description: str | None = Field(None, max_length=5000, description="Details, steps, context.")
    priority: Priority = Field(
        "normal", description="urgent (P1), high (P2), normal (P3), low (P4)."
    )
    labels: Labels = Field(default_factory=list, description="Labels from the tracker's list.")
    assignee: Person | None = Field(None, description="Who works on it (e-mail or name).")


class UpdateInput(KindModel):
    ticket_id: TicketId = Field(description="The ticket's id.")
    # Needed, but optional in the schema: a missing required property is refused by the runtime
    # with no call to make, where the handler's refusal names get_ticket, which shows it.
    expected_version: int | None = Field(
        None,
        ge=1,
        description="The version search_tickets or get_ticket returned for the ticket; needed.",
    )
    status: Status | None = Field(
        None, description="open, in_progress, in_review, or closed to close the ticket."
    )
    assignee: Person | None = Field(
        None, description="The new assignee (e-mail or name); 'unassigned' to clear it."
    )
    priority: Priority | None = Field(None, description="urgent (P1), high (P2), normal, low.")


class CommentInput(KindModel):
    ticket_id: TicketId = Field(description="The ticket's id.")
    body: str = Field(min_length=1, max_length=5000, description="The comment's text.")


class DeleteInput(KindModel):
    ticket_id: TicketId = Field(description="The ticket's id.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class TicketRow(Output):
    ticket_id: str = Field(description="Pass to get_ticket, update_ticket, add_comment.")
    project: str
    title: str
    status: str
    priority: str
    assignee: str | SkipJsonSchema[None] = Field(None, description="E-mail; absent: nobody.")
    assignee_name: str | SkipJsonSchema[None] = None
    labels: list[str]
    created_at: str
    updated_at: str
    version: int = Field(description="update_ticket's expected_version.")
    comments: int = Field(description="How many comments the ticket has.")


class SearchOutput(PageInfo):
    results: list[TicketRow]
    total: int = Field(description="Tickets matching every filter.")


class CommentRow(Output):
    comment_id: str
    author: str
    author_name: str
    body: str
    created_at: str


class TicketDetail(Output):
    ticket_id: str
    project: str
    project_name: str
    title: str
    description: str
    status: str
    priority: str
    assignee: str | SkipJsonSchema[None] = None
    assignee_name: str | SkipJsonSchema[None] = None
    reporter: str
    reporter_name: str
    labels: list[str]
    created_at: str
    updated_at: str
    version: int = Field(description="update_ticket's expected_version.")
    comments: list[CommentRow]


class TicketOutput(Output):
    ticket: TicketDetail


class CommentOutput(Output):
    ticket_id: str
    comment: CommentRow
    comments: int = Field(description="How many comments the ticket has now.")


class DeleteOutput(Output):
    status: str = Field(description="would_delete (dry run), deleted or already_deleted.")
    ticket_id: str
    summary: str
