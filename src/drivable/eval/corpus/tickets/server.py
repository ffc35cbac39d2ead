"""The tracker on drivable: search, read, create, update, comment on and delete tickets.

Six tools over four projects' tickets: search_tickets and get_ticket read; create_ticket and
add_comment are keyed (a resend with the same idempotency_key does not make a second one);
update_ticket changes status, assignee or priority under expected_version; delete_ticket takes a
dry run and its confirm token. Every write goes through the call's effect transaction, so a
ticket change, its receipt and a spent token commit together.

    python -m drivable.eval.surfaces tickets        (or: drivable serve drivable.eval.corpus.tickets.server:serve)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.contract import (
    CREATE,
    DELETE,
    READ_ONLY,
    UPDATE,
    Call,
    Contract,
    Issue,
    Repair,
    Summary,
    ToolError,
)
from drivable.contract.paging import Pager
from drivable.contract.relax import Filter
from drivable.effects import Transaction, Updated, VersionConflict
from drivable.eval.corpus.tickets.data import API_USER, NAMES, PROJECTS, TODAY, now_stamp
from drivable.eval.corpus.tickets.models import (
    NAME,
    VERSION,
    CommentInput,
    CommentOutput,
    CommentRow,
    CreateInput,
    DeleteInput,
    DeleteOutput,
    GetInput,
    SearchInput,
    SearchOutput,
    TicketDetail,
    TicketOutput,
    TicketRow,
    UpdateInput,
)
from drivable.eval.corpus.tickets.store import (
    Filters,
    TicketRecord,
    Tracker,
    labels_cell,
    searchable,
)
from drivable.eval.corpus.tickets.vocab import UNASSIGNED

_PROJECT_NAMES = {p.key: p.name for p in PROJECTS}
# search_tickets' filters, for the minimal relaxation of an empty page (`Call.relax`); the words
# of the query are what was asked, not a filter.
FILTERS = (
    Filter("project"),
    Filter("status"),
    Filter("priority"),
    Filter("assignee"),
    Filter("labels"),
    Filter("created_from", "lower"),
    Filter("created_to", "upper"),
    Filter("updated_from", "lower"),
    Filter("updated_to", "upper"),
)
_DAY_COLUMNS = {"created": "created_at", "updated": "updated_at"}


def _filters(query: str | None, values: Mapping[str, Any]) -> Filters:
    """A search's filters from the values read (canonical JSON: days as YYYY-MM-DD)."""
    return Filters(
        query=query,
        project=values.get("project"),
        status=values.get("status"),
        priority=values.get("priority"),
        assignee=values.get("assignee"),
        labels=tuple(values.get("labels") or ()),
        created_from=values.get("created_from"),
        created_to=values.get("created_to"),
        updated_from=values.get("updated_from"),
        updated_to=values.get("updated_to"),
    )


def _person(value: str | None) -> str | None:
    """An assignee as stored: an e-mail, or None for "unassigned"."""
    return None if value in (None, UNASSIGNED) else value


def _row(record: TicketRecord, comments: int) -> TicketRow:
    return TicketRow(
        ticket_id=record.ticket_id,
        project=record.project,
        title=record.title,
        status=record.status,
        priority=record.priority,
        assignee=record.assignee,
        assignee_name=NAMES.get(record.assignee or ""),
        labels=list(record.labels),
        created_at=record.created_at,
        updated_at=record.updated_at,
        version=record.version,
        comments=comments,
    )


async def _facet(
    tracker: Tracker, tx: Transaction, within: Filters, name: str
) -> list[tuple[str, int]]:
    """The values of one filter among the tickets `within` finds: a day bound's days."""
    column = _DAY_COLUMNS.get(name.split("_")[0])
    if column is not None:
        return await tracker.days(tx, within, column)
    return await tracker.values(tx, within, name)


async def _detail(tracker: Tracker, tx: Transaction, record: TicketRecord) -> TicketDetail:
    comments = await tracker.comments(tx, record.ticket_id)
    return TicketDetail(
        ticket_id=record.ticket_id,
        project=record.project,
        project_name=_PROJECT_NAMES[record.project],
        title=record.title,
        description=record.description,
        status=record.status,
        priority=record.priority,
        assignee=record.assignee,
        assignee_name=NAMES.get(record.assignee or ""),
        reporter=record.reporter,
        reporter_name=NAMES.get(record.reporter, record.reporter),
        labels=list(record.labels),
        created_at=record.created_at,
        updated_at=record.updated_at,
        version=record.version,
        comments=[
            CommentRow(
                comment_id=cid,
                author=author,
                author_name=NAMES.get(author, author),
                body=body,
                created_at=created,
            )
            for cid, author, body, created in comments
        ],
    )


