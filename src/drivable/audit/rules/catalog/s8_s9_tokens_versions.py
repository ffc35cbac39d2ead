"""§8 Token Efficiency and §9 Versioning and Compatibility: 31 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "8.concise-default",
        'Concise default + `detail` toggle (`"summary"` or `"full"`), not `response_format`.',
        "a+b",
    ),
    (
        "8.detail-orthogonal",
        "Detail changes density not shape; concise keys ⊂ full keys; no renames.",
        "b",
    ),
    ("8.detail-row-count", "Detail never changes row count; ranged results need own bound.", "b"),
    ("8.cursor-pagination", "Cursor pagination default; offset only small+stable.", "a+c"),
    (
        "8.cursor-lifetime",
        "Declare cursor lifetime, `cursor_expired` + restart guidance, snapshot semantics.",
        "b+c",
    ),
    (
        "8.native-pagination",
        "Native lists: `cursor`/`nextCursor`, absence = done; no house fields there.",
        "a+b",
    ),
    (
        "8.cacheable-results",
        "Honest `ttlMs` + `cacheScope` on discover, 4 lists, resources/read; `private` if auth-varying; never cache MRTR.",
        "a+c",
    ),
    (
        "8.house-pagination",
        "Tool results may use labelled `has_more`/`next_cursor`/`estimated_total` in structuredContent.",
        "a+b",
    ),
    ("8.filters", "Filters that really shrink output (`since`, `query`, …).", "a+b"),
    ("8.truncation", "`truncated` + `truncation_hint` naming narrowing params; ≠ `has_more`.", "b"),
    ("8.identifier-roles", "Readable domain ids; opaque handles and security refs.", "c"),
    ("8.per-capability-detail", "Summary-before-full at every level.", "c"),
    ("8.strip-nulls", "Concise mode drops null/default fields (except mandated ones).", "b"),
    ("8.locale-independent", "RFC3339 UTC, ISO-4217 + minor units, stable sort keys.", "a+b"),
    ("8.ap-response-format", "Anti-pattern: parallel format contracts.", "a"),
    ("8.ap-fixed-prose", "Anti-pattern: same prose block on every response.", "b"),
    ("9.fingerprint", "Publish a fingerprint when clients cache/pin the surface.", "a+c"),
    (
        "9.list-changed",
        "Advertise `listChanged`; emit `*/list_changed` to listeners; honest `ttlMs`.",
        "a+b",
    ),
    ("9.list-vs-update", "`list_changed` (catalog) vs `resources/updated` (body).", "b+c"),
    ("9.deterministic-order", "Stable list ordering.", "b"),
    (
        "9.fingerprint-additive",
        "Fingerprint never replaces notifications/cache hints/ordering.",
        "a+c",
    ),
    (
        "9.fingerprint-coverage",
        "Covers all agent-visible surface incl. descriptions; disclose via `covers`.",
        "a+c",
    ),
    ("9.deprecation-semantics", "Commit to and publish a deprecation window.", "a+c"),
    ("9.deprecated-discoverable", "Deprecated items stay listed with marker + replacement.", "a+c"),
    (
        "9.additive-direction",
        "Removal/rename breaking; new output fields need rediscovery signal.",
        "c",
    ),
    ("9.rename", "Rename = remove + add with alias window; sweep all references.", "a+c"),
    (
        "9.stability-tiers",
        "Closed set `stable`/`preview`/`experimental`; deprecated is not a tier.",
        "a",
    ),
    (
        "9.deprecation-marker",
        "`{since, removal_at_or_after, replaced_by|null, migration}`; replaced_by in record's id space.",
        "a",
    ),
    (
        "9.tier-metadata",
        'Tier + marker under `_meta["<reverse-dns>/lifecycle"]` on Tool/Resource/Template/Prompt.',
        "a",
    ),
    ("9.error-codes", "Error codes are versioned surface.", "c"),
    ("9.fingerprint-format", "Fingerprint computation itself stable.", "c"),
)
