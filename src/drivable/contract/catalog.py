"""Progressive disclosure: a catalog larger than its limit is entered through three tools.

A model pays for every listed tool on every turn, and picks worse among many
(docs/decisions/0042-a-large-catalog-is-entered.md). A contract with more tools than its
`catalog_limit` (set by its author; unset, every tool is listed) lists instead:

- `find_tools`: the catalog's tools that match a few words, best first (name, title, the
  description's first sentence, and the arguments it takes as one line);
- `describe_tool`: one tool as tools/list would have shown it;
- `call_tool`: call a tool of the catalog by its name, with its arguments.

Every tool of the catalog stays callable by its own name, a tools/list sent with
`_meta["dev.drivable/catalog"] = "full"` lists them all (what `drivable.target.collect_surface`
sends, so a snapshot, the audit and the fingerprint see the whole catalog), and server/discover
says which listing a client gets (`discover_meta`). The entry tools are declared on a contract of
their own, so they read, refuse and answer as any drivable tool does.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, Final

from pydantic import Field

from drivable.contract.call import Call
from drivable.contract.content import Text
from drivable.contract.declaration import ENTRY_TOOLS
from drivable.contract.declaration import entered as entered  # the catalog's own question
from drivable.contract.envelope import ToolError
from drivable.contract.facade import Contract
from drivable.contract.output import Output
from drivable.contract.stages.resolve import find_the_tool, first_sentence
from drivable.contract.summary import Summary
from drivable.contract.surface import NAMESPACE
from drivable.contract.tool import READ_ONLY, ContractError, ToolSpec
from drivable.kinds.text_folding import bare
from drivable.schema.walk import enum_values, properties, required

FULL_KEY: Final = f"{NAMESPACE}/catalog"
FULL: Final = "full"
ENTRY: Final = ENTRY_TOOLS
CALL_TOOL: Final = ENTRY_TOOLS[2]

_WORD = re.compile(r"[a-z0-9]+")
# Where a word of the query is found, and what it weighs there.
_WEIGHTS: Final = (("name", 3.0), ("title", 2.0), ("inputs", 1.5), ("description", 1.0))
INFLECTED: Final = 0.5  # a word found only inflected, against found as written
SUMMARY: Final = 200  # characters of a found tool's description
QUERY: Final = 200  # characters of a query: each word is sought in every tool's fields


def asks_full(meta: Mapping[str, Any] | None) -> bool:
    """Whether a tools/list request's `_meta` asks for the whole catalog."""
    return meta is not None and meta.get(FULL_KEY) == FULL


def discover_meta(contract: Contract) -> dict[str, Any]:
    """What server/discover says of the listing: how many tools, which are listed, and how
    to list them all."""
    return {
        "tools": len(contract.tools),
        "limit": contract.catalog_limit,
        "listed": list(ENTRY),
        "full": {"method": "tools/list", "_meta": {FULL_KEY: FULL}},
    }


def words(text: str) -> list[str]:
    """Lowercase words without diacritics (a name's parts are words: `create_booking` is
    `create`, `booking`; `fakturý` is `faktury`)."""
    return _WORD.findall(bare(text).replace("_", " "))


def same_word(asked: str, found: str) -> bool:
    """Whether two words are one word inflected: equal, or one starts with the other and the
    shorter has four letters or more (`book`, `booking`, `bookings`, `booked`; `cancel`,
    `cancelled`; `status`, `statuses`)."""
    if asked == found:
        return True
    short, long_ = sorted((asked, found), key=len)
    return len(short) >= 4 and long_.startswith(short)


def signature(name: str, schema: Mapping[str, Any]) -> str:
    """A tool's call as one line: `name(a: type, b?: type)`, every property of its listed
    inputSchema in order, `?` after an optional one, an enum's values when it has few."""
    needed = set(required(schema))
    parts = [
        f"{prop}{'' if prop in needed else '?'}: {_type_of(node)}"
        for prop, node in properties(schema).items()
    ]
    return f"{name}({', '.join(parts)})"


