"""§2 Discovery Primitives: the rules a reviewer decides (13), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "2.discover-first",
    "`server/discover` is the first read; summary, catalogs, fingerprint must agree with it; summary explains the path to house surfaces.",
    "a+b",
    question="Do the summary, the catalogs and the fingerprint agree with what `server/discover` returns?",
)
RULES.declare(
    "2.instructions-advisory",
    "`instructions` never sole carrier of essential selection/prereq/safety/repair info.",
    "c",
    question="Would a client that ignores `instructions` still find every essential prerequisite, safety note and repair elsewhere?",
)
RULES.declare(
    "2.rules-then-context",
    "Summary prose: scope, then one rule per sentence with explicit strength, no hedges, background last.",
    "a+c",
    question="Does the summary give scope first, then one rule per sentence with explicit strength, background last?",
)
RULES.declare(
    "2.progressive-disclosure",
    "Disclosure is client-dependent; design for a preloading client; choose by cost axis.",
    "c",
    question="Was the disclosure strategy chosen for a client that preloads every definition, by its cost?",
)
RULES.declare(
    "2.pd-host",
    "`search_tools`/`describe_tool` help only if host withholds definitions; document host; retrieval phrasing only with eval evidence.",
    "c",
    question="If there are `search_tools`/`describe_tool` helpers, is there a host that withholds definitions to justify them?",
)
RULES.declare(
    "2.pd-server",
    "Reveal tools only on declared state changes + `list_changed` + honest `ttlMs`; stable fallback; never as hidden side effect.",
    "b+c",
    question="Are tools revealed only on declared state changes with `list_changed` and an honest `ttlMs`, never as a hidden side effect?",
)
RULES.declare(
    "2.selective",
    "Narrowing via discovery tool/catalog/config/auth scope, labelled; `tools/list` has no filters.",
    "a+c",
    question="Is narrowing of the catalog done by a labelled discovery tool, config or auth scope rather than filters on `tools/list`?",
)
RULES.declare(
    "2.token-rules",
    "Discovery tools' own payloads paginate, filter, default concise.",
    "a+b",
    question="Do discovery tools page, filter and default to a concise answer?",
)
RULES.declare(
    "2.client-variance",
    "Usable by least-capable realistic client.",
    "c",
    question="Can the least capable realistic client (no resources, no prompts, no sampling) still do the main tasks?",
)
RULES.declare(
    "2.index-not-bodies",
    "Catalog entries hold triage metadata, not bodies.",
    "a",
    question="Do catalog entries carry triage metadata only, with bodies fetched on demand?",
)
RULES.declare(
    "2.surface-is-contract",
    "Rename/move/remove of a tool is a versioned change.",
    "c",
    question="Is a rename, move or removal of a tool released as a versioned change?",
)
RULES.declare(
    "2.resource-catalog",
    "Resource catalog authoritative and consistent.",
    "b+c",
    question="Is the resource catalog complete and consistent with what reads return?",
)
RULES.declare(
    "2.auth-scoped-stable",
    "Catalog may vary by auth, never by unrelated calls; same principal+metadata → same list, same order.",
    "b",
    question="For the same principal, is the catalog the same list in the same order regardless of earlier calls?",
)
