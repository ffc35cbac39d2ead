"""§4 Resources and §5 Prompts: the rules a reviewer decides (18), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "4.uri-stable",
    "Stable, hierarchical, predictable URIs.",
    "a+b",
    question="Are resource URIs stable, hierarchical and predictable across versions?",
)
RULES.declare(
    "4.summary-first",
    "Large resources: summary before body.",
    "b+c",
    question="Does a large resource offer a summary before its body?",
)
RULES.declare(
    "4.chunkable",
    "Bodies chunkable with stable ids (fetch N+1 without N).",
    "b+c",
    question="Can a client fetch chunk N+1 of a large body without fetching chunk N?",
)
RULES.declare(
    "4.chunk-stability",
    "Chunk ids stable per version; changes visible via modification metadata.",
    "b",
    question="Are chunk ids stable within a version, with changes visible in modification metadata?",
)
RULES.declare(
    "4.chunk-fetch-path",
    "Each chunk has own URI + template (or labelled tool); in-band `next_chunk_id`/`next_chunk_uri`.",
    "a+b",
    question="Does each chunk have its own URI or template and an in-band pointer to the next?",
)
RULES.declare(
    "4.template-completion",
    "Completion for dynamic template vars when negotiated.",
    "a+b",
    question="Do dynamic template variables offer completion when the client negotiates it?",
)
RULES.declare(
    "4.description-constraints",
    "Resource descriptions follow constraint-separation.",
    "a+c",
    question="Do resource descriptions state one constraint per sentence?",
)
RULES.declare(
    "4.subscriptions",
    "Mutable resources: `resources.subscribe`, `resourceSubscriptions` listen filter, `resources/updated` with subscriptionId; honest `ttlMs`.",
    "a+b+c",
    question="Do mutable resources support subscriptions with `resources/updated` and an honest `ttlMs`?",
)
RULES.declare(
    "4.failure-contract",
    "Resource cred/not-found/gone/rate-limit failures machine-readable.",
    "b",
    question="Are credential, not-found, gone and rate-limit failures of resources machine-readable?",
)
RULES.declare(
    "4.jsonrpc-errors",
    "Resource failures = JSON-RPC error with unified envelope in `error.data`.",
    "b",
    question="Are resource failures JSON-RPC errors carrying the same envelope in `error.data`?",
)
RULES.declare(
    "4.tool-fallback",
    "Tool fallback to same content, usable from `tools/list` alone.",
    "a+c",
    question="Can a client that only reads `tools/list` reach the same content through a tool?",
)
RULES.declare(
    "4.token-rules",
    "Resource paging/filter/truncation per §8 (pointer).",
    "b",
    question="Do resources page, filter and truncate by the same rules as tools?",
)
RULES.declare(
    "4.write-is-tool",
    'Writable "resources" must be tools.',
    "c",
    question="Is every write done by a tool, none by a writable resource?",
)
RULES.declare(
    "5.prerequisites",
    "List needed tools, resources, permissions, context.",
    "a+c",
    question="Does each prompt list the tools, resources, permissions and context it needs?",
)
RULES.declare(
    "5.scaffolding-only",
    "Prompts are scaffolding; essentials live in schemas.",
    "c",
    question="Are prompts scaffolding only, with everything essential in the schemas?",
)
RULES.declare(
    "5.no-redefine",
    "Reference tools, never redefine contracts/args.",
    "b+c",
    question="Do prompts reference tools without redefining their contracts or arguments?",
)
RULES.declare(
    "5.optional",
    "Prompts optional; never load-bearing.",
    "c",
    question="Does every workflow still work for a client that never uses prompts?",
)
RULES.declare(
    "5.ap-contract-container",
    "Anti-pattern: required behaviour only in prompt text.",
    "c",
    question="Is no required behaviour stated only in a prompt's text?",
)
