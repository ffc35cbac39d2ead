"""What the caselaw server offers besides its tools: the capability summary and each decision (and
each part of its text) as resources, and the prompts that scaffold a research, declared on
`server.contract`; each reader takes the open `Handle` by its annotation, as a tool does."""

from __future__ import annotations

import json
import typing
from typing import Any

from drivable.contract import Repair
from drivable.contract.resources import PromptArgumentSpec, ResourceBody, ResourceError
from drivable.kinds import read
from drivable.servers.caselaw.courts import (
    COURTS,
)
from drivable.servers.caselaw.data import DATA_VERSION, Subject
from drivable.servers.caselaw.domain import (
    Handle,
    chunk_ids,
    chunk_uri,
    decision_detail,
    decision_uri,
)
from drivable.servers.caselaw.models import (
    ID_PREFIX,
)
from drivable.servers.caselaw.server import contract

# -- resources -----------------------------------------------------------------------------


@contract.resource(
    "caselaw://summary",
    name="summary",
    title="What the caselaw server does",
    description="The capability summary: what the server does and does not do, its tools, courts and data.",
)
async def summary_resource(db: Handle) -> ResourceBody:
    body = contract.summary_dict()
    store = db.store
    body["data"] = {
        "version": store.meta("data_version") or DATA_VERSION,
        "decisions": store.count(),
        "courts": len(COURTS),
        "subjects": list(typing.get_args(Subject)),
    }
    body["resources"] = {
        "decision": "caselaw://decisions/{decision_id}",
        "chunk": "caselaw://decisions/{decision_id}/chunks/{chunk_id}",
    }
    return ResourceBody(json.dumps(body, ensure_ascii=False))


def _decision_or_error(db: Handle, raw: str) -> dict[str, Any]:
    reading = read("identifier", raw, prefix=ID_PREFIX)
    found = db.store.get(str(reading.value)) if reading.outcome == "value" else None
    if found is None:
        raise ResourceError(
            "not_found",
            f"No decision has the id {raw!r}.",
            hint="Find the decision with search_decisions and use a decision_id it returns.",
            repair=Repair("search_decisions", {}, "search_first"),
        )
    return found


async def complete(argument: str, value: str, db: Handle) -> list[str]:
    if argument == "decision_id":
        return db.store.complete_ids(value if value.startswith(ID_PREFIX) else ID_PREFIX)
    if argument == "chunk_id":
        return [f"c{i}" for i in range(1, 10) if f"c{i}".startswith(value)]
    return []


@contract.resource_template(
    "caselaw://decisions/{decision_id}",
    name="decision",
    title="A decision: index of its text",
    description=(
        "One decision's metadata and summary, then its text chunks (ids and URIs) without "
        "their bodies. Read a chunk at its `uri`; each chunk names the next one."
    ),
    complete=complete,
)
async def decision_resource(decision_id: str, db: Handle) -> ResourceBody:
    found = _decision_or_error(db, decision_id)
    detail = decision_detail(found, "summary")
    chunks = [c.model_dump(mode="json") for c in detail.chunks]
    meta = {
        "dev.drivable/chunks": chunks,
        "dev.drivable/version": DATA_VERSION,
    }
    return ResourceBody(detail.model_dump_json(), meta=meta)


@contract.resource_template(
    "caselaw://decisions/{decision_id}/chunks/{chunk_id}",
    name="decision_chunk",
    title="A part of a decision's text",
    description=(
        "One part of a decision's text by its chunk id (c1, c2, ...), with next_chunk_id and "
        "next_chunk_uri of the part that follows (null after the last)."
    ),
    complete=complete,
)
async def chunk_resource(decision_id: str, chunk_id: str, db: Handle) -> ResourceBody:
    found = _decision_or_error(db, decision_id)
    parts = chunk_ids(found["text"])
    ids = [p[0] for p in parts]
    wanted = chunk_id.strip().lower()
    if wanted not in ids:
        raise ResourceError(
            "not_found",
            f"Decision {found['decision_id']} has no chunk {chunk_id!r}; it has {', '.join(ids)}.",
            hint=f"Read the index at {decision_uri(found['decision_id'])} for its chunk URIs.",
        )
    index = ids.index(wanted)
    _, heading, text = parts[index]
    following = ids[index + 1] if index + 1 < len(ids) else None
    body = {
        "decision_id": found["decision_id"],
        "chunk_id": wanted,
        "heading": heading,
        "text": text,
        "next_chunk_id": following,
        "next_chunk_uri": chunk_uri(found["decision_id"], following) if following else None,
    }
    return ResourceBody(
        json.dumps(body, ensure_ascii=False), meta={"dev.drivable/version": DATA_VERSION}
    )


# -- prompts (advisory scaffolding) ------------------------------------------------------------


@contract.prompt(
    name="research_case_law",
    title="Research case law on a question",
    description=(
        "Use when the user asks how courts decided a legal question: finds decisions and "
        "reads the most relevant ones."
    ),
    when_to_use=(
        "When the user asks how courts decided a legal question (e.g. damages for a late "
        "flight, notice periods) and wants decisions cited."
    ),
    arguments=[
        PromptArgumentSpec("question", "The legal question, in the user's words.", required=True),
        PromptArgumentSpec("court", "A court to focus on (optional), as list_courts names it."),
    ],
    prerequisites={"tools": ["search_decisions", "get_decision"], "permissions": []},
    followups=["search_decisions", "get_decision", "list_courts"],
)
async def research_case_law(question: str = "", court: str = "") -> str:
    focus = f' Pass court "{court}" to search_decisions.' if court else ""
    return (
        f"Question: {question}\n"
        "1. Call search_decisions with a few key words of the question in the language of the "
        f"courts concerned (Czech for Czech courts).{focus} Add date_from/date_to or subject "
        "when the question names them.\n"
        "2. Read warnings: no_hits_filtered names filter values that would match.\n"
        "3. Call get_decision with the decision_id of the two or three best rows "
        "(detail=full for the text), and cite each by court, case number and date."
    )


@contract.prompt(
    name="read_decision_by_case_number",
    title="Read a decision the user cites",
    description=("Use when the user cites a decision by its case number: reads and summarises it."),
    when_to_use="When the user cites a decision by case number, e.g. '21 Cdo 1096/2021'.",
    arguments=[PromptArgumentSpec("case_number", "The case number as cited.", required=True)],
    prerequisites={"tools": ["get_decision"], "permissions": []},
    followups=["get_decision", "search_decisions"],
)
async def read_decision_by_case_number(case_number: str = "") -> str:
    return (
        f"Call get_decision with case_number {json.dumps(case_number, ensure_ascii=False)}. "
        "If it is not_found, run the search_decisions call its repair names. Summarise the "
        "decision from its summary and, when needed, its chunks (detail=full)."
    )
