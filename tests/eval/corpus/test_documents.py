"""The documents set: both servers answer every workflow's steps; the drivable server's writes
are keyed and its deletes two-step, and a keyed share resent after its document was deleted says
so; sizes, folders, dates and addresses read the same in any spelling; an empty filtered page
leads on by the runtime's minimal relaxation."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.eval.corpus.documents import data
from drivable.eval.corpus.documents.domain import FILTERS as DOCUMENT_FILTERS
from drivable.eval.corpus.documents.models import SearchInput
from drivable.eval.corpus.documents.server import make_contract
from drivable.eval.corpus.documents.store import Store
from drivable.eval.scorer import contains, satisfies
from drivable.eval.solver import contract_normalizer
from drivable.eval.turns import Observation, ToolCall
from drivable.eval.workflow import Step, Workflow, bundled
from drivable.kinds.writing import spellings
from drivable.serve.mount import build_server
from drivable.target import Target, connect, wire
from drivable.testing import call_error, call_ok
from tests.servers.relaxation import check_empty_page, named_values, read_as

LIBRARY = data.generate()
BY_NAME = {d.name: d for d in LIBRARY.documents}
WORKFLOWS = bundled("documents")


@asynccontextmanager
async def fresh_contract(folder: Path) -> AsyncIterator[Contract]:
    store = Store(f"sqlite:///{folder / 'documents.sqlite'}")
    await store.prepare()
    try:
        yield make_contract(store)
    finally:
        await store.close()


def fresh_twin() -> Any:
    from drivable.eval.baselines import documents

    return importlib.reload(documents).server


# -- both servers answer every workflow ----------------------------------------------------------


def _resolve(value: Any, workflow: Workflow, seen: dict[str, Any]) -> Any:
    """A draft's value with its facts (canonical) and `$tool.path|fallback` references filled."""
    if isinstance(value, dict):
        return {k: _resolve(v, workflow, seen) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    if value.startswith("{") and value.endswith("}"):
        name = value[1:-1]
        return "key-" + workflow.name if name == "unique" else workflow.facts[name].value
    if value.startswith("$"):
        path, _, fallback = value[1:].partition("|")
        tool, *keys = path.split(".")
        found: Any = seen.get(tool)
        for key in keys:
            if found is None:
                break
            found = found[int(key)] if isinstance(found, list) else found.get(key)
        return found if found is not None else fallback
    return value


def _call_for(
    step: Step, workflow: Workflow, seen: dict[str, Any], contract: Contract
) -> tuple[str, dict[str, Any]]:
    """The call that completes the step: the draft's properties the tool has, with the done
    call's values over them ("*" keeps the draft's)."""
    tool = step.done.call.tool if step.done.call else step.done.tool
    assert tool is not None
    fields = contract.tools[tool].input_model.model_fields
    draft = _resolve(step.draft.arguments if step.draft else {}, workflow, seen)
    same_tool = step.draft is not None and step.draft.tool == tool
    arguments = {k: v for k, v in draft.items() if same_tool and k in fields}
    for k, v in (step.done.call.arguments if step.done.call else {}).items():
        arguments[k] = draft[k] if v == "*" else v
    return tool, arguments


async def _send(client: Any, tool: str, arguments: dict[str, Any]) -> Observation:
    result = await client.call_tool(tool, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return Observation(ToolCall(tool, arguments), bool(result.is_error), None, text)


async def _run_side(workflow: Workflow, server: Any, contract: Contract, drivable: bool) -> None:
    # judged as the side by side judges each side: the naive one by what it was sent
    normalize = contract_normalizer(contract) if drivable else None
    seen: dict[str, Any] = {}
    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        for step in workflow.steps:
            tool, arguments = _call_for(step, workflow, seen, contract)
            if drivable and "idempotency_key" in contract.tools[tool].input_model.model_fields:
                arguments = {"idempotency_key": f"key-{workflow.name}", **arguments}
            if drivable and step.via:
                preview = await _send(client, tool, {**arguments, "dry_run": True})
                assert not preview.is_error, preview.text[:300]
                following = json.loads(preview.text)["next_call"]
                tool, arguments = following["tool"], following["arguments"]
            obs = await _send(client, tool, arguments)
            # a text read a part at a time: the step's ask is to read on until it is found
            while not satisfies(step.done, obs, normalize) and "next_call" in obs.text:
                following = json.loads(obs.text)["next_call"]
                assert following["tool"] == tool
                obs = await _send(client, tool, following["arguments"])
            assert not obs.is_error, (workflow.name, step.name, obs.text[:300])
            assert not obs.text.startswith("Error"), (workflow.name, step.name, obs.text[:300])
            assert satisfies(step.done, obs, normalize), (workflow.name, step.name, obs.text[:400])
            seen[tool] = json.loads(obs.text)
        for check in workflow.state:
            obs = await _send(client, check.call.tool, dict(check.call.arguments))
            if check.result_contains is not None:
                assert contains(obs, check.result_contains), (workflow.name, obs.text[:300])


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[f"{w.split}-{w.name}" for w in WORKFLOWS])
async def test_both_servers_complete_every_step_with_its_done_call(
    workflow: Workflow, tmp_path: Path
) -> None:
    async with fresh_contract(tmp_path) as contract:
        await _run_side(workflow, fresh_twin(), contract, drivable=False)
        await _run_side(workflow, build_server(contract), contract, drivable=True)


def test_the_set_has_six_workflows_a_split_and_covers_the_fixtures() -> None:
    for split in ("tune", "holdout"):
        found = [w for w in WORKFLOWS if w.split == split]
        assert len(found) >= 6
        assert {w.fixture for w in found} >= {
            "cold-start", "wrong-tool", "invalid-argument", "pagination",
            "destructive-two-step", "retry-after-timeout",
        }  # fmt: skip


async def test_the_twin_lists_the_same_tools_in_the_same_order(tmp_path: Path) -> None:
    async with fresh_contract(tmp_path) as contract:
        names = []
        for server in (fresh_twin(), build_server(contract)):
            async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
                names.append([wire(t)["name"] for t in (await client.list_tools()).tools])
    assert names[0] == names[1] == list(contract.tools)


async def test_both_servers_answer_over_stdio() -> None:
    root = Path(__file__).resolve().parents[3]
    env = {"PYTHONPATH": os.pathsep.join([str(root), str(root / "src")])}
    done: dict[str, Any] = {"tool": "search_documents", "arguments": {"query": "employee handbook"}}
    for command in (
        [sys.executable, "-m", "drivable.eval.surfaces", "documents"],
        [sys.executable, "-m", "drivable.eval.baselines.documents"],
    ):
        target = Target(command=tuple(command), env=env, mode="legacy", cwd=str(root))
        async with connect(target, mode="legacy") as client:
            result = await client.call_tool(done["tool"], done["arguments"])
        text = "".join(getattr(b, "text", "") for b in result.content)
        assert not result.is_error and BY_NAME["Employee handbook.pdf"].document_id in text


# -- keyed and two-step writes -------------------------------------------------------------------


async def test_a_share_runs_once_per_key_and_a_key_reused_for_another_share_is_refused(
    drivable_client: Any, drivable_mode: Any, tmp_path: Path
) -> None:
    doc = BY_NAME["Spring 2026 launch plan.docx"].document_id
    share = {"document_id": doc, "email": "tom.reed@acme.example", "role": "can edit"}
    async with (
        fresh_contract(tmp_path) as contract,
        drivable_client(contract, mode=drivable_mode) as client,
    ):
        first = await call_ok(client, "share_document", {**share, "idempotency_key": "k-one-1"})
        again = await client.call_tool("share_document", {**share, "idempotency_key": "k-one-1"})
        assert not again.is_error
        assert again.structured_content == {
            **first,
            "notes": [*first["notes"], again.structured_content["notes"][-1]],
        }
        assert "Replayed" in again.structured_content["notes"][-1]
        assert (again.meta or {})["dev.drivable/receipt"]["replayed"] is True
        other = {**share, "role": "viewer", "idempotency_key": "k-one-1"}
        refused = await call_error(client, "share_document", other, code="idempotency_mismatch")
        assert refused["issues"][0]["path"] == "role"
        read = await call_ok(client, "get_document", {"document_id": doc})
        shared = [s for s in read["document"]["shared_with"] if s["email"] == share["email"]]
        assert shared == [{"email": "tom.reed@acme.example", "role": "editor"}]


NAMES = {p.email: p.name for p in data.PEOPLE}


def _as_written(address: str) -> list[str]:
    """An address as people paste it: the email kind's spellings, a display name, and the local
    part capitalised (its case is the mailbox's own, matched without case)."""
    local, _, domain = address.partition("@")
    name = NAMES.get(address, local.replace(".", " ").title())
    capital = ".".join(w.capitalize() for w in local.split("."))
    return [*spellings("email", address), f"{name} <{address}>", f"{capital}@{domain}"]


HOLDERS = [
    (d, holder, role)
    for d in LIBRARY.documents
    for holder, role in [(d.owner, "owner"), *((s.email, s.role) for s in d.shares)]
]


def test_any_spelling_of_a_holders_address_shares_nothing_new(tmp_path: Path) -> None:
    """The address goes through the email kind and its mailbox is matched without case: the
    owner, however written, is the owner; a person a document is shared with, however written,
    already has it with that role; shared_with never grows by a spelling."""

    store = Store(f"sqlite:///{tmp_path / 'documents.sqlite'}")
    store.prepare_blocking()
    contract = make_contract(store)
    keys = iter(range(10**6))

    @settings(max_examples=60, deadline=None)
    @given(held=st.sampled_from(HOLDERS), pick=st.integers(min_value=0))
    def each(held: tuple[data.Document, str, str], pick: int) -> None:
        document, address, role = held
        written = _as_written(address)
        sent = {
            "document_id": document.document_id,
            "email": written[pick % len(written)],
            "role": "viewer" if role == "owner" else role,
            "idempotency_key": f"spelled-{next(keys)}",
        }
        out = anyio.run(contract.call, "share_document", sent)
        assert not out.is_error, out.structured
        got = out.structured
        assert got["status"] == ("owner" if role == "owner" else "already_shared"), got
        assert got["email"] == address
        assert got["shared_with"] == [
            {"email": s.email, "role": s.role}
            for s in sorted(document.shares, key=lambda s: s.email)
        ]

    try:
        each()
    finally:
        anyio.run(store.close)


async def test_a_new_address_keeps_its_local_part_and_its_mailbox_is_one_share(
    tmp_path: Path,
) -> None:
    """No hand lowercasing: the email kind's reading is stored (the local part as written, the
    domain in lowercase), and the same mailbox in another case changes that share's role."""
    doc = BY_NAME["Spring 2026 launch plan.docx"].document_id
    async with fresh_contract(tmp_path) as contract:
        schema = contract.tools["share_document"].input_model.model_json_schema()
        assert "pattern" not in schema["properties"]["email"]
        first = await contract.call(
            "share_document",
            {"document_id": doc, "email": "Maria.Lopez@Partner.Example", "idempotency_key": "m-1"},
        )
        assert first.structured["status"] == "shared"
        assert first.structured["email"] == "Maria.Lopez@partner.example"
        again = await contract.call(
            "share_document",
            {
                "document_id": doc,
                "email": "maria.lopez@partner.example",
                "role": "editor",
                "idempotency_key": "m-2",
            },
        )
        assert again.structured["status"] == "role_changed"
        mine = [s for s in again.structured["shared_with"] if "lopez" in s["email"].lower()]
        assert mine == [{"email": "Maria.Lopez@partner.example", "role": "editor"}]


async def test_a_delete_needs_its_dry_run_and_the_token_is_spent_once(
    drivable_client: Any, tmp_path: Path
) -> None:
    doc = BY_NAME["Legacy billing spec.docx"].document_id
    async with fresh_contract(tmp_path) as contract, drivable_client(contract) as client:
        asked = {"document_id": doc, "dry_run": False}
        refused = await call_error(client, "delete_document", asked, code="confirmation_required")
        assert refused["details"]["preview"]["status"] == "would_delete"
        confirm = refused["repair"]["arguments"]
        assert confirm == {
            "document_id": doc,
            "dry_run": False,
            "confirm_token": confirm["confirm_token"],
        }
        deleted = await call_ok(client, "delete_document", confirm)
        assert deleted["status"] == "deleted"
        resent = await call_ok(client, "delete_document", confirm)  # replayed (decision 0056)
        assert {k: v for k, v in resent.items() if k != "notes"} == {
            k: v for k, v in deleted.items() if k != "notes"
        }
        other = dict(confirm, document_id=BY_NAME["Brand guidelines.pdf"].document_id)
        await call_error(client, "delete_document", other, code="confirmation_invalid")
        await call_error(client, "get_document", {"document_id": doc}, code="not_found")


async def test_a_share_resent_after_its_document_was_deleted_says_so(
    drivable_client: Any, tmp_path: Path
) -> None:
    """delete_document and delete_folder undo the shares of what they delete: a resent share is
    change_undone (nothing runs) and its repair, the same share under a key of its own, finds
    the document gone; a share of a document still there replays as it was."""
    plan = BY_NAME["Spring 2026 launch plan.docx"]
    other = next(
        d
        for d in LIBRARY.documents
        if d.folder != "/" and not data.within(plan.folder, d.folder)  # its folder spares plan's
    )
    guest = "Tom.Reed@acme.example"
    share = {"document_id": plan.document_id, "email": guest, "idempotency_key": "plan-tom-1"}
    kept = {"document_id": other.document_id, "email": guest, "idempotency_key": "other-tom-1"}
    async with (
        fresh_contract(tmp_path) as contract,
        drivable_client(contract, mode="legacy") as client,
    ):
        await call_ok(client, "share_document", share)
        first = await call_ok(client, "share_document", kept)
        preview = await call_ok(
            client, "delete_document", {"document_id": plan.document_id, "dry_run": True}
        )
        await call_ok(client, "delete_document", preview["next_call"]["arguments"])
        resent = await call_error(client, "share_document", share, code="change_undone")
        made = {"kind": "share", "id": f"{plan.document_id}/{guest}"}
        assert resent["details"]["made"] == made
        assert resent["details"]["undone_by"] == "delete_document"
        assert resent["repair"]["arguments"]["idempotency_key"] != share["idempotency_key"]
        await call_error(client, "share_document", resent["repair"]["arguments"], code="not_found")
        again = await call_ok(client, "share_document", kept)
        assert again["status"] == first["status"] == "shared"
        folder = await call_ok(client, "delete_folder", {"folder": other.folder, "dry_run": True})
        await call_ok(client, "delete_folder", folder["next_call"]["arguments"])
        gone = await call_error(client, "share_document", kept, code="change_undone")
        assert gone["details"]["undone_by"] == "delete_folder"


def _under(folder: str) -> list[data.Document]:
    return [d for d in LIBRARY.documents if data.within(d.folder, folder)]


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(folder=st.sampled_from([f for f in LIBRARY.folders if f != "/"]))
def test_a_folder_delete_says_how_many_documents_go_before_it_deletes_them(
    folder: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async def go() -> None:
        async with fresh_contract(tmp_path_factory.mktemp("f")) as contract:
            asked = {"folder": folder, "dry_run": True}
            preview = (await contract.call("delete_folder", asked)).structured
            assert preview["documents"] == len(_under(folder))
            assert f"{len(_under(folder))} document" in preview["summary"]
            done = await contract.call("delete_folder", preview["next_call"]["arguments"])
            assert done.structured["status"] == "deleted"
            left = await contract.call("search_documents", {"folder": folder})
            assert left.structured["total"] == 0
            rest = await contract.call("search_documents", {"limit": 1})
            assert rest.structured["total"] == len(LIBRARY.documents) - len(_under(folder))

    anyio.run(go)


# -- one reading per value, whatever the spelling ------------------------------------------------

UNITS = {"KB": data.KB, "kb": data.KB, "K": data.KB, "MB": data.MB, "mb": data.MB, "M": data.MB}


@st.composite
def spelled_sizes(draw: st.DrawFn) -> tuple[str, int]:
    """A size as users write it ("2,5 MB", "2048kb", "over 3 MB") and the bytes it means."""
    unit = draw(st.sampled_from(sorted(UNITS)))
    whole = draw(st.integers(min_value=1, max_value=999))
    tenth = draw(st.integers(min_value=0, max_value=9))
    mark = draw(st.sampled_from([".", ","]))
    number = f"{whole}{mark}{tenth}" if tenth else str(whole)
    gap = draw(st.sampled_from(["", " "]))
    words = draw(st.sampled_from(["", "over ", "at least ", "more than "]))
    return f"{words}{number}{gap}{unit}", round((whole + tenth / 10) * UNITS[unit])


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["document_id"] for r in rows]


@pytest.fixture(scope="module")
def shared_contract(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One contract for read-only properties (nothing here changes a document)."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('ro') / 'documents.sqlite'}")
    store.prepare_blocking()
    return make_contract(store)


@settings(max_examples=60, deadline=None)
@given(size=spelled_sizes())
def test_any_spelling_of_a_size_finds_what_its_bytes_find(
    shared_contract: Contract, size: tuple[str, int]
) -> None:
    spelled, size_bytes = size

    async def go() -> None:
        as_spelled = await shared_contract.call(
            "search_documents", {"min_size": spelled, "limit": 50}
        )
        as_bytes = await shared_contract.call(
            "search_documents", {"min_size": size_bytes, "limit": 50}
        )
        assert not as_spelled.is_error, as_spelled.structured
        assert _ids(as_spelled.structured["results"]) == _ids(as_bytes.structured["results"])
        assert as_spelled.structured["total"] == sum(
            d.size_bytes >= size_bytes for d in LIBRARY.documents
        )

    anyio.run(go)


@st.composite
def spelled_folders(draw: st.DrawFn) -> tuple[str, str]:
    """A folder path as users write it ("Reports > 2026", "/reports/2026/", "Reports/2026")."""
    path = draw(st.sampled_from([f for f in LIBRARY.folders if f != "/"]))
    segments = path.strip("/").split("/")
    joiner = draw(st.sampled_from(["/", " > ", " / ", ">", " › "]))
    lead = draw(st.sampled_from(["", "/"])) if joiner.strip() == "/" else ""
    tail = draw(st.sampled_from(["", "/"])) if joiner.strip() == "/" else ""
    cases: list[Callable[[str], str]] = [str, str.lower, str.upper]
    case = draw(st.sampled_from(cases))
    return case(lead + joiner.join(segments) + tail), path


@settings(max_examples=60, deadline=None)
@given(folder=spelled_folders())
def test_any_spelling_of_a_folder_lists_and_finds_what_its_path_does(
    shared_contract: Contract, folder: tuple[str, str]
) -> None:
    spelled, path = folder

    async def go() -> None:
        for tool, arguments in (
            ("list_folder", {"limit": 50}),
            ("search_documents", {"limit": 50}),
        ):
            as_spelled = await shared_contract.call(tool, {**arguments, "folder": spelled})
            as_path = await shared_contract.call(tool, {**arguments, "folder": path})
            assert not as_spelled.is_error, as_spelled.structured
            got, want = as_spelled.structured, as_path.structured
            key = "documents" if tool == "list_folder" else "results"
            assert _ids(got[key]) == _ids(want[key]), (tool, spelled)
        assert as_path.structured["total"] == len(_under(path))

    anyio.run(go)


# -- an empty filtered page leads on by the runtime's minimal relaxation ------------------------

OWNERS = [p.email for p in data.PEOPLE]
FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "folder": st.sampled_from(list(LIBRARY.folders[1:])),
        "owner": st.sampled_from(OWNERS),
        "type": st.sampled_from(list(data.TYPES)),
        "modified_from": st.dates(data.FIRST_DAY, data.TODAY).map(lambda d: d.isoformat()),
        "modified_to": st.dates(data.FIRST_DAY, data.TODAY).map(lambda d: d.isoformat()),
        "min_size": st.sampled_from([100 * data.KB, data.MB, "5 MB", 20 * data.MB]),
        "max_size": st.sampled_from([2 * data.KB, "50 KB", data.MB]),
        # words a filter's field reads too: an owner, a file type, a folder (rule 7)
        "query": st.sampled_from(
            ["sales report", "budget", "policy", "weekly sync", "nda", "Dana decks", "Legal Hana"]
        ),
    },
)


