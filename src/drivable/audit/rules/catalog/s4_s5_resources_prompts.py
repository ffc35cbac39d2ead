"""§4 Resources and §5 Prompts: 26 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    ("4.uri-stable", "Stable, hierarchical, predictable URIs.", "a+b"),
    ("4.uri-nouns", "URI segments = stable domain nouns, not deployment ids.", "a+c"),
    ("4.index-vs-body", "Lists give enough metadata to decide whether to read.", "a"),
    ("4.summary-first", "Large resources: summary before body.", "b+c"),
    ("4.chunkable", "Bodies chunkable with stable ids (fetch N+1 without N).", "b+c"),
    (
        "4.chunk-stability",
        "Chunk ids stable per version; changes visible via modification metadata.",
        "b",
    ),
    (
        "4.chunk-fetch-path",
        "Each chunk has own URI + template (or labelled tool); in-band `next_chunk_id`/`next_chunk_uri`.",
        "a+b",
    ),
    (
        "4.triage-metadata",
        "Native title/description/mimeType/size/lastModified; custom under namespaced `_meta`.",
        "a",
    ),
    (
        "4.templates",
        "Publish `resources/templates/list` (uriTemplate, name, title, description, mimeType).",
        "a",
    ),
    ("4.template-completion", "Completion for dynamic template vars when negotiated.", "a+b"),
    ("4.short-summaries", "Resource summaries ≤ 3 sentences.", "a"),
    ("4.description-constraints", "Resource descriptions follow constraint-separation.", "a+c"),
    (
        "4.subscriptions",
        "Mutable resources: `resources.subscribe`, `resourceSubscriptions` listen filter, `resources/updated` with subscriptionId; honest `ttlMs`.",
        "a+b+c",
    ),
    (
        "4.failure-contract",
        "Resource cred/not-found/gone/rate-limit failures machine-readable.",
        "b",
    ),
    (
        "4.jsonrpc-errors",
        "Resource failures = JSON-RPC error with unified envelope in `error.data`.",
        "b",
    ),
    ("4.tool-fallback", "Tool fallback to same content, usable from `tools/list` alone.", "a+c"),
    ("4.token-rules", "Resource paging/filter/truncation per §8 (pointer).", "b"),
    ("4.write-is-tool", 'Writable "resources" must be tools.', "c"),
    ("5.when-to-use", "Say when the prompt applies.", "a+c"),
    ("5.prerequisites", "List needed tools, resources, permissions, context.", "a+c"),
    ("5.completion", "Completion for dynamic prompt args.", "a+b"),
    ("5.name-followups", "Name follow-on tools/resources canonically.", "a+b"),
    ("5.scaffolding-only", "Prompts are scaffolding; essentials live in schemas.", "c"),
    ("5.no-redefine", "Reference tools, never redefine contracts/args.", "b+c"),
    ("5.optional", "Prompts optional; never load-bearing.", "c"),
    ("5.ap-contract-container", "Anti-pattern: required behaviour only in prompt text.", "c"),
)
