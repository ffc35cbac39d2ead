"""§2 Discovery Primitives: 20 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "2.summary",
        "Concise capability summary (does / does not / prerequisites) via resource, tool, or `instructions`.",
        "a+c",
    ),
    (
        "2.discover-first",
        "`server/discover` is the first read; summary, catalogs, fingerprint must agree with it; summary explains the path to house surfaces.",
        "a+b",
    ),
    (
        "2.instructions-advisory",
        "`instructions` never sole carrier of essential selection/prereq/safety/repair info.",
        "c",
    ),
    ("2.negative-scope", "State what the server does NOT do.", "a+c"),
    (
        "2.rules-then-context",
        "Summary prose: scope, then one rule per sentence with explicit strength, no hedges, background last.",
        "a+c",
    ),
    (
        "2.compact-baseline",
        "Minimise serialized size of each Tool; measure wire `tools/list` bytes/tokens (watch outputSchemas, `$defs`).",
        "a+c",
    ),
    (
        "2.pagination",
        "Paginate big catalogs (scalability, not tokens); native `nextCursor`; deterministic order.",
        "a+b",
    ),
    (
        "2.progressive-disclosure",
        "Disclosure is client-dependent; design for a preloading client; choose by cost axis.",
        "c",
    ),
    (
        "2.pd-host",
        "`search_tools`/`describe_tool` help only if host withholds definitions; document host; retrieval phrasing only with eval evidence.",
        "c",
    ),
    (
        "2.pd-server",
        "Reveal tools only on declared state changes + `list_changed` + honest `ttlMs`; stable fallback; never as hidden side effect.",
        "b+c",
    ),
    (
        "2.pd-reduction",
        "Shrink catalog for all clients: consolidation, compact `{operation, arguments}` dispatcher (not fat union), narrow servers, auth scopes.",
        "a+c",
    ),
    (
        "2.selective",
        "Narrowing via discovery tool/catalog/config/auth scope, labelled; `tools/list` has no filters.",
        "a+c",
    ),
    (
        "2.completion",
        "Advertise `completions` + `completion/complete` for dynamic prompt args/template vars.",
        "a+b",
    ),
    ("2.token-rules", "Discovery tools' own payloads paginate, filter, default concise.", "a+b"),
    ("2.client-variance", "Usable by least-capable realistic client.", "c"),
    ("2.index-not-bodies", "Catalog entries hold triage metadata, not bodies.", "a"),
    ("2.surface-is-contract", "Rename/move/remove of a tool is a versioned change.", "c"),
    ("2.resource-catalog", "Resource catalog authoritative and consistent.", "b+c"),
    ("2.fingerprint-in-discovery", "Published fingerprint appears in discovery responses.", "a"),
    (
        "2.auth-scoped-stable",
        "Catalog may vary by auth, never by unrelated calls; same principal+metadata → same list, same order.",
        "b",
    ),
)
