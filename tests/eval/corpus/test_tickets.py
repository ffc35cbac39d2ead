"""The tickets domain: both servers reach every workflow's done condition over the wire, the
drivable side's writes are keyed and its delete two steps, any spelling of a value lands on the
rows of its canonical form, an empty filtered page leads on by the runtime's minimal relaxation,
and a keyed create or comment resent after its ticket was deleted says so."""

from __future__ import annotations

import asyncio
import importlib
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.eval.corpus.tickets.data import PEOPLE, PROJECTS, TODAY
from drivable.eval.corpus.tickets.models import SearchInput
from drivable.eval.corpus.tickets.server import FILTERS as TICKET_FILTERS
from drivable.eval.corpus.tickets.server import make_contract
from drivable.eval.corpus.tickets.store import Tracker
from drivable.eval.corpus.tickets.vocab import PRIORITY_VOCABULARY, STATUS_VOCABULARY
from drivable.eval.scorer import satisfies
from drivable.eval.solver import contract_normalizer
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Workflow, bundled
from drivable.kinds.text_folding import bare
from drivable.kinds.writing import spellings
from drivable.serve.mount import build_server
from drivable.target import Target, connect
from drivable.testing import call_error, call_ok
from tests.servers.relaxation import check_empty_page, read_as

WORKFLOWS = bundled("tickets")


def open_contract(path: Path) -> tuple[Tracker, Contract]:
    tracker = Tracker(f"sqlite:///{path}")
    tracker.prepare_blocking()
    return tracker, make_contract(tracker)


@pytest.fixture
def tickets(tmp_path: Path) -> Iterator[Contract]:
    tracker, contract = open_contract(tmp_path / "tickets.sqlite")
    yield contract
    asyncio.run(tracker.close())


@pytest.fixture
def naive() -> Any:
    """The twin with the generated tickets as they start (its state is the module's)."""
    return importlib.reload(importlib.import_module("drivable.eval.baselines.tickets")).server


async def _observe(client: Any, tool: str, arguments: dict[str, Any]) -> Observation:
    result = await client.call_tool(tool, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return Observation(
        ToolCall(tool, arguments), bool(result.is_error), result.structured_content, text
    )


# What a right call carries beside the arguments its step's done condition names (a label filter
# is judged by the total it gives, a found ticket by its id): as lists; the twin takes "a,b".
EXTRA: dict[tuple[str, str], dict[str, Any]] = {
    ("bugs-in-the-ui-since", "searched"): {"labels": ["bug", "ui"]},
    ("open-web-shop-bugs-paged", "page-1"): {"labels": ["bug"], "limit": 5},
    ("open-web-shop-bugs-paged", "page-2"): {"labels": ["bug"], "limit": 5},
    ("crash-reports-paged", "page-1"): {"labels": ["crash"]},
    ("crash-reports-paged", "page-2"): {"labels": ["crash"], "limit": 3},
    ("delete-mistaken-ticket", "found"): {"query": "Upgrade PostgreSQL on db-01", "project": "OPS"},
}


def _right_call(workflow: Workflow, step: str, side: str, last: Any) -> tuple[str, dict[str, Any]]:
    """The step's done call with each "*" filled as a user's call fills it, and what EXTRA adds."""
    done = workflow.step(step).done
    tool = done.tool_name
    assert tool is not None, (workflow.name, step)
    fill = {
        "cursor": (last or {}).get("next_cursor"),
        "title": workflow.facts["title"].value if "title" in workflow.facts else None,
        "body": workflow.facts["text"].value if "text" in workflow.facts else None,
    }
    named = dict(done.call.arguments) if done.call is not None else {}
    arguments = {k: fill.get(k) if v == "*" else v for k, v in named.items()}
    for key, value in EXTRA.get((workflow.name, step), {}).items():
        arguments[key] = ",".join(value) if side == "naive" and isinstance(value, list) else value
    return tool, arguments


async def _drivable_step(client: Any, tool: str, arguments: dict[str, Any]) -> Observation:
    """The step as the drivable side takes it: the version read first, a key of its own, the
    dry run and then its next_call."""
    if tool == "update_ticket":
        read = await call_ok(client, "get_ticket", {"ticket_id": arguments["ticket_id"]})
        arguments = {**arguments, "expected_version": read["ticket"]["version"]}
    if tool in ("create_ticket", "add_comment"):
        arguments = {**arguments, "idempotency_key": f"test-{tool}-1"}
    if tool == "delete_ticket":
        preview = await call_ok(client, "delete_ticket", {**arguments, "dry_run": True})
        arguments = preview["next_call"]["arguments"]
    return await _observe(client, tool, arguments)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[w.name for w in WORKFLOWS])