def test_an_empty_filtered_page_leads_on_by_its_minimal_relaxation(
    shared_contract: Contract,
) -> None:
    """The runtime's rule (`Call.relax`), checked from the outside by calling again: the next
    call leaves out the one filter (else the pair) whose removal finds the fewest documents, more
    than none, keeps every other argument as sent (the words of the query included), and each
    value the page names as one that would match does (a folder with the folders below it)."""
    sides = [(f.name, f.side) for f in DOCUMENT_FILTERS]
    seen: Counter[str] = Counter()

    async def send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        out = await shared_contract.call(tool, arguments)
        return dict(out.structured, is_error=out.is_error)

    @settings(max_examples=80, deadline=None)
    @given(asked=FILTERS)
    @example(asked={"query": "Dana Kim", "type": "pptx"})  # moved (rule 7), met on every run
    def minimal(asked: dict[str, Any]) -> None:
        async def go() -> None:
            page = await send("search_documents", asked)
            assert not page["is_error"], page
            read = read_as(SearchInput, asked)
            assert read is not None
            seen[
                await check_empty_page(
                    send, "search_documents", read, sides, page, query="query", model=SearchInput
                )
            ] += 1

        anyio.run(go)

    minimal()
    assert seen["one"] and seen["rows"] and seen["moved"] + seen["moved, nothing"], seen


