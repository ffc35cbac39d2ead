"""§8 Token efficiency (pagination, detail, cache hints) and §9 Versioning (fingerprint, lifecycle)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding, tool_subject
from drivable.audit.rules.declare import Rules

OFFSET_PARAM = re.compile(r"^(offset|page|page_number|skip|start)$", re.I)
LIMIT_PARAM = re.compile(r"^(limit|page_size|pagesize|max_results|top|per_page|count|size)$", re.I)
TIERS = {"stable", "preview", "experimental"}
DEPRECATION_KEYS = {"since", "removal_at_or_after", "replaced_by", "migration"}
HOUSE_PAGINATION = {"has_more", "hasMore", "total", "estimated_total", "limit", "next_cursor"}

RULES = Rules()


def _lifecycle(item: dict[str, Any]) -> dict[str, Any] | None:
    meta = item.get("_meta")
    if not isinstance(meta, dict):
        return None
    for key, value in meta.items():
        if key.endswith("/lifecycle") and isinstance(value, dict):
            return value
    return None


def _listing(tool: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(name, input properties) of a tool whose verb lists, else None."""
    name = str(tool.get("name", ""))
    if h.verb_of(name) not in h.LISTING_VERBS:
        return None
    return name, sch.properties(h.input_schema(tool))


def _first_pages(ctx: StaticContext) -> Iterator[tuple[str, dict[str, Any]]]:
    """(method, first page) of each native list, on a server of the 2026-07-28 era."""
    if ctx.offline or ctx.surface.get("era") != "2026-07-28":
        return
    for method, pages in ctx.surface.get("list_results", {}).items():
        for page in pages[:1]:
            yield method, page


@RULES.per_tool(
    "8.concise-default",
    'Concise default + `detail` toggle (`"summary"` or `"full"`), not `response_format`.',
    "a+b",
    doc=RuleDoc(
        "nit",
        "static",
        "List and search tools default to concise rows with a `detail` toggle (`summary`|`full`).",
        "Most turns need ids and titles; full rows on every call waste the context.",
        "`search_cases(query)` returning full texts.",
        "Add `detail: enum [summary, full]`, default `summary`.",
    ),
)
def _concise_default(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    listing = _listing(tool)
    if listing and "detail" not in listing[1]:
        name, props = listing
        yield finding(
            "8.concise-default",
            "nit",
            tool_subject(tool),
            f"`{name}` has no `detail` toggle.",
            {"properties": sorted(props)},
            f"Add `detail` (enum `summary`|`full`, default `summary`) to `{name}`.",
        )


@RULES.per_tool(
    "8.cursor-pagination",
    "Cursor pagination default; offset only small+stable.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "List and search tools page with an opaque `cursor` (offset only for small stable sets) "
        "and bound the page with `limit`.",
        "An unbounded list floods the context; offset paging skips or repeats rows when data "
        "moves.",
        "`list_invoices()` returning every invoice.",
        "Add `cursor` (opaque, from `next_cursor`) and `limit` (integer, default 20, maximum 100).",
        levels=(("nit", "the list pages by offset: it works, but a cursor is safer"),),
    ),
)
def _cursor_pagination(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    listing = _listing(tool)
    if listing is None:
        return
    name, props = listing
    if any(h.is_cursor_property(p, n) for p, n in props.items()):
        return
    offset = [p for p in props if OFFSET_PARAM.match(p)]
    yield finding(
        "8.cursor-pagination",
        "minor" if not offset else "nit",
        tool_subject(tool),
        f"`{name}` lists without a cursor"
        + (f" (offset paging via `{offset[0]}`)." if offset else "."),
        {"properties": sorted(props)},
        f"Add `cursor` (opaque, echoed from `next_cursor`) to `{name}`"
        + ("" if any(LIMIT_PARAM.match(p) for p in props) else " and a bounded `limit`")
        + ".",
    )


@RULES.static(
    "8.native-pagination",
    "Native lists: `cursor`/`nextCursor`, absence = done; no house fields there.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "static",
        "Native list results use only `nextCursor`; no house fields (`has_more`, `total`).",
        "Clients read `nextCursor` only; house fields on native lists are ignored or misread.",
        "`tools/list` returning `hasMore: true`.",
        "Drop the house fields from native lists; use `nextCursor`.",
    ),
)
def _native_pagination(ctx: StaticContext) -> Iterator[Finding]:
    for method, page in _first_pages(ctx):
        house = sorted(HOUSE_PAGINATION & set(page))
        if house:
            yield finding(
                "8.native-pagination",
                "minor",
                "server",
                f"{method} carries house pagination fields: {', '.join(house)}.",
                {"fields": house},
                "Use only `nextCursor` on native lists.",
            )