def _type_of(node: Any) -> str:
    if not isinstance(node, Mapping):
        return "any"
    values = enum_values(node)
    if values is not None and len(values) <= 6:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in values)
    variants = [v for v in node.get("anyOf") or () if v != {"type": "null"}]
    if variants:
        return " | ".join(_type_of(v) for v in variants)
    kind = node.get("type")
    if kind == "array":
        return f"{_type_of(node.get('items'))}[]"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind if k != "null")
    return str(kind or "any")


def summary(description: str) -> str:
    """A tool's description in a search's answer: its first sentence, at most `SUMMARY` long."""
    head = first_sentence(description)
    return head if len(head) <= SUMMARY else head[: SUMMARY - 1] + "…"


def _fields(spec: ToolSpec) -> dict[str, list[str]]:
    properties = spec.input_schema.get("properties") or {}
    return {
        "name": words(spec.name),
        "title": words(spec.title or ""),
        "inputs": words(" ".join(properties)),
        "description": words(spec.description),
    }


def match(word: str, found: list[str]) -> float:
    """How much `word` is found in a field's words: 1 as written, half inflected (`same_word`):
    `invoices` is find_invoices' own word and only an inflection of refund_invoice's
    (docs/decisions/0053-a-word-as-written-outranks-its-inflection.md)."""
    if word in found:
        return 1.0
    return INFLECTED if any(same_word(word, w) for w in found) else 0.0


def search(contract: Contract, query: str, limit: int) -> list[ToolSpec]:
    """The tools whose name, title, inputs or description hold the query's words (`match`), by
    the sum of each word's weight where it is found, times how it is found, times its rarity in
    the catalog; ties keep the declared order. A tool that holds none of the words is not
    returned."""
    specs = contract.listed_tools()
    fields = [_fields(s) for s in specs]
    asked = list(dict.fromkeys(words(query)))
    scored: list[tuple[float, int]] = []
    where = {
        word: [{key: match(word, ws) for key, ws in f.items()} for f in fields] for word in asked
    }
    for i in range(len(specs)):
        score = 0.0
        for word in asked:
            holding = sum(1 for found in where[word] if any(found.values()))
            rarity = math.log(1 + len(specs) / (1 + holding))
            score += rarity * sum(w * where[word][i][key] for key, w in _WEIGHTS)
        if score > 0:
            scored.append((-score, i))
    return [specs[i] for _, i in sorted(scored)[:limit]]


class Found(Output):
    name: str
    title: str | None = None
    summary: str
    call: str = Field(description="The arguments it takes: `name?` is optional.")


class Search(Output):
    tools: list[Found]
    catalog_size: int
    every_name: list[str] | None = Field(
        default=None, description="When no tool matched: every tool's name, to pick from."
    )


