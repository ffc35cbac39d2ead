"""§2 Discovery: the capability summary, catalog size in bytes and tokens, pagination, completion."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding
from drivable.audit.rules.declare import Rules

NEGATIVE = re.compile(
    r"\b(does not|doesn't|do not|cannot|can't|never|not (for|supported|available)|out of scope)\b",
    re.I,
)
SUMMARY_TOOL = re.compile(r"(summary|capabilit|help|about|describe_server|server_info)", re.I)
# Budgets are reviewer defaults, not universal thresholds; they say where a catalog starts to cost.
TOKENS_PER_TOOL_BUDGET = 600
CATALOG_TOOL_BUDGET = 40

RULES = Rules()


def _has_summary_surface(ctx: StaticContext) -> bool:
    if ctx.instructions.strip():
        return True
    for res in ctx.surface.get("resources", []):
        if SUMMARY_TOOL.search(str(res.get("uri", "")) + " " + str(res.get("name", ""))):
            return True
    return any(SUMMARY_TOOL.search(name) for name in ctx.tool_names)


def _mentions_fingerprint(value: Any) -> bool:
    return "fingerprint" in json.dumps(value, default=str).lower()


@RULES.static(
    "2.summary",
    "Concise capability summary (does / does not / prerequisites) via resource, tool, or `instructions`.",
    "a+c",
    doc=RuleDoc(
        "major",
        "static",
        "A capability summary exists: `instructions` in discovery, or a summary resource or tool.",
        "A cold-start model chooses its first call from the summary: what the server does, what "
        "it does not, and what must happen first. Without it the first call is a guess.",
        "No `instructions`, no `*://summary` resource, no `describe_server` tool.",
        "Return `instructions` (or a summary resource) with: scope, does / does not, "
        "prerequisites, the first call to make.",
        levels=(("minor", "the server has three tools or fewer: its list is most of the summary"),),
    ),
)
def _summary(ctx: StaticContext) -> Iterator[Finding]:
    tools = ctx.tools
    if ctx.offline and not ctx.instructions:
        ctx.note(2, "offline dump: summary not checked")
    elif not _has_summary_surface(ctx):
        yield finding(
            "2.summary",
            # With two or three tools the list itself is the summary a model needs.
            "major" if len(tools) > 3 else "minor",
            "server",
            "No capability summary: no instructions, no summary resource or tool.",
            {"instructions": ctx.surface.get("instructions"), "tools": sorted(ctx.tool_names)[:20]},
            "Return `instructions` from discovery: what the server does, what it does not do, "
            "prerequisites, and which tool to call first"
            + (f" (e.g. `{sorted(ctx.tool_names)[0]}`)." if tools else "."),
        )


@RULES.static(
    "2.negative-scope",
    "State what the server does NOT do.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "The summary says what the server does NOT do.",
        "Models over-reach: without a stated boundary they try the nearest tool for a job the "
        "server cannot do, and report its wrong answer.",
        '`instructions: "Search court decisions."` (nothing on what is out of scope).',
        "Add one sentence: `It does not cover legislation or administrative rulings.`",
    ),
)
def _negative_scope(ctx: StaticContext) -> Iterator[Finding]:
    if (ctx.offline and not ctx.instructions) or not _has_summary_surface(ctx):
        return  # 2.summary says it
    if ctx.instructions and not NEGATIVE.search(ctx.instructions):
        yield finding(
            "2.negative-scope",
            "minor",
            "server",
            "The summary never says what the server does not do.",
            {"instructions": ctx.instructions[:400]},
            "Add one sentence of negative scope to `instructions`, e.g. `It does not ...`.",
        )
    else:
        ctx.note(2, "capability summary present")


@RULES.static(
    "2.compact-baseline",
    "Minimise serialized size of each Tool; measure wire `tools/list` bytes/tokens (watch outputSchemas, `$defs`).",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "The serialized `tools/list` is measured in bytes and in o200k tokens (offline "
        "tokenizer); more than 600 tokens per tool on average is a finding.",
        "A preloading host pays the whole catalog on every turn before the first useful call.",
        "Output schemas with inlined `$defs` repeated in every tool.",
        "Trim descriptions to rules, share small enums, drop `title` keys pydantic emits, keep "
        "outputSchemas flat.",
    ),
)
def _compact_baseline(ctx: StaticContext) -> Iterator[Finding]:
    tools = ctx.tools
    if not tools:
        return
    size = int(ctx.surface.get("tools_list_bytes") or 0)
    per_tool = ctx.tokens / len(tools)
    ctx.note(
        2,
        f"tools/list: {len(tools)} tools, {size} bytes, {ctx.tokens} tokens (o200k), "
        f"{per_tool:.0f} tokens/tool",
    )
    if per_tool > TOKENS_PER_TOOL_BUDGET:
        heaviest = sorted(
            tools, key=lambda t: len(json.dumps(t, separators=(",", ":"))), reverse=True
        )[:3]
        yield finding(
            "2.compact-baseline",
            "minor",
            "server",
            f"tools/list costs {per_tool:.0f} tokens per tool ({ctx.tokens} tokens, "
            f"{size} bytes in all).",
            {
                "tools_list_bytes": size,
                "tools_list_tokens": ctx.tokens,
                "tokenizer": "o200k_base",
                "heaviest_tools": [
                    {"name": t.get("name"), "bytes": len(json.dumps(t, separators=(",", ":")))}
                    for t in heaviest
                ],
            },
            f"Shrink the heaviest tools first ({', '.join(str(t.get('name')) for t in heaviest)}):"
            " shorter descriptions, no repeated `$defs`, no pydantic `title` keys.",
        )


@RULES.static(
    "2.pagination",
    "Paginate big catalogs (scalability, not tokens); native `nextCursor`; deterministic order.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "static+probe",
        "Large catalogs (more than 100 entries in one page) paginate with `nextCursor`; an "
        "invented `tools/list` cursor is rejected.",
        "A client with a small context can walk the catalog in pages; an invented cursor that "
        "returns the first page again loops forever.",
        "300 tools in one `tools/list` page.",
        "Page `tools/list` with an opaque `nextCursor`; reject unknown cursors with -32602.",
    ),
)
def _pagination(ctx: StaticContext) -> Iterator[Finding]:
    tools = ctx.tools
    pages = ctx.surface.get("list_results", {}).get("tools/list", [])
    if len(pages) == 1 and len(tools) > 100:
        yield finding(
            "2.pagination",
            "minor",
            "server",
            f"tools/list returns {len(tools)} tools in a single page.",
            {"pages": 1, "tools": len(tools)},
            "Paginate tools/list with an opaque `nextCursor`.",
        )


@RULES.static(
    "2.pd-reduction",
    "Shrink catalog for all clients: consolidation, compact `{operation, arguments}` dispatcher (not fat union), narrow servers, auth scopes.",
    "a+c",
    doc=RuleDoc(
        "major",
        "static",
        "Catalogs of more than 40 tools are reduced (consolidation, narrow servers, scopes).",
        "Tool-choice accuracy falls as confusable tools pile up; every tool costs tokens.",
        "A 60-tool catalog that mirrors REST endpoints.",
        "Consolidate endpoint-shaped tools into task tools, or split the server by audience.",
    ),
)
def _reduction(ctx: StaticContext) -> Iterator[Finding]:
    tools = ctx.tools
    if len(tools) > CATALOG_TOOL_BUDGET:
        yield finding(
            "2.pd-reduction",
            "major",
            "server",
            f"The catalog has {len(tools)} tools with no reduction.",
            {"tool_count": len(tools), "sample": sorted(ctx.tool_names)[:15]},
            "Consolidate endpoint-shaped tools into task tools, or split the server by audience.",
        )


@RULES.static(
    "2.completion",
    "Advertise `completions` + `completion/complete` for dynamic prompt args/template vars.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "static",
        "Prompts with arguments and templates with variables come with the `completions` "
        "capability.",
        "Without completion a model must guess the valid values of a prompt argument or a URI "
        "variable.",
        "`resources/templates/list` has `case://{court}/{id}` and no `completions` capability.",
        "Advertise `completions` and answer `completion/complete` for each variable.",
    ),
)
def _template_completion(ctx: StaticContext) -> Iterator[Finding]:
    if ctx.offline or "completions" in ctx.capabilities:
        return
    templates = [t for t in ctx.surface.get("resource_templates", []) if "{" in str(t)]
    if templates:
        yield finding(
            "2.completion",
            "minor",
            "server",
            f"{len(templates)} resource templates have variables but `completions` is not "
            "advertised.",
            {"templates": [t.get("uriTemplate") for t in templates[:10]]},
            "Advertise the `completions` capability and complete each template variable.",
        )


@RULES.static(
    "2.fingerprint-in-discovery",
    "Published fingerprint appears in discovery responses.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "A published fingerprint appears in discovery (`server/discover`, serverInfo or the "
        "summary).",
        "A caching client compares one string to know whether its copy of the surface is stale.",
        "A summary that mentions a fingerprint that discovery does not carry.",
        'Put `<server>@<version>+<hash>` in `_meta["<your.domain>/fingerprint"]` of discovery.',
    ),
)
def _fingerprint_in_discovery(ctx: StaticContext) -> Iterator[Finding]:
    discover = ctx.surface.get("discover")
    if _mentions_fingerprint(ctx.instructions) and not (
        _mentions_fingerprint(discover or {}) or _mentions_fingerprint(ctx.server)
    ):
        yield finding(
            "2.fingerprint-in-discovery",
            "minor",
            "server",
            "The summary talks of a fingerprint that discovery does not carry.",
            {"discover": discover, "serverInfo": ctx.server},
            "Carry the fingerprint in `_meta` of `server/discover` (and of serverInfo).",
        )
