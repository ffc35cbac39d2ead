"""§3 Tools: the rules a reviewer decides (28), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "3.constraint-separation",
    "Each constraint its own explicit-strength sentence on observable behaviour; no narrative mixing.",
    "a+c",
    question="Does each constraint in a description stand in its own sentence about observable behaviour?",
)
RULES.declare(
    "3.stringified-shim",
    "Coerce stringified container args only with host evidence, bounded, logged; never widen schema.",
    "a+b",
    question="If stringified containers are coerced, is there host evidence for it, and is the coercion bounded and logged?",
)
RULES.declare(
    "3.output-schema-scope",
    "`outputSchema` binds success only; `isError` results carry §6 envelope; document per tool.",
    "a+b",
    question="Is it documented that `outputSchema` binds successes only and errors carry the envelope?",
)
RULES.declare(
    "3.structured-default",
    "Structured output authoritative; object shape default.",
    "b",
    question="Is structured output the authoritative answer, with an object shape by default?",
)
RULES.declare(
    "3.advertised-fields",
    "Required/always-present fields actually appear on the wire.",
    "b",
    question="Do the fields the output schema requires actually appear in every answer?",
)
RULES.declare(
    "3.content-types",
    "Machine fields in `structuredContent`; `content` for rendering/fallback.",
    "b+c",
    question="Are machine fields in `structuredContent` and `content` kept for rendering and fallback?",
)
RULES.declare(
    "3.resource-links",
    "Large/binary → summary + `resource_link` (uri, name, description, mimeType, size, lastModified).",
    "b+c",
    question="Are large or binary results returned as a summary plus a `resource_link` with size and type?",
)
RULES.declare(
    "3.content-annotations",
    "audience/priority/lastModified steer attention, never correctness.",
    "c",
    question="Do content annotations only steer attention, never carry something the answer depends on?",
)
RULES.declare(
    "3.mutation-scope",
    "`readOnlyHint` = no state outliving the response; TTL-scoped private artifacts don't count.",
    "c",
    question="Does `readOnlyHint: true` mean no state outlives the response on every such tool?",
)
RULES.declare(
    "3.document-reading",
    "Document the chosen `readOnlyHint` reading; apply consistently.",
    "c",
    question="Is the chosen reading of `readOnlyHint` documented and applied to every tool alike?",
)
RULES.declare(
    "3.large-results",
    "Large results as resources/links with TTL; local artifact last resort.",
    "b+c",
    question="Are large results offered as resources or links with a lifetime, local files only as a last resort?",
)
RULES.declare(
    "3.artifact-disclosure",
    "Disclose artifacts via structured field + description; local paths only for co-located stdio.",
    "b+c",
    question="Are artifacts a call leaves behind disclosed in a structured field and the description?",
)
RULES.declare(
    "3.annotations-not-security",
    "Annotations are hints; enforce access in code.",
    "c",
    question="Is access enforced in code, with annotations only as hints?",
)
RULES.declare(
    "3.annotation-visibility",
    "Annotations may be hidden; never sole safety signal.",
    "c",
    question="Would the tools stay safe on a host that hides annotations from the user?",
)
RULES.declare(
    "3.dispatched-vs-applied",
    "Unconfirmed mutations return dispatch fact + status + `follow_up` (repair shape); timeout ≠ failure.",
    "b+c",
    question="Does an unconfirmed mutation return the dispatch fact, a status and a follow-up, and treat a timeout as unknown?",
)
RULES.declare(
    "3.partial-success",
    "Multi-item: declare atomic vs per-item; per-item id/outcome/retryability; retry failed only.",
    "c",
    question="Does each multi-item tool declare atomic or per-item outcome, with per-item ids and retryability?",
)
RULES.declare(
    "3.patch-ops",
    "Large docs edited via bounded, version-guarded patch ops; dry-run/diff where costly.",
    "c",
    question="Are large documents edited by bounded, version-guarded patch operations?",
)
RULES.declare(
    "3.task-completing",
    "Tools map to user tasks, not API endpoints.",
    "c",
    question="Does each tool do a task a user asks for, not one endpoint of an API?",
)
RULES.declare(
    "3.hide-steps",
    "Expose the task, not internal steps.",
    "c",
    question="Are internal steps hidden behind the task instead of exposed as separate tools?",
)
RULES.declare(
    "3.failure-contract",
    "Repair signals in error results, not description prose.",
    "b+c",
    question="Are repair signals in the error results rather than in description prose?",
)
RULES.declare(
    "3.declare-params",
    "Every parameter read is declared; hidden inputs in implicit-state declaration.",
    "c",
    question="Is every input the handler reads declared in the schema or the implicit-state declaration?",
)
RULES.declare(
    "3.ap-readonly-substitute",
    "Anti-pattern: flipping `readOnlyHint` instead of disclosing artifacts.",
    "c",
    question="Is `readOnlyHint` left honest instead of flipped to avoid disclosing artifacts?",
)
RULES.declare(
    "3.sec-untrusted-content",
    "External content untrusted; output must not smuggle instructions.",
    "c",
    question="Is external content marked untrusted, so it cannot smuggle instructions through the output?",
)
RULES.declare(
    "3.sec-sanitize",
    "Strip credentials/control sequences/parser-breaking content.",
    "b",
    question="Are credentials, control sequences and parser-breaking content stripped from answers?",
)
RULES.declare(
    "3.sec-exfiltration",
    "Data-flow review for open-world tools.",
    "c",
    question="Has the data flow of every open-world tool been reviewed for exfiltration?",
)
RULES.declare(
    "3.sec-least-privilege",
    "Minimal scopes; insufficient-scope repair distinct.",
    "b+c",
    question="Does the server ask for the minimal scopes, with a distinct repair for insufficient scope?",
)
RULES.declare(
    "3.sec-handle-modes",
    "Handles = high-entropy server refs or integrity-protected tokens; no creds/internal ids; re-check authz each use.",
    "b+c",
    question="Are handles high-entropy references or integrity-protected tokens, never credentials or internal ids?",
)
RULES.declare(
    "3.sec-bounded",
    "Only agent-facing security rules; threat modelling elsewhere.",
    "c",
    question="Are the agent-facing security rules kept here and threat modelling left to its own review?",
)