async def test_no_deck_of_danas_leads_to_the_decks_there_are_and_says_whose(
    shared_contract: Contract,
) -> None:
    """The tune workflow's search: owner and type together find nothing; of the two, leaving out
    the owner finds fewer documents than leaving out the type, so the next call keeps the type
    and the warning names whose decks there are, with how many each owns."""
    asked = {"owner": "Dana", "type": "PowerPoint"}
    page = (await shared_contract.call("search_documents", asked)).structured
    assert page["total"] == 0
    decks = [d for d in LIBRARY.documents if d.type == "pptx"]
    mine = [d for d in LIBRARY.documents if d.owner == "dana.kim@example.org"]
    assert len(decks) < len(mine)  # the data this example stands on
    assert page["next_call"]["arguments"] == {"type": "pptx"}
    (warning,) = page["warnings"]
    assert warning["path"] == "owner"
    owners = Counter(d.owner for d in decks)
    assert dict(named_values(warning["message"])) == dict(owners.most_common(5))


# -- a long text, a part at a time ---------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(document=st.sampled_from(LIBRARY.documents))
def test_a_text_is_read_whole_part_by_part_by_following_next_call(
    shared_contract: Contract, document: data.Document
) -> None:
    async def go() -> None:
        arguments: dict[str, Any] = {"document_id": document.document_id}
        read: list[str] = []
        while True:
            out = (await shared_contract.call("get_document", arguments)).structured
            assert len(out["text"]) <= data.PART_CHARS
            read.append(out["text"])
            if "next_call" not in out:
                break
            arguments = out["next_call"]["arguments"]
        assert len(read) == out["parts"]
        assert " ".join(" ".join(read).split()) == " ".join(document.text.split())

    anyio.run(go)


