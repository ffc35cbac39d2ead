"""§3 Tools, their schemas: closed objects, typed and described properties, exclusive optionals in
the schema, one dialect, portable constructs, an output schema (names and descriptions: s3_tools).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.model import Finding
from drivable.audit.rules.base import (
    RuleDoc,
    StaticContext,
    finding,
    tool_subject,
    trimmed_schema,
)
from drivable.audit.rules.declare import Rules

AMBIGUOUS_PARAMS = {
    "user": "user_id",
    "since": "started_after",
    "id": "<noun>_id",
    "date": "<event>_date",
    "type": "<noun>_type",
    "data": "a named field per value",
    "value": "a named field",
    "q": "query",
    "name": "<noun>_name",
}
EXCLUSIVE_PROSE = re.compile(
    r"(mutually exclusive|exactly one of|either .{1,40} or .{1,40} but not both|only one of)", re.I
)
# A sentence that says two things exclude each other; it names them (checked apart).
EXCLUSIVE_CUE = re.compile(
    r"\beither\b.+\bor\b|\bnot both\b|\bnever both\b|\bmutually exclusive\b|"
    r"\b(exactly|only|at most) one of\b|\bone or the other\b|\bexclusive with\b|"
    r"\b(cannot|can't|may not|must not) be (used|combined|given|sent|set|specified) together\b",
    re.I,
)
# a description that says how the date is written tells a model what a `format` would (and the
# server may read more than it: caselaw and billing read "1. 10. 2026" and ask about "01/02/2026")
DATE_FORM_SAID = re.compile(r"YYYY-MM-DD|ISO[ -]?8601", re.I)


RULES = Rules()


def _properties(
    tool: dict[str, Any],
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], str, set[str]]]:
    """(name, listed node, resolved node, description, types) of each input property."""
    schema = h.input_schema(tool)
    for pname, raw in sch.properties(schema).items():
        node = sch.resolve(schema, raw)
        yield pname, raw, node, _prop_doc(node) or _prop_doc(raw), sch.types_of(node)


def _prop_doc(node: dict[str, Any]) -> str:
    return str(node.get("description") or "")


def _date_form_said(node: dict[str, Any]) -> bool:
    return bool(
        node.get("format")
        or node.get("pattern")
        or DATE_FORM_SAID.search(str(node.get("description") or ""))
    )


@RULES.per_tool(
    "3.param-names",
    "Disambiguated params (`user_id` not `user`, `started_after` not `since`).",
    "a+c",
    doc=RuleDoc(
        "nit",
        "static",
        "Parameter names are disambiguated (`user_id`, not `user`; `started_after`, not `since`) "
        "and id inputs say where their values come from.",
        "A model fills `user` with a name, an email or an id, whichever it has. An id input that "
        "does not name the tool that yields it sends the model guessing.",
        '`{"user": {"type": "string"}}`',
        "Rename to `user_id` and describe it: `Id from list_users (e.g. usr_123)`.",
        levels=(
            (
                "minor",
                "an id input says neither where its values come from nor what they look like",
            ),
        ),
    ),
)
def _param_names(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    props = sch.properties(h.input_schema(tool))
    for pname, raw, node, doc, _ in _properties(tool):
        if pname in AMBIGUOUS_PARAMS and not (pname == "id" and len(props) == 1):
            yield finding(
                "3.param-names",
                "nit",
                tool_subject(tool),
                f"Parameter `{pname}` is ambiguous.",
                {"property": pname, "schema": raw},
                f"Rename `{pname}` to `{AMBIGUOUS_PARAMS[pname]}` and describe its values.",
            )
        if h.is_id_property(pname, node) and not doc and "pattern" not in node:
            yield finding(
                "3.param-names",
                "minor",
                tool_subject(tool),
                f"Id input `{pname}` does not say which tool yields its values or what they look "
                "like.",
                {"property": pname, "schema": raw},
                f"Describe `{pname}`: `Id from <list tool> (e.g. ...)`, and add a `pattern`.",
            )


@RULES.per_tool(
    "3.required-optional",
    "Required only if needed; optional params state omission semantics; `default` only if applied; partial update defines absent/null/empty + explicit clearing.",
    "a+b+c",
    doc=RuleDoc(
        "minor",
        "static",
        "Optional parameters state what omission means; mutually exclusive optionals are "
        "encoded in the schema (`oneOf`/discriminator) rather than prose.",
        "A model fills every property it sees. If two optionals exclude each other and the "
        "schema does not say so, the model sends both.",
        "`user_id`, `user_email`, both optional, prose: `exactly one of`.",
        "Split into two tools or use a `oneOf` with one required field per branch; describe "
        "omission on each optional (`Omit for all courts`).",
    ),
)
def _required_optional(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    schema = h.input_schema(tool)
    required = set(schema.get("required") or [])
    for pname, raw, node, doc, _ in _properties(tool):
        if pname not in required and not doc and "default" not in node:
            yield finding(
                "3.required-optional",
                "minor",
                tool_subject(tool),
                f"Optional `{pname}` does not say what omitting it means.",
                {"property": pname, "schema": raw},
                f"Describe `{pname}`'s omission semantics (e.g. `Omit for all ...`) or give a "
                "`default` the server applies.",
            )
    props = sch.properties(schema)
    if any(k in schema for k in ("oneOf", "anyOf", "dependentRequired", "not", "allOf")):
        return
    desc = str(tool.get("description") or "") + " " + " ".join(_prop_doc(p) for p in props.values())
    optional = [p for p in props if p not in required]
    stems: dict[str, list[str]] = defaultdict(list)
    for p in optional:
        m = re.match(r"^(?P<stem>[a-z0-9]+)_(id|email|name|slug|number|uuid|key|url)$", p)
        if m:
            stems[m.group("stem")].append(p)
    alternatives = [v for v in stems.values() if len(v) > 1]
    named = said_exclusive(tool, props, optional)
    if named or EXCLUSIVE_PROSE.search(desc) or alternatives:
        fields = named or (alternatives[0] if alternatives else optional[:4])
        yield finding(
            "3.required-optional",
            "minor",
            tool_subject(tool),
            "Mutually exclusive optionals live in prose, not in the schema: "
            + ", ".join(f"`{f}`" for f in fields)
            + ". A model fills every property it sees and sends them together.",
            {"optional": optional, "required": sorted(required), "exclusive": fields},
            "Encode the choice where a model reads it: one discriminated union (a property "
            "whose branches each carry one of "
            + ", ".join(f"`{f}`" for f in fields)
            + ", a `oneOf` in JSON Schema), or one tool per lookup; not a cross-field check "
            "in the handler.",
        )


def said_exclusive(
    tool: dict[str, Any], props: dict[str, dict[str, Any]], optional: list[str]
) -> list[str]:
    """The optionals one sentence says exclude each other ("either customer_id or email, not
    both"), the sentence in the tool's description or in one of theirs (which names itself)."""
    texts = [("", str(tool.get("description") or ""))]
    texts += [(p, _prop_doc(props[p])) for p in optional]
    for own, text in texts:
        for sentence in h.sentences(text):
            if not EXCLUSIVE_CUE.search(sentence):
                continue
            named = [
                p
                for p in optional
                if p == own
                or re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", sentence)
                or re.search(rf"\b{re.escape(p.replace('_', ' '))}\b", sentence, re.I)
            ]
            if len(named) >= 2:
                return named
    return []


@RULES.per_tool(
    "3.strict-types",
    "Enums, `format`s, deliberate integer vs number.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static+probe",
        "A string whose description lists its values is an `enum`; a date says how it is written "
        "(`YYYY-MM-DD` in its description, or a `format`/`pattern` in the listed schema or the one "
        "discovery publishes), unless the ambiguous-date probe shows the server reads dates itself "
        '(it asked which day "01/02/2026" meant); counts are `integer`; every property has a type. '
        'The placeholder probe sends `"string"` to an enum and expects a rejection naming it (major '
        "when accepted). A listed `format` is never asked for: shown one, models convert the "
        "user's date themselves (docs/decisions/0027-the-runtime-wins-over-the-checklist.md).",
        "A free-text string that means one of five values invites six spellings. An enum turns a "
        "guess into a choice.",
        "`sort: {type: string, description: \"one of 'asc' or 'desc'\"}`",
        '`sort: {type: string, enum: ["asc", "desc"]}`; `date_from` described as "First day, '
        'YYYY-MM-DD; any spelling is read, an ambiguous one is asked about".',
        levels=(
            (
                "major",
                "the probe sent a placeholder to an advertised enum and it was accepted silently",
            ),
        ),
    ),
)
def _strict_types(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    """Against the input schema discovery publishes (`whole`), where a runtime that lists less
    (drivable leaves `format` and `pattern` out of tools/list) keeps all of it; else the listed."""
    schema = h.input_schema(tool)
    whole = _discovered_schema(ctx, str(tool.get("name", ""))) or schema
    subject = tool_subject(tool)
    for pname, raw, node, doc, types in _properties(tool):
        if not types and not any(k in node for k in ("enum", "const", "$ref", "allOf")):
            yield finding(
                "3.strict-types",
                "minor",
                subject,
                f"Property `{pname}` has no type.",
                {"property": pname, "schema": raw},
                f"Give `{pname}` a `type` (and `enum` or `format` where it applies).",
            )
        listed = h.prose_values(schema, node, doc)
        if listed:
            many = types == {"array"}
            yield finding(
                "3.strict-types",
                "minor",
                subject,
                f"`{pname}` is {'a free list of strings' if many else 'free text'} but its "
                "description lists the allowed values: a value spelled otherwise is not refused.",
                {"property": pname, "schema": raw, "listed": listed},
                f"Make `{pname}`"
                + (" an array whose `items` are" if many else "")
                + f" an `enum` of the values its description lists ({', '.join(listed[:5])}).",
            )
        if (
            types == {"string"}
            and h.is_date_property(pname, node)
            and not _date_form_said(node)
            and not _date_form_said(sch.resolve(whole, sch.properties(whole).get(pname, {})))
        ):
            yield finding(
                "3.strict-types",
                "minor",
                subject,
                f"Date-like `{pname}` is a plain string that does not say how it is written.",
                {"property": pname, "schema": raw},
                f"Say in `{pname}`'s description how a date is written (`YYYY-MM-DD`), or that "
                "any spelling is read and an ambiguous one is asked about.",
            )
        if types == {"number"} and h.NUMERIC_COUNT_NAME.match(pname):
            yield finding(
                "3.strict-types",
                "minor",
                subject,
                f"Count `{pname}` is `number`, so 2.5 is valid.",
                {"property": pname, "schema": raw},
                f'Make `{pname}` `"type": "integer"` with `minimum`/`maximum`.',
            )


def _discovered_schema(ctx: StaticContext, name: str) -> dict[str, Any] | None:
    meta = (ctx.surface.get("discover") or {}).get("_meta")
    tools = meta.get("dev.drivable/tools") if isinstance(meta, dict) else None
    entry = tools.get(name) if isinstance(tools, dict) else None
    schema = entry.get("inputSchema") if isinstance(entry, dict) else None
    return schema if isinstance(schema, dict) else None


DIALECT_2020_12 = re.compile(r"^https?://json-schema\.org/draft/2020-12/schema#?$")


def _other_draft_keywords(schema: dict[str, Any]) -> list[str]:
    """Where the schema uses a keyword that 2020-12 reads otherwise, or ignores."""
    found: list[str] = []
    for at in sch.walk(schema):
        node, pointer = at.schema, at.pointer
        if isinstance(node.get("items"), list):
            found.append(f"{pointer}: array `items`")
        for key in ("additionalItems", "dependencies", "$recursiveRef", "$recursiveAnchor"):
            if key in node:
                found.append(f"{pointer}: `{key}`")
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(node.get(key), bool):
                found.append(f"{pointer}: boolean `{key}`")
    return found


@RULES.per_tool(
    "3.dialect",
    "Declare `$schema` dialect.",
    "a",
    doc=RuleDoc(
        "nit",
        "static",
        "An input schema is read as JSON Schema 2020-12, MCP's default dialect, unless it "
        "declares another with `$schema`. A schema without `$schema` is fine; one that declares "
        "an older draft, or leaves it out while using keywords that mean something else (or "
        "nothing) in 2020-12 (array `items`, `additionalItems`, `dependencies`, "
        "`$recursiveRef`, a boolean `exclusiveMinimum`), is reported "
        "(docs/decisions/0027-the-runtime-wins-over-the-checklist.md).",
        "Hosts must support 2020-12 and need support nothing else: a schema written for draft-07 "
        "is checked by 2020-12 rules, where tuple `items` and `dependencies` no longer constrain "
        "anything.",
        '`"items": [{"type": "string"}, {"type": "integer"}]` with no `$schema`.',
        "Write 2020-12 keywords (`prefixItems`, `dependentRequired`, `$defs`); leave `$schema` out "
        "or declare 2020-12.",
        levels=(
            (
                "minor",
                "the schema declares no `$schema` but uses keywords whose meaning differs in "
                "2020-12, so it is checked otherwise than written",
            ),
        ),
    ),
)
def _dialect(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    schema = h.input_schema(tool)
    declared = schema.get("$schema")
    if isinstance(declared, str) and not DIALECT_2020_12.match(declared):
        yield finding(
            "3.dialect",
            "nit",
            tool_subject(tool),
            f"inputSchema declares `{declared}`, not MCP's default dialect (2020-12).",
            {"$schema": declared},
            "Write the schema in JSON Schema 2020-12 and leave `$schema` out (or declare "
            "2020-12): hosts must support that dialect and need support no other.",
        )
        return
    if declared is not None:
        return
    keywords = _other_draft_keywords(schema)
    if keywords:
        yield finding(
            "3.dialect",
            "minor",
            tool_subject(tool),
            "inputSchema has no `$schema`, so it is read as 2020-12, but uses keywords that "
            "mean something else there: " + ", ".join(keywords[:3]) + ".",
            {"keywords": keywords[:10]},
            "Rewrite them in 2020-12 (`prefixItems` for array `items`, `items` for "
            "`additionalItems`, `dependentRequired`/`dependentSchemas` for `dependencies`, "
            "`$dynamicRef` for `$recursiveRef`, a number for `exclusiveMinimum`).",
        )


@RULES.per_tool(
    "3.portable-schema",
    "Prefer flat closed objects/enums/discriminators over deep anyOf/oneOf, recursive `$ref`, patternProperties.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Schemas prefer flat closed objects and enums over deep anyOf/oneOf, recursive `$ref` "
        "and patternProperties.",
        "Several hosts flatten or reject complex schemas; what survives is not what you wrote.",
        "A `oneOf` of four object shapes nested two levels deep.",
        "Flatten to a discriminator (`kind` enum) plus closed per-kind fields, or split the tool.",
    ),
)
def _portable(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    schema = h.input_schema(tool)
    problems: list[str] = []
    for at in sch.walk(schema):
        node, pointer, depth = at.schema, at.pointer, at.depth
        if "patternProperties" in node:
            problems.append(f"{pointer}: patternProperties")
        for key in ("anyOf", "oneOf"):
            branches = [
                b for b in node.get(key) or [] if isinstance(b, dict) and b.get("type") != "null"
            ]
            if len(branches) > 2 or (len(branches) > 1 and depth > 1):
                problems.append(f"{pointer}: {key} of {len(branches)} at depth {depth}")
        ref = node.get("$ref")
        if isinstance(ref, str) and pointer.startswith(ref[1:]):
            problems.append(f"{pointer}: recursive $ref {ref}")
    if problems:
        yield finding(
            "3.portable-schema",
            "minor",
            tool_subject(tool),
            "Schema uses constructs several hosts flatten or reject.",
            {"constructs": problems[:10]},
            "Flatten to closed objects with a discriminator enum; avoid patternProperties and "
            "recursive $ref.",
        )


@RULES.per_tool(
    "3.closed-schemas",
    "`additionalProperties: false` on all object schemas unless documented.",
    "a+b",
    doc=RuleDoc(
        "major",
        "static+probe",
        "Every object schema (root, nested, `$defs`) says `additionalProperties: false`; the "
        "probe sends an unknown property and expects a rejection naming it.",
        "Models add properties they believe exist. An open schema drops them silently: the model "
        "thinks its filter applied and reports wrong results.",
        '`{"type": "object", "properties": {"query": ...}}` and `{"query": "x", '
        '"year": 2020}` accepted with `year` ignored.',
        'Add `additionalProperties: false` at every object level (pydantic: `extra="forbid"`) '
        "and reject unknown keys with the field named.",
        levels=(
            (
                "minor",
                "only nested objects are open, or no probe confirmed that an unknown property is accepted (the report says which)",
            ),
        ),
    ),
)
def _closed(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    schema = h.input_schema(tool)
    open_nodes = [
        node.pointer
        for node in sch.object_nodes(schema)
        if not sch.is_closed(node.schema) and not sch.is_open_map(node.schema)
    ]
    if open_nodes:
        root_open = "/" in open_nodes
        yield finding(
            "3.closed-schemas",
            "major" if root_open else "minor",
            tool_subject(tool),
            f"{len(open_nodes)} object schema(s) accept unknown properties"
            + (" (including the root)." if root_open else "."),
            {"open_objects": open_nodes[:10], "inputSchema": trimmed_schema(schema)},
            "Add `additionalProperties: false` at "
            + ", ".join(f"`{p}`" for p in open_nodes[:5])
            + ' (pydantic: `model_config = ConfigDict(extra="forbid")`).',
        )


@RULES.per_tool(
    "3.output-schema",
    "Per tool: `outputSchema` + conforming `structuredContent`; carve-out only for non-parseable output (image/audio/prose), noted; JSON text fallback.",
    "a+b+c",
    doc=RuleDoc(
        "major",
        "static+probe",
        "Every tool whose answer is data declares an `outputSchema`, and successful probe "
        "results carry `structuredContent` that conforms to it. A tool seen answering prose (a "
        "diff, a page of markdown) is not asked for one.",
        "Structured output is what a model (or its code) branches on; without a schema it parses "
        "prose and the format drifts.",
        "A search tool returning only a text block.",
        "Declare `outputSchema` and return `structuredContent` with a JSON text mirror in "
        "`content`.",
        levels=(
            (
                "minor",
                "no probe saw the tool's answer (not called, or offline); a tool seen answering prose is not reported",
            ),
        ),
    ),
)
def _output_schema(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    if not isinstance(tool.get("outputSchema"), dict):
        yield finding(
            "3.output-schema",
            "major",
            tool_subject(tool),
            "No outputSchema: the result shape is undeclared.",
            {"outputSchema": None},
            f"Declare an `outputSchema` for `{tool.get('name', '')}` and return conforming "
            "`structuredContent` (plus a JSON text mirror).",
        )
