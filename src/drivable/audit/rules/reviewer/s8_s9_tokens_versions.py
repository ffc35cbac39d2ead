"""§8 Token Efficiency and §9 Versioning and Compatibility: the rules a reviewer decides (19), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "8.detail-orthogonal",
    "Detail changes density not shape; concise keys ⊂ full keys; no renames.",
    "b",
    question="Does the detail toggle change density only, the concise keys a subset of the full ones?",
)
RULES.declare(
    "8.detail-row-count",
    "Detail never changes row count; ranged results need own bound.",
    "b",
    question="Does the detail toggle never change how many rows come back?",
)
RULES.declare(
    "8.cursor-lifetime",
    "Declare cursor lifetime, `cursor_expired` + restart guidance, snapshot semantics.",
    "b+c",
    question="Are cursor lifetime, `cursor_expired` with restart guidance and snapshot semantics declared?",
)
RULES.declare(
    "8.house-pagination",
    "Tool results may use labelled `has_more`/`next_cursor`/`estimated_total` in structuredContent.",
    "a+b",
    question="Are `has_more`, `next_cursor` and `estimated_total` labelled in structuredContent where tools page?",
)
RULES.declare(
    "8.filters",
    "Filters that really shrink output (`since`, `query`, …).",
    "a+b",
    question="Do the filters a tool offers really shrink its output?",
)
RULES.declare(
    "8.truncation",
    "`truncated` + `truncation_hint` naming narrowing params; ≠ `has_more`.",
    "b",
    question="Does a truncated answer say so with `truncated` and a hint naming the parameters that narrow it?",
)
RULES.declare(
    "8.identifier-roles",
    "Readable domain ids; opaque handles and security refs.",
    "c",
    question="Are domain ids readable and handles opaque, each used in its role?",
)
RULES.declare(
    "8.per-capability-detail",
    "Summary-before-full at every level.",
    "c",
    question="Is a summary offered before the full form at every level (catalog, list, item)?",
)
RULES.declare(
    "8.strip-nulls",
    "Concise mode drops null/default fields (except mandated ones).",
    "b",
    question="Does the concise form drop null and default fields that are not mandated?",
)
RULES.declare(
    "8.locale-independent",
    "RFC3339 UTC, ISO-4217 + minor units, stable sort keys.",
    "a+b",
    question="Are times RFC 3339 in UTC, money ISO 4217 with minor units, and sort keys stable?",
)
RULES.declare(
    "8.ap-fixed-prose",
    "Anti-pattern: same prose block on every response.",
    "b",
    question="Is no fixed block of prose repeated on every response?",
)
RULES.declare(
    "9.list-vs-update",
    "`list_changed` (catalog) vs `resources/updated` (body).",
    "b+c",
    question="Is `list_changed` used for the catalog and `resources/updated` for bodies, never the other way?",
)
RULES.declare(
    "9.fingerprint-additive",
    "Fingerprint never replaces notifications/cache hints/ordering.",
    "a+c",
    question="Does the fingerprint add to notifications, cache hints and ordering rather than replace them?",
)
RULES.declare(
    "9.fingerprint-coverage",
    "Covers all agent-visible surface incl. descriptions; disclose via `covers`.",
    "a+c",
    question="Does the fingerprint cover every agent-visible part of the surface, descriptions included, and say what it covers?",
)
RULES.declare(
    "9.deprecation-semantics",
    "Commit to and publish a deprecation window.",
    "a+c",
    question="Is a deprecation window committed to and published?",
)
RULES.declare(
    "9.additive-direction",
    "Removal/rename breaking; new output fields need rediscovery signal.",
    "c",
    question="Are removals and renames treated as breaking, and do new output fields come with a rediscovery signal?",
)
RULES.declare(
    "9.rename",
    "Rename = remove + add with alias window; sweep all references.",
    "a+c",
    question="Is a rename shipped as remove plus add with an alias window, and are all references swept?",
)
RULES.declare(
    "9.error-codes",
    "Error codes are versioned surface.",
    "c",
    question="Are error codes versioned as part of the surface?",
)
RULES.declare(
    "9.fingerprint-format",
    "Fingerprint computation itself stable.",
    "c",
    question="Is the way the fingerprint is computed itself kept stable?",
)