@RULES.static(
    "8.cacheable-results",
    "Honest `ttlMs` + `cacheScope` on discover, 4 lists, resources/read; `private` if auth-varying; never cache MRTR.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "On 2026-07-28, discover and list results carry `ttlMs` and `cacheScope`.",
        "Without cache hints a client re-lists on every turn or caches forever.",
        "A tools/list result with no `ttlMs`.",
        "Return honest `ttlMs` and `cacheScope` (`private` when the list depends on auth).",
    ),
)
def _cache_hints(ctx: StaticContext) -> Iterator[Finding]:
    for method, page in _first_pages(ctx):
        if "ttlMs" not in page or "cacheScope" not in page:
            yield finding(
                "8.cacheable-results",
                "minor",
                "server",
                f"{method} result has no cache hints.",
                {"result_keys": sorted(page)},
                f"Return `ttlMs` and `cacheScope` on {method}.",
            )


@RULES.per_tool(
    "8.ap-response-format",
    "Anti-pattern: parallel format contracts.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "No `response_format` parameter (parallel format contracts).",
        "Two formats mean two contracts to keep in step; models pick the wrong one.",
        "`response_format: markdown|json`.",
        "Return structuredContent always; use `detail` for density.",
    ),
)
def _response_format(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    props = sch.properties(h.input_schema(tool))
    if "response_format" in props:
        yield finding(
            "8.ap-response-format",
            "minor",
            tool_subject(tool),
            "`response_format` keeps parallel output contracts.",
            {"property": props["response_format"]},
            "Drop `response_format`; return structuredContent and use `detail` for density.",
        )


@RULES.static(
    "9.fingerprint",
    "Publish a fingerprint when clients cache/pin the surface.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "A surface fingerprint is published (discover, serverInfo `_meta` or the summary).",
        "Caching and pinning clients need one string that changes whenever the surface does.",
        "No fingerprint anywhere in discovery.",
        "Publish `<server>@<version>+<hash of the surface>` in discovery `_meta`.",
    ),
)
def _fingerprint(ctx: StaticContext) -> Iterator[Finding]:
    if ctx.offline:
        return
    blob = json.dumps(
        [ctx.surface.get("discover"), ctx.server, ctx.instructions, ctx.capabilities], default=str
    ).lower()
    if "fingerprint" not in blob:
        yield finding(
            "9.fingerprint",
            "minor",
            "server",
            "No surface fingerprint in discovery, serverInfo or the summary.",
            {"discover_keys": sorted((ctx.surface.get("discover") or {}).keys())},
            "Publish a fingerprint `<name>@<version>+<hash>` in discovery `_meta`.",
        )


RULES.declare(
    "9.list-changed",
    "Advertise `listChanged`; emit `*/list_changed` to listeners; honest `ttlMs`.",
    "a+b",
    doc=RuleDoc(
        "nit",
        "probe",
        "A server whose catalog changes advertises `listChanged` for it: the probes list tools, "
        "resources and prompts again, and a different set of items under a capability without "
        "`listChanged: true` is reported. A static catalog need not advertise it "
        "(docs/decisions/0027-the-runtime-wins-over-the-checklist.md).",
        "A client that knows the list can change listens instead of re-listing; one told nothing "
        "keeps the first list and calls tools that are gone.",
        "`capabilities.tools = {}` and a second tools/list with a tool the first did not have.",
        "Advertise `listChanged: true` for every list that can change, and notify on changes.",
    ),
)

RULES.declare(
    "9.deterministic-order",
    "Stable list ordering.",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "Listing twice returns the same items in the same order (tools, resources, prompts).",
        "Order drives cache keys, diffs and the model's attention; a shuffled list looks like a "
        "new surface every time.",
        "Tools built from a `set()`.",
        "Sort the catalog by name (or a stable declared order) before returning it.",
    ),
)