def entry_contract(catalog: Contract) -> Contract:
    """The three entry tools of `catalog`, declared as drivable tools on a contract of their own.
    A catalog tool of an entry tool's name could never be reached by name: refused."""
    taken = sorted(set(ENTRY) & set(catalog.tools))
    if taken:
        raise ContractError(
            f"tools {', '.join(taken)} share a name with the entry tools of a large catalog "
            f"(catalog_limit={catalog.catalog_limit}): rename them"
        )
    entry = Contract(
        catalog.name,
        version=catalog.version,
        title=catalog.title,
        summary=Summary(
            f"{catalog.summary.text} Its {len(catalog.tools)} tools are found with "
            "find_tools, read with describe_tool and called with call_tool.",
            does=list(catalog.summary.does),
            does_not=list(catalog.summary.does_not),
            prerequisites=dict(catalog.summary.prerequisites),
        ),
        verbs=["call"],
    )

    def unknown(name: str) -> ToolError:
        return ToolError(
            "not_found",
            f"The catalog has no tool named {name!r}.",
            hint="Call find_tools with a few words of what the tool should do.",
            repair=find_the_tool(name),
        )

    @entry.tool(effects=READ_ONLY)
    def find_tools(
        query: Annotated[
            str, Field(max_length=QUERY, description="A few words of what the tool should do.")
        ],
        call: Call,
        limit: Annotated[int, Field(ge=1, le=20, description="Tools to return.")] = 5,
    ) -> Search:
        """Find the tools of this server that match a few words, best first. Call it before
        describe_tool and call_tool."""
        hits = search(catalog, query, limit)
        if hits:  # the best hit's description is the next step, never its call (no arguments)
            call.follow("describe_tool", {"name": hits[0].name})
        return Search(
            tools=[
                Found(
                    name=s.name,
                    title=s.title,
                    summary=summary(s.description),
                    call=signature(s.name, catalog.tool_wire(s)["inputSchema"]),
                )
                for s in hits
            ],
            catalog_size=len(catalog.tools),
            every_name=None if hits else [s.name for s in catalog.listed_tools()],
        )

    @entry.tool(effects=READ_ONLY, errors=["not_found"])
    def describe_tool(
        name: Annotated[str, Field(description="A tool's name, as find_tools returned it.")],
    ) -> Text:
        """Show one tool of this server as JSON: what it does and the arguments it takes. Then
        call it with call_tool."""
        spec = catalog.tools.get(name)
        if spec is None:
            raise unknown(name)
        wire = {k: v for k, v in catalog.tool_wire(spec).items() if k != "_meta"}
        return Text(json.dumps(wire, ensure_ascii=False, separators=(",", ":")))

    return entry


# call_tool is no declared tool: its arguments are another tool's, an object no schema of its own
# closes. What a call of it may do is what the catalog's tools do: anything, as MCP reads absent
# annotations.
CALL_TOOL_WIRE: Final[Mapping[str, Any]] = {
    "name": CALL_TOOL,
    "title": "Call a tool",
    "description": "Call one tool of this server by its name, with its arguments as "
    "describe_tool shows them; the answer is that tool's own.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "A tool's name, as find_tools returned it."},
            "arguments": {"type": "object", "description": "The tool's arguments."},
        },
        "required": ["name", "arguments"],
        "additionalProperties": False,
    },
    "annotations": {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    },
}


def listed(entry: Contract) -> list[dict[str, Any]]:
    """The entry tools as tools/list shows them."""
    return [
        *(entry.tool_wire(spec) for spec in entry.listed_tools()),
        copy.deepcopy(dict(CALL_TOOL_WIRE)),
    ]


def input_schema(entry: Contract, name: str) -> Mapping[str, Any] | None:
    """An entry tool's listed inputSchema; None for a name that is no entry tool."""
    if name == CALL_TOOL:
        schema: Mapping[str, Any] = CALL_TOOL_WIRE["inputSchema"]
        return schema
    spec = entry.tools.get(name)
    return entry.tool_wire(spec)["inputSchema"] if spec is not None else None


def route(
    catalog: Contract, entry: Contract, name: str, arguments: Any
) -> tuple[Contract, str, Any]:
    """Which contract answers a tools/call, under which name, with which arguments.

    `call_tool` of a tool the catalog has is that tool's own call, with the arguments sent (or
    the JSON object they spell when sent as a string); of any other name it is answered as
    describe_tool of that name is (the catalog has no such tool: find it). The entry tools are
    the entry contract's; every other name is the catalog's own.
    """
    if name == CALL_TOOL:
        sent = arguments if isinstance(arguments, Mapping) else {}
        inner = sent.get("name")
        if isinstance(inner, str) and inner in catalog.tools:
            given = sent.get("arguments", {})
            if isinstance(given, str):
                try:
                    parsed = json.loads(given)
                except ValueError:
                    parsed = None
                given = parsed if isinstance(parsed, dict) else given
            return catalog, inner, given
        return entry, "describe_tool", {"name": inner} if "name" in sent else {}
    if name in ENTRY:
        return entry, name, arguments
    return catalog, name, arguments