async def _not_found(tracker: Tracker, tx: Transaction, ticket_id: str) -> ToolError:
    """No live ticket has the id: say whether it was deleted, and search its project."""
    gone = await tracker.deleted(tx, ticket_id)
    key = ticket_id.split("-", 1)[0].upper()
    search: dict[str, Any] = {"project": key} if key in _PROJECT_NAMES else {}
    where = f"project {key}'s tickets" if search else "the tickets"
    if gone is not None:
        message = f"Ticket {gone[0]} was deleted on {gone[1][:10]}."
    else:
        message = f"No ticket has the id {ticket_id}."
    return ToolError(
        "not_found",
        message,
        hint=f"Find the ticket with search_tickets (the call in `repair` lists {where}) and use "
        "a ticket_id it returns.",
        repair=Repair("search_tickets", search, "find_the_ticket_first"),
    )


def make_contract(tracker: Tracker) -> Contract:
    """The tracker's contract on a prepared `Tracker` (`await tracker.prepare()` first)."""
    if not tracker.secret:
        raise RuntimeError("prepare the tracker before building the contract")
    contract = Contract(
        NAME,
        version=VERSION,
        title="Tickets",
        summary=Summary(
            text=(
                "An issue tracker for four projects: MOB (Mobile App), WEB (Web Shop), API "
                "(Public API) and OPS (Infrastructure). Find tickets with search_tickets first; "
                f"today is {TODAY.isoformat()} by the tracker's clock."
            ),
            does=[
                "search tickets by words, project, status, priority, assignee, labels and dates",
                "read a ticket with its comments",
                "create a ticket",
                "change a ticket's status (close, reopen), assignee or priority",
                "comment on a ticket",
                "delete a ticket, after a dry run",
            ],
            does_not=[
                "create projects, people or labels",
                "edit or delete comments",
                "change a ticket's title or description",
            ],
        ),
    )
    contract.use_effects(tracker.store, tracker.secret)
    pager = Pager(secret=tracker.secret)

    @contract.tool(
        effects=READ_ONLY,
        errors=["invalid_cursor", "cursor_expired"],
        examples=[{"project": "<project key>", "status": "<status>", "priority": "<priority>"}],
    )
    async def search_tickets(args: SearchInput, call: Call) -> SearchOutput:
        """Find tickets by words, project, status, priority, assignee, labels and created or
        updated dates, most recently changed first, a page at a time. Use it first: it gives the
        ticket_id and version the other tools take. Values may be written as people say them
        ('P1', 'in progress', 'Jana', 'bug, ui', '1.10.2026', 'yesterday'); today is
        2026-11-16. An empty page under filters names the filter that emptied it."""
        filters = _filters(args.query, args.model_dump(mode="json"))
        start = pager.offset(call, args)
        async with tracker.using(None) as tx:
            records, total = await tracker.find(tx, filters, start, args.limit)
            counts = await tracker.comment_counts(tx, [r.ticket_id for r in records])
            if not records and start == 0:
                await call.relax(
                    args,
                    FILTERS,
                    count=lambda kept: tracker.count(tx, _filters(kept.get("query"), kept)),
                    facet=lambda name, kept: _facet(
                        tracker, tx, _filters(kept.get("query"), kept), name
                    ),
                    noun="ticket",
                    query="query",
                )
        page = pager.page(call, args, start, len(records), start + len(records) < total)
        return SearchOutput(
            results=[_row(r, counts.get(r.ticket_id, 0)) for r in records],
            total=total,
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(effects=READ_ONLY, errors=["not_found"])
    async def get_ticket(args: GetInput, call: Call) -> TicketOutput:
        """Read one ticket by its id (a project key and a number): description, status,
        priority, assignee, labels, version and every comment. Use it when the user names a
        ticket, or to get the version update_ticket needs. An unknown id is not_found with the
        search to make. Example: {"ticket_id": "<the ticket's id>"}."""
        async with tracker.using(None) as tx:
            record = await tracker.ticket(tx, args.ticket_id)
            if record is None:
                raise await _not_found(tracker, tx, args.ticket_id)
            return TicketOutput(ticket=await _detail(tracker, tx, record))

    @contract.tool(
        effects=CREATE,
        examples=[
            {
                "project": "<project key>",
                "title": "<what is wrong>",
                "priority": "<priority>",
                "labels": ["<label>"],
                "idempotency_key": "<a key you make up>",
            }
        ],
    )
    async def create_ticket(args: CreateInput, call: Call) -> TicketOutput:
        """Create a ticket in a project and return it with its new id (the project's key and
        the next number). Use it when the user reports a problem or asks for work to be tracked.
        Resending the same idempotency_key with the same arguments returns the same ticket, never
        a second one."""
        async with tracker.using(call.transaction) as tx:
            number = await tracker.next_number(tx, args.project)
            ticket_id = f"{args.project}-{number}"
            stamp = now_stamp()
            await tx.execute(
                "INSERT INTO tracker_tickets (ticket_id, project, number, title, description, "
                "status, priority, assignee, reporter, labels, created_at, updated_at, version, "
                "words) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, 1, ?)",
                (
                    ticket_id,
                    args.project,
                    number,
                    args.title,
                    args.description or "",
                    args.priority,
                    _person(args.assignee),
                    API_USER.email,
                    labels_cell(args.labels),
                    stamp,
                    stamp,
                    searchable(ticket_id, args.title, args.description or ""),
                ),
            )
            tx.made("ticket", ticket_id)  # a delete of it is said on a replay of this call
            record = await tracker.ticket(tx, ticket_id)
            assert record is not None
            return TicketOutput(ticket=await _detail(tracker, tx, record))

    @contract.tool(
        effects=UPDATE, errors=["invalid_arguments", "not_found", "conflict", "state_conflict"]
    )
    async def update_ticket(args: UpdateInput, call: Call) -> TicketOutput:
        """Change a ticket's status, assignee or priority: close it with status 'closed',
        reopen it with 'open', unassign it with assignee 'unassigned'. Use it when the user asks
        to move, close, reopen, assign or reprioritise a ticket. Send the version
        search_tickets or get_ticket returned as expected_version; if the ticket changed since,
        the conflict's repair re-reads it. A closed ticket changes only by reopening it. Example:
        {"ticket_id": "<the ticket's id>", "expected_version": "<its version>", "status":
        "<new status>"}."""
        async with tracker.using(call.transaction) as tx:
            record = await tracker.ticket(tx, args.ticket_id)
            if record is None:
                raise await _not_found(tracker, tx, args.ticket_id)
            asked: dict[str, Any] = {}
            if args.status is not None:
                asked["status"] = args.status
            if args.assignee is not None:
                asked["assignee"] = _person(args.assignee)
            if args.priority is not None:
                asked["priority"] = args.priority
            current = {
                "status": record.status,
                "assignee": record.assignee,
                "priority": record.priority,
            }
            changes = {k: v for k, v in asked.items() if current[k] != v}
            reread = Repair("get_ticket", {"ticket_id": record.ticket_id}, "reread_the_ticket")
            if args.expected_version is None:
                raise ToolError(
                    "invalid_arguments",
                    f"update_ticket needs the version of {record.ticket_id} you read, to change "
                    "nothing someone else changed since.",
                    hint=f"Read {record.ticket_id} with get_ticket (the call in `repair`) and "
                    "send its version as expected_version with the same changes.",
                    issues=[
                        Issue(
                            "expected_version",
                            "missing_property",
                            "'expected_version' is required: the version get_ticket shows.",
                        )
                    ],
                    repair=reread,
                )
            if record.status == "closed" and changes and changes.get("status") in (None, "closed"):
                raise ToolError(
                    "state_conflict",
                    f"Ticket {record.ticket_id} is closed; a closed ticket changes only when it "
                    "is reopened.",
                    hint="If the user wants it reopened, send update_ticket again with "
                    "status 'open' beside the other changes; get_ticket (the call in `repair`) "
                    "shows the ticket as it is.",
                    repair=reread,
                )
            if not changes:
                call.note(
                    "Nothing to change: the ticket already has these values."
                    if asked
                    else "Nothing to change: send status, assignee or priority."
                )
                return TicketOutput(ticket=await _detail(tracker, tx, record))
            outcome = await tx.compare_and_set(
                "tracker_tickets",
                key={"ticket_id": record.ticket_id},
                expected_version=args.expected_version,
                values={**changes, "updated_at": now_stamp()},
                reread_tool="get_ticket",
                reread_arguments={"ticket_id": record.ticket_id},
            )
            if isinstance(outcome, VersionConflict):
                raise ToolError(
                    "conflict",
                    f"Ticket {record.ticket_id} is at version {record.version}, not "
                    f"{args.expected_version}: it changed since it was read.",
                    hint="Re-read it with get_ticket (the call in `repair`), check the change "
                    "still makes sense, and resend with the new version as expected_version.",
                    issues=[
                        Issue(
                            "expected_version",
                            "out_of_range",
                            f"The current version is {record.version}.",
                            received=args.expected_version,
                            expected=str(record.version),
                            has_received=True,
                        )
                    ],
                    repair=reread,
                    details={"current_version": record.version},
                )
            assert isinstance(outcome, Updated)
            fresh = await tracker.ticket(tx, record.ticket_id)
            assert fresh is not None
            return TicketOutput(ticket=await _detail(tracker, tx, fresh))

    @contract.tool(effects=CREATE, errors=["not_found"])
    async def add_comment(args: CommentInput, call: Call) -> CommentOutput:
        """Add a comment to a ticket: a note, a question, a decision. Use it when the user asks
        to write something on a ticket. The same idempotency_key with the same text adds it
        once. Example: {"ticket_id": "<the ticket's id>", "body": "<the comment>",
        "idempotency_key": "<a key you make up>"}."""
        async with tracker.using(call.transaction) as tx:
            record = await tracker.ticket(tx, args.ticket_id)
            if record is None:
                raise await _not_found(tracker, tx, args.ticket_id)
            before = len(await tracker.comments(tx, record.ticket_id))
            comment_id = f"{record.ticket_id}#c{before + 1}"
            stamp = now_stamp()
            await tx.execute(
                "INSERT INTO tracker_comments (comment_id, ticket_id, author, body, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (comment_id, record.ticket_id, API_USER.email, args.body, stamp),
            )
            await tx.execute(
                "UPDATE tracker_tickets SET updated_at = ? WHERE ticket_id = ?",
                (stamp, record.ticket_id),
            )
            tx.made("comment", comment_id)
            return CommentOutput(
                ticket_id=record.ticket_id,
                comment=CommentRow(
                    comment_id=comment_id,
                    author=API_USER.email,
                    author_name=API_USER.name,
                    body=args.body,
                    created_at=stamp,
                ),
                comments=before + 1,
            )

    @contract.tool(effects=DELETE, errors=["not_found"])
    async def delete_ticket(args: DeleteInput, call: Call) -> DeleteOutput:
        """Delete a ticket and its comments for good. Use it only when the user asks to remove
        a ticket (a duplicate, spam, one made by mistake); to finish work on a ticket, close it
        with update_ticket instead (it stays on record). An unknown id is not_found; deleting a
        deleted ticket answers already_deleted. Example: {"ticket_id": "<the
        ticket's id>", "dry_run": true}."""
        async with tracker.using(call.transaction) as tx:
            record = await tracker.ticket(tx, args.ticket_id)
            if record is None:
                gone = await tracker.deleted(tx, args.ticket_id)
                if gone is None:
                    raise await _not_found(tracker, tx, args.ticket_id)
                return DeleteOutput(
                    status="already_deleted",
                    ticket_id=gone[0],
                    summary=f"Ticket {gone[0]} was already deleted on {gone[1][:10]}.",
                )
            written = await tracker.comments(tx, record.ticket_id)
            comments = len(written)
            said = "1 comment" if comments == 1 else f"{comments} comments"
            what = f"{record.ticket_id} '{record.title}' ({record.status}, {said})"
            if args.dry_run:
                return DeleteOutput(
                    status="would_delete",
                    ticket_id=record.ticket_id,
                    summary=f"Would delete {what}.",
                )
            await tx.execute(
                "UPDATE tracker_tickets SET deleted_at = ? WHERE ticket_id = ?",
                (now_stamp(), record.ticket_id),
            )
            await tx.execute(
                "DELETE FROM tracker_comments WHERE ticket_id = ?", (record.ticket_id,)
            )
            # a replay of the create, or of a comment, says the ticket was deleted since
            await tx.undo("ticket", record.ticket_id)
            for comment_id, *_ in written:
                await tx.undo("comment", comment_id)
            return DeleteOutput(
                status="deleted", ticket_id=record.ticket_id, summary=f"Deleted {what}."
            )

    return contract


def serve() -> Contract:
    """The contract on the store DRIVABLE_STORE / DRIVABLE_TICKETS_STORE names (else a fresh
    one for this process)."""
    tracker = Tracker()
    tracker.prepare_blocking()
    return make_contract(tracker)


__all__ = ["Tracker", "make_contract", "serve"]