async def test_both_servers_reach_each_done_condition(
    workflow: Workflow, tickets: Contract, naive: Any
) -> None:
    judge = contract_normalizer(tickets)
    for side, server in (("drivable", build_server(tickets)), ("naive", naive)):
        async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
            last: Any = None
            for step in workflow.steps:
                tool, arguments = _right_call(workflow, step.name, side, last)
                if side == "drivable":
                    seen = await _drivable_step(client, tool, arguments)
                else:
                    seen = await _observe(client, tool, arguments)
                met = satisfies(step.done, seen, judge if side == "drivable" else None)
                assert met, (side, workflow.name, step.name, seen.text[:400])
                last = seen.payload()


@pytest.mark.parametrize(
    "command",
    [["drivable.eval.surfaces", "tickets"], ["drivable.eval.baselines.tickets"]],
    ids=["drivable", "naive"],
)
async def test_each_side_serves_over_stdio_from_a_fresh_process(command: list[str]) -> None:
    target = Target(command=(sys.executable, "-m", *command), mode="legacy")
    async with connect(target, mode="legacy") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        seen = await _observe(client, "search_tickets", {"project": "OPS", "priority": "urgent"})
    assert listed == [
        "search_tickets",
        "get_ticket",
        "create_ticket",
        "update_ticket",
        "add_comment",
        "delete_ticket",
    ]
    assert not seen.is_error and '"OPS-58"' in seen.text


async def test_a_keyed_create_and_comment_happen_once(
    tickets: Contract, drivable_client: Any
) -> None:
    new = {
        "project": "Public API",
        "title": "Webhook retries are not documented",
        "priority": "P3",
        "labels": "docs",
        "idempotency_key": "docs-webhook-retries",
    }
    async with drivable_client(tickets, mode="legacy") as client:
        first = await call_ok(client, "create_ticket", new)
        again = await call_ok(client, "create_ticket", new)
        assert first["ticket"] == again["ticket"] and first["ticket"]["ticket_id"] == "API-71"
        listed = await call_ok(client, "search_tickets", {"query": "webhook retries"})
        assert [r["ticket_id"] for r in listed["results"]] == ["API-71"]
        changed = await call_error(
            client, "create_ticket", {**new, "title": "Webhook retries undocumented"}
        )
        assert changed["code"] == "idempotency_mismatch"
        note = {"ticket_id": "API-71", "body": "Docs PR is up.", "idempotency_key": "note-api71"}
        await call_ok(client, "add_comment", note)
        twice = await call_ok(client, "add_comment", note)
        assert twice["comments"] == 1
        read = await call_ok(client, "get_ticket", {"ticket_id": "api-71"})
        assert [c["body"] for c in read["ticket"]["comments"]] == ["Docs PR is up."]