@RULES.per_tool(
    "9.deprecated-discoverable",
    "Deprecated items stay listed with marker + replacement.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "A tool whose description says deprecated carries a lifecycle marker with its replacement.",
        "Prose deprecation is invisible to code and easy to miss for a model.",
        '`"description": "DEPRECATED, use v2"` and no `_meta` marker.',
        "Add the lifecycle marker with `replaced_by`.",
    ),
)
def _deprecated_in_prose(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    description = str(tool.get("description") or "")
    if _lifecycle(tool) is None and re.search(r"\bdeprecated\b", description, re.I):
        yield finding(
            "9.deprecated-discoverable",
            "minor",
            tool_subject(tool),
            "Deprecated in prose only.",
            {"description": str(tool.get("description"))[:300]},
            'Add `_meta["<domain>/lifecycle"]` with a deprecation marker and `replaced_by`.',
        )


@RULES.per_tool(
    "9.stability-tiers",
    "Closed set `stable`/`preview`/`experimental`; deprecated is not a tier.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Lifecycle `stability` is one of `stable`, `preview`, `experimental`.",
        "A closed set is something a client can branch on; `beta` or `deprecated` is not.",
        '`{"stability": "deprecated"}`',
        "Use the closed set; deprecation goes in the `deprecation` marker.",
    ),
)
def _stability_tier(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    life = _lifecycle(tool)
    if life is not None and life.get("stability") not in TIERS:
        stability = life.get("stability")
        yield finding(
            "9.stability-tiers",
            "minor",
            tool_subject(tool),
            f"Lifecycle stability `{stability}` is not one of stable/preview/experimental.",
            {"lifecycle": life},
            "Use `stable`, `preview` or `experimental`.",
        )


@RULES.per_tool(
    "9.deprecation-marker",
    "`{since, removal_at_or_after, replaced_by|null, migration}`; replaced_by in record's id space.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "A deprecation marker has `since`, `removal_at_or_after`, `replaced_by`, `migration`.",
        "A model moves off a deprecated tool only if the marker names the replacement.",
        '`{"deprecation": {"since": "2026-01"}}`',
        "Fill all four keys; `replaced_by` names a real tool or null.",
    ),
)
def _deprecation_marker(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    life = _lifecycle(tool)
    dep = life.get("deprecation") if life is not None else None
    if not isinstance(dep, dict):
        return
    if not set(dep) >= DEPRECATION_KEYS:
        yield finding(
            "9.deprecation-marker",
            "minor",
            tool_subject(tool),
            "Deprecation marker is incomplete.",
            {"deprecation": dep, "missing": sorted(DEPRECATION_KEYS - set(dep))},
            "Fill since, removal_at_or_after, replaced_by, migration.",
        )
    elif dep.get("replaced_by") not in (None, *ctx.tool_names):
        yield finding(
            "9.deprecation-marker",
            "minor",
            tool_subject(tool),
            f"`replaced_by` names `{dep.get('replaced_by')}`, which is not a tool.",
            {"deprecation": dep},
            "Name a listed tool in `replaced_by`, or null.",
        )


@RULES.static(
    "9.tier-metadata",
    'Tier + marker under `_meta["<reverse-dns>/lifecycle"]` on Tool/Resource/Template/Prompt.',
    "a",
    doc=RuleDoc(
        "nit",
        "static",
        'Tools carry lifecycle metadata under `_meta["<reverse-dns>/lifecycle"]`.',
        "A model avoids experimental tools for important work only if it can see the tier.",
        "No `_meta` lifecycle on any tool.",
        'Add `_meta["com.example/lifecycle"] = {"stability": "stable"}`.',
    ),
)
def _tier_metadata(ctx: StaticContext) -> Iterator[Finding]:
    if ctx.tools and not any(_lifecycle(t) for t in ctx.tools):
        yield finding(
            "9.tier-metadata",
            "nit",
            "server",
            "No tool carries lifecycle metadata.",
            {"tools": len(ctx.tools)},
            'Add `_meta["<your.domain>/lifecycle"] = {"stability": "stable"}` to each tool.',
        )