@pytest.mark.parametrize(
    ("name", "words", "needle"),
    [
        ("Employee handbook.pdf", "remote work", "three days a week"),
        ("Master services agreement Cobalt Cloud.docx", "termination", "90 days written notice"),
        ("Incident response runbook.md", "Postmortem", "five working days"),
    ],
)
async def test_find_shows_the_part_with_the_words(
    shared_contract: Contract, name: str, words: str, needle: str
) -> None:
    doc = BY_NAME[name].document_id
    out = await shared_contract.call("get_document", {"document_id": doc, "find": words})
    assert needle in out.structured["text"]


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip


@st.composite
def spelled_days(draw: st.DrawFn) -> tuple[str, str]:
    """A day of the data's year as users write it, and its ISO form."""
    day = draw(st.dates(data.FIRST_DAY, data.TODAY))
    month = MONTHS[day.month - 1]
    spelled = draw(
        st.sampled_from(
            [
                f"{day.day}. {day.month}. {day.year}",
                f"{day.day} {month} {day.year}",
                f"{month} {day.day}, {day.year}",
                f"{day.year}/{day.month:02d}/{day.day:02d}",
                f"{day.day:02d}.{day.month:02d}.{day.year}",
            ]
        )
    )
    return spelled, day.isoformat()


@settings(max_examples=40, deadline=None)
@given(day=spelled_days(), end=st.booleans())
def test_any_spelling_of_a_day_finds_what_its_iso_form_finds(
    shared_contract: Contract, day: tuple[str, str], end: bool
) -> None:
    spelled, iso = day
    bound = "modified_to" if end else "modified_from"

    async def go() -> None:
        as_spelled = await shared_contract.call("search_documents", {bound: spelled, "limit": 50})
        as_iso = await shared_contract.call("search_documents", {bound: iso, "limit": 50})
        assert not as_spelled.is_error, as_spelled.structured
        assert _ids(as_spelled.structured["results"]) == _ids(as_iso.structured["results"])
        kept = [
            d for d in LIBRARY.documents
            if (d.modified_on.isoformat() <= iso if end else d.modified_on.isoformat() >= iso)
        ]  # fmt: skip
        assert as_iso.structured["total"] == len(kept)

    anyio.run(go)