def test_a_fresh_process_on_the_same_store_replays_against_tickets_it_has(tmp_path: Path) -> None:
    """Receipts and tickets share one store: a retry in another process replays a ticket that
    exists there too (the default, a file of the process's own, keeps both apart per process)."""
    new = {"project": "OPS", "title": "Rotate the VPN keys", "idempotency_key": "vpn-keys-1"}

    async def create(contract: Contract) -> dict[str, Any]:
        outcome = await contract.call("create_ticket", new)
        assert not outcome.is_error, outcome.structured
        got = await contract.call(
            "get_ticket", {"ticket_id": outcome.structured["ticket"]["ticket_id"]}
        )
        assert not got.is_error, got.structured
        return dict(outcome.structured["ticket"])

    first_tracker, first = open_contract(tmp_path / "shared.sqlite")
    second_tracker, second = open_contract(tmp_path / "shared.sqlite")
    try:
        assert asyncio.run(create(first)) == asyncio.run(create(second))
    finally:
        asyncio.run(first_tracker.close())
        asyncio.run(second_tracker.close())


async def test_delete_takes_a_dry_run_and_its_token(
    tickets: Contract, drivable_client: Any
) -> None:
    async with drivable_client(tickets, mode="legacy") as client:
        refused = await call_error(
            client, "delete_ticket", {"ticket_id": "MOB-58", "dry_run": False}
        )
        assert refused["code"] == "confirmation_required"
        assert refused["details"]["preview"]["status"] == "would_delete"
        await call_ok(client, "get_ticket", {"ticket_id": "MOB-58"})  # a refusal deletes nothing
        confirm = refused["repair"]
        assert confirm["arguments"] == {
            "ticket_id": "MOB-58",
            "dry_run": False,
            "confirm_token": confirm["arguments"]["confirm_token"],
        }
        done = await call_ok(client, confirm["tool"], confirm["arguments"])
        assert done["status"] == "deleted"
        gone = await call_error(client, "get_ticket", {"ticket_id": "MOB-58"}, code="not_found")
        assert "deleted" in gone["message"]
        assert gone["repair"]["arguments"] == {"project": "MOB"}
        again = await call_ok(client, "delete_ticket", {"ticket_id": "MOB-58", "dry_run": True})
        assert again["status"] == "already_deleted"


async def test_a_create_or_comment_resent_after_its_ticket_was_deleted_says_so(
    tickets: Contract, drivable_client: Any
) -> None:
    """delete_ticket undoes the ticket create_ticket made and the comments add_comment made: a
    resent create is change_undone (nothing runs) and its repair reports the ticket again; a
    resent comment is change_undone too, its repair answering that the ticket is gone."""
    new = {"project": "WEB", "title": "Cart badge shows 0", "idempotency_key": "cart-badge-1"}
    async with drivable_client(tickets, mode="legacy") as client:
        made = (await call_ok(client, "create_ticket", new))["ticket"]["ticket_id"]
        note = {"ticket_id": made, "body": "Seen on iOS too.", "idempotency_key": "cart-note-1"}
        await call_ok(client, "add_comment", note)
        preview = await call_ok(client, "delete_ticket", {"ticket_id": made, "dry_run": True})
        await call_ok(client, "delete_ticket", preview["next_call"]["arguments"])
        resent = await call_error(client, "create_ticket", new, code="change_undone")
        assert resent["details"]["made"] == {"kind": "ticket", "id": made}
        assert resent["details"]["undone_by"] == "delete_ticket"
        again = await call_ok(client, resent["repair"]["tool"], resent["repair"]["arguments"])
        assert again["ticket"]["ticket_id"] != made and again["ticket"]["title"] == new["title"]
        retried = await call_ok(client, "create_ticket", resent["repair"]["arguments"])
        assert retried["ticket"]["ticket_id"] == again["ticket"]["ticket_id"]
        comment = await call_error(client, "add_comment", note, code="change_undone")
        assert comment["details"]["made"] == {"kind": "comment", "id": f"{made}#c1"}
        await call_error(client, "add_comment", comment["repair"]["arguments"], code="not_found")


