"""§3 Tools: 48 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "3.naming",
        "`snake_case` prefix_verb_noun (`slack_send_message`); no prefix only if all hosts namespace.",
        "a",
    ),
    ("3.verbs", "Each verb (list/get/create/update/delete/send/search) means one thing.", "a+c"),
    (
        "3.descriptions",
        "Narrow descriptions with when-to-use, edge cases, example invocation.",
        "a+c",
    ),
    (
        "3.constraint-separation",
        "Each constraint its own explicit-strength sentence on observable behaviour; no narrative mixing.",
        "a+c",
    ),
    (
        "3.param-names",
        "Disambiguated params (`user_id` not `user`, `started_after` not `since`).",
        "a+c",
    ),
    (
        "3.required-optional",
        "Required only if needed; optional params state omission semantics; `default` only if applied; partial update defines absent/null/empty + explicit clearing.",
        "a+b+c",
    ),
    ("3.strict-types", "Enums, `format`s, deliberate integer vs number.", "a+c"),
    ("3.dialect", "Declare `$schema` dialect.", "a"),
    (
        "3.portable-schema",
        "Prefer flat closed objects/enums/discriminators over deep anyOf/oneOf, recursive `$ref`, patternProperties.",
        "a",
    ),
    (
        "3.closed-schemas",
        "`additionalProperties: false` on all object schemas unless documented.",
        "a+b",
    ),
    (
        "3.stringified-shim",
        "Coerce stringified container args only with host evidence, bounded, logged; never widen schema.",
        "a+b",
    ),
    (
        "3.output-schema",
        "Per tool: `outputSchema` + conforming `structuredContent`; carve-out only for non-parseable output (image/audio/prose), noted; JSON text fallback.",
        "a+b+c",
    ),
    (
        "3.output-schema-scope",
        "`outputSchema` binds success only; `isError` results carry §6 envelope; document per tool.",
        "a+b",
    ),
    ("3.structured-default", "Structured output authoritative; object shape default.", "b"),
    ("3.advertised-fields", "Required/always-present fields actually appear on the wire.", "b"),
    (
        "3.content-types",
        "Machine fields in `structuredContent`; `content` for rendering/fallback.",
        "b+c",
    ),
    (
        "3.resource-links",
        "Large/binary → summary + `resource_link` (uri, name, description, mimeType, size, lastModified).",
        "b+c",
    ),
    (
        "3.content-annotations",
        "audience/priority/lastModified steer attention, never correctness.",
        "c",
    ),
    (
        "3.declare-effects",
        "Side effects/idempotency/rate limits via annotations + structured fields.",
        "a",
    ),
    ("3.honest-annotations", "No `readOnlyHint: true` on mutating tools.", "a+c"),
    (
        "3.annotation-defaults",
        "Know defaults (readOnly F, destructive T, idempotent F, openWorld T); declare explicitly; no destructive/idempotent on read-only; siblings consistent.",
        "a",
    ),
    (
        "3.mutation-scope",
        "`readOnlyHint` = no state outliving the response; TTL-scoped private artifacts don't count.",
        "c",
    ),
    ("3.document-reading", "Document the chosen `readOnlyHint` reading; apply consistently.", "c"),
    (
        "3.large-results",
        "Large results as resources/links with TTL; local artifact last resort.",
        "b+c",
    ),
    (
        "3.artifact-disclosure",
        "Disclose artifacts via structured field + description; local paths only for co-located stdio.",
        "b+c",
    ),
    ("3.annotations-not-security", "Annotations are hints; enforce access in code.", "c"),
    ("3.annotation-visibility", "Annotations may be hidden; never sole safety signal.", "c"),
    (
        "3.idempotency-key",
        "Costly-duplicate mutations accept `idempotency_key` with declared window/scope.",
        "a+c",
    ),
    (
        "3.dispatched-vs-applied",
        "Unconfirmed mutations return dispatch fact + status + `follow_up` (repair shape); timeout ≠ failure.",
        "b+c",
    ),
    (
        "3.partial-success",
        "Multi-item: declare atomic vs per-item; per-item id/outcome/retryability; retry failed only.",
        "c",
    ),
    (
        "3.version-precondition",
        "`expected_version`/`if_match` input, `conflict` code, repair = re-read then reapply.",
        "a+b",
    ),
    (
        "3.patch-ops",
        "Large docs edited via bounded, version-guarded patch ops; dry-run/diff where costly.",
        "c",
    ),
    ("3.task-completing", "Tools map to user tasks, not API endpoints.", "c"),
    ("3.hide-steps", "Expose the task, not internal steps.", "c"),
    ("3.failure-contract", "Repair signals in error results, not description prose.", "b+c"),
    (
        "3.declare-params",
        "Every parameter read is declared; hidden inputs in implicit-state declaration.",
        "c",
    ),
    (
        "3.code-exec-clients",
        "Import-friendly, non-colliding names; authoritative structuredContent; codes map to exceptions.",
        "a",
    ),
    (
        "3.ap-endpoint-wrapping",
        "Anti-pattern: one tool per endpoint (60 tools ≈ 6–10 tasks).",
        "a+c",
    ),
    ("3.ap-prose-effects", "Anti-pattern: effects/idempotency/rate limits only in prose.", "a+c"),
    (
        "3.ap-readonly-substitute",
        "Anti-pattern: flipping `readOnlyHint` instead of disclosing artifacts.",
        "c",
    ),
    (
        "3.ap-mode-annotations",
        "Anti-pattern: read+write `action`/`mode` enum under one annotation; split or annotate worst mode.",
        "a+c",
    ),
    (
        "3.sec-untrusted-content",
        "External content untrusted; output must not smuggle instructions.",
        "c",
    ),
    ("3.sec-sanitize", "Strip credentials/control sequences/parser-breaking content.", "b"),
    ("3.sec-exfiltration", "Data-flow review for open-world tools.", "c"),
    ("3.sec-least-privilege", "Minimal scopes; insufficient-scope repair distinct.", "b+c"),
    (
        "3.sec-confirmation",
        "Destructive/paid/external-send/broad-read ops have preconditions.",
        "c",
    ),
    (
        "3.sec-handle-modes",
        "Handles = high-entropy server refs or integrity-protected tokens; no creds/internal ids; re-check authz each use.",
        "b+c",
    ),
    ("3.sec-bounded", "Only agent-facing security rules; threat modelling elsewhere.", "c"),
)