async def test_a_stale_move_is_refused_with_the_reread_and_a_resent_move_is_answered_as_done(
    drivable_client: Any, tmp_path: Path
) -> None:
    doc = BY_NAME["Old search requirements.docx"]
    move = {"document_id": doc.document_id, "folder": "Engineering > Specs"}
    async with fresh_contract(tmp_path) as contract, drivable_client(contract) as client:
        stale = {**move, "expected_version": doc.version + 1}
        refused = await call_error(client, "move_document", stale, code="conflict")
        assert refused["repair"] == {
            "tool": "get_document",
            "arguments": {"document_id": doc.document_id},
            "next_step": "reread_the_document_then_replan",
        }
        fresh = {**move, "expected_version": doc.version}
        moved = await call_ok(client, "move_document", fresh)
        assert moved["status"] == "moved"
        assert moved["document"]["folder"] == "/Engineering/Specs"
        assert moved["document"]["version"] == doc.version + 1
        again = await call_ok(client, "move_document", fresh)  # a retry after it landed
        assert again["status"] == "unchanged"
        renamed = {
            **fresh,
            "expected_version": doc.version + 1,
            "new_name": "Search requirements v0",
        }
        taken = await call_error(
            client,
            "move_document",
            renamed | {"new_name": "Search requirements"},
            code="state_conflict",
        )
        assert taken["repair"]["arguments"] == {"folder": "/Engineering/Specs"}
        done = await call_ok(client, "move_document", renamed)
        assert done["document"]["name"] == "Search requirements v0.docx"


async def test_processes_preparing_one_postgresql_store_at_once_load_it_once() -> None:
    """Several workers start on one PostgreSQL store: one loads the data under an advisory lock,
    the others wait and read it, and all share one secret (without the lock, 3 of 4 failed with
    a unique violation and two secrets were kept)."""
    from tests.effects.effects_pg import ensure_postgres, throwaway_schema

    with throwaway_schema(ensure_postgres()) as url:
        stores = [Store(url) for _ in range(4)]
        try:
            await asyncio.gather(*(s.prepare() for s in stores))
            assert len({s.secret for s in stores}) == 1
        finally:
            for s in stores:
                await s.store.close()