async def test_a_stale_version_is_a_conflict_and_a_resent_change_is_applied_once(
    tickets: Contract, drivable_client: Any
) -> None:
    async with drivable_client(tickets, mode="legacy") as client:
        version = (await call_ok(client, "get_ticket", {"ticket_id": "WEB-73"}))["ticket"][
            "version"
        ]
        change = {"ticket_id": "WEB-73", "expected_version": version, "status": "WIP"}
        moved = await call_ok(client, "update_ticket", change)
        assert moved["ticket"]["status"] == "in_progress"
        resent = await call_ok(client, "update_ticket", change)
        assert resent["ticket"]["version"] == version + 1
        stale = await call_error(
            client, "update_ticket", {**change, "priority": "low"}, code="conflict"
        )
        assert stale["repair"] == {
            "tool": "get_ticket",
            "arguments": {"ticket_id": "WEB-73"},
            "next_step": "reread_the_ticket",
        }
        unread = await call_error(
            client, "update_ticket", {"ticket_id": "web-73", "priority": "P4"}
        )
        assert unread["repair"]["tool"] == "get_ticket"  # the call that shows the version
        closed = await call_error(
            client,
            "update_ticket",
            {"ticket_id": "OPS-9", "expected_version": 4, "priority": "low"},
            code="state_conflict",
        )
        assert "reopen" in closed["hint"]


# -- the same rows under any spelling -----------------------------------------------------------


def _spelled(value: str, names: list[str]) -> list[tuple[str, str]]:
    forms = [value, *names]
    return [(value, f) for name in forms for f in {name, name.upper(), name.lower(), bare(name)}]


def _spellings() -> list[tuple[str, str, str]]:
    """(field, canonical value, a spelling people write of it) for every vocabulary value."""
    out: list[tuple[str, str, str]] = []
    for p in PROJECTS:
        out += [("project", v, s) for v, s in _spelled(p.key, [p.name, *p.aliases])]
    for vocabulary, field in ((STATUS_VOCABULARY, "status"), (PRIORITY_VOCABULARY, "priority")):
        for e in vocabulary.entries:
            names = [e.name, *e.abbreviations, *e.aliases]
            out += [(field, v, s) for v, s in _spelled(e.value, names)]
    firsts = [p.first_name for p in PEOPLE]
    for person in PEOPLE:
        names = [person.name, person.email.split("@")[0], person.name.split()[-1]]
        if firsts.count(person.first_name) == 1:
            names.append(person.first_name)
        out += [("assignee", v, s) for v, s in _spelled(person.email, names)]
        # an address as people paste it: the email kind's spellings and a display name
        pasted = [*spellings("email", person.email), f"{person.name} <{person.email}>"]
        out += [("assignee", person.email, s) for s in pasted]
    return out


SPELLINGS = _spellings()
DAYS = st.dates(min_value=TODAY.replace(month=7, day=1), max_value=TODAY)


def _send(contract: Contract, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    outcome = asyncio.run(contract.call(tool, arguments))
    assert not outcome.is_error, (tool, arguments, outcome.structured)
    return dict(outcome.structured)


def _rows(page: dict[str, Any]) -> tuple[int, list[str]]:
    return page["total"], [r["ticket_id"] for r in page["results"]]


def test_any_spelling_of_a_value_lands_on_the_rows_of_its_canonical_form(tmp_path: Path) -> None:
    tracker, contract = open_contract(tmp_path / "tickets.sqlite")

    @settings(max_examples=60, deadline=None)
    @given(spelling=st.sampled_from(SPELLINGS), day=DAYS, seed=st.integers(0, 2**16))
    def same_rows(spelling: tuple[str, str, str], day: Any, seed: int) -> None:
        field, value, spelled = spelling
        people_write = random.Random(seed).choice(spellings("date", day) or [day.isoformat()])
        canonical = {field: value, "created_from": day.isoformat(), "limit": 50}
        written = {field: spelled, "created_from": people_write, "limit": 50}
        assert _rows(_send(contract, "search_tickets", written)) == _rows(
            _send(contract, "search_tickets", canonical)
        ), (written, canonical)

    try:
        same_rows()
    finally:
        asyncio.run(tracker.close())


def test_labels_as_a_string_or_a_list_are_one_filter(tmp_path: Path) -> None:
    tracker, contract = open_contract(tmp_path / "tickets.sqlite")
    try:
        as_list = _rows(_send(contract, "search_tickets", {"labels": ["bug", "ui"], "limit": 50}))
        for spelled in ("bug, ui", "bug,ui", "Bug; UI", '["bug", "ui"]', ["BUG", "Ui"]):
            assert (
                _rows(_send(contract, "search_tickets", {"labels": spelled, "limit": 50}))
                == as_list
            )
    finally:
        asyncio.run(tracker.close())


# -- an empty filtered page ---------------------------------------------------------------------

FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "project": st.sampled_from([p.key for p in PROJECTS]),
        "status": st.sampled_from(STATUS_VOCABULARY.values),
        "priority": st.sampled_from(PRIORITY_VOCABULARY.values),
        "assignee": st.sampled_from([p.email for p in PEOPLE] + ["unassigned"]),
        "labels": st.lists(
            st.sampled_from(["bug", "ui", "crash", "security", "docs"]),
            min_size=1,
            max_size=2,
            unique=True,
        ),
        "created_from": st.sampled_from(["2026-07-01", "2026-10-01", "2026-11-10"]),
        # words a filter's field reads too: a project's name, a priority, a label (rule 7)
        "query": st.sampled_from(
            ["checkout", "token", "disk", "webhook", "urgent Infrastructure", "crash mobile"]
        ),
    },
)


def test_an_empty_filtered_page_leads_on_by_its_minimal_relaxation(tmp_path: Path) -> None:
    """The runtime's rule (`Call.relax`), checked from the outside by calling again: the next
    call leaves out the one filter (else the pair) whose removal finds the fewest tickets, more
    than none, keeps every other argument as sent (the words of the query included), and each
    value the page names as one that would match does."""
    tracker, contract = open_contract(tmp_path / "tickets.sqlite")
    sides = [(f.name, f.side) for f in TICKET_FILTERS]
    seen: Counter[str] = Counter()

    async def send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        out = await contract.call(tool, arguments)
        return dict(out.structured, is_error=out.is_error)

    @settings(max_examples=80, deadline=None)
    @given(filters=FILTERS)
    @example(filters={"query": "urgent Infrastructure"})  # moved (rule 7), met on every run
    @example(filters={"query": "urgent Infrastructure", "status": "open"})
    def minimal(filters: dict[str, Any]) -> None:
        async def go() -> None:
            page = await send("search_tickets", filters)
            read = read_as(SearchInput, filters)
            assert read is not None
            seen[
                await check_empty_page(
                    send, "search_tickets", read, sides, page, query="query", model=SearchInput
                )
            ] += 1

        asyncio.run(go())

    try:
        minimal()
    finally:
        asyncio.run(tracker.close())
    assert seen["moved"] + seen["moved, nothing"], seen


def test_the_naive_twin_answers_with_the_exception_text(naive: Any) -> None:
    async def go() -> list[Observation]:
        async with connect(Target(server=naive, mode="legacy"), mode="legacy") as client:
            return [
                await _observe(client, "get_ticket", {"ticket_id": "MOB-999"}),
                await _observe(client, "search_tickets", {"status": "in progress"}),
                await _observe(client, "search_tickets", {"created_from": "1. 10. 2026"}),
            ]

    missing, status, day = asyncio.run(go())
    assert missing.is_error and "KeyError: 'MOB-999'" in missing.text
    assert status.is_error and "ValueError: invalid status" in status.text
    assert day.is_error and "Invalid isoformat string" in day.text
    assert all(o.envelope() is None for o in (missing, status, day))  # text, not an envelope
