"""§6 Failure Recovery: 22 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    ("6.symbolic-codes", "Stable symbolic string codes as branch key.", "b"),
    (
        "6.jsonrpc-code-allocation",
        "-32020..-32099 only spec-assigned; -32000..-32019 closed; custom outside -32768..-32000; never -32002/-32042.",
        "b",
    ),
    (
        "6.document-codes",
        "Document per-tool codes; critical ones inline, full catalog on demand.",
        "a+b",
    ),
    (
        "6.code-changes-breaking",
        "New code additive; changed meaning breaking; both in fingerprint.",
        "c",
    ),
    ("6.field-feedback", "Which field, why, allowed values.", "b"),
    (
        "6.offending-value",
        "`details.value` only if known-safe (server-minted or enum member); blanket omission OK only if disclosed.",
        "b+c",
    ),
    (
        "6.retryability",
        "`temporary`, `retry_after_ms` (int ≥0 or null; null if not temporary), `rate_limit_remaining`.",
        "b",
    ),
    ("6.repair-hints", "Include the next corrective call/param/filter.", "b"),
    (
        "6.repair-intent",
        "Known fix → repair same tool with original args + minimal correction.",
        "b",
    ),
    (
        "6.repair-callable",
        "Repair names real tools/params/values; literal args, no placeholders; lookup tool first if needed.",
        "b",
    ),
    (
        "6.capability-missing",
        "Undeclared capability → -32021 (HTTP 400) `data.requiredCapabilities` + named fallback.",
        "b",
    ),
    (
        "6.elicitation",
        "Elicit only in declared modes via MRTR; no secrets via form (URL mode); fallback for non-eliciting clients.",
        "b+c",
    ),
    (
        "6.tool-errors",
        "Semantic tool errors = `isError: true`; JSON-RPC only for admissibility (-32602, -32022, -32020, -32021).",
        "b",
    ),
    ("6.resource-errors", "Resource errors JSON-RPC with same envelope in `error.data`.", "b"),
    ("6.name-carrier", "Summary names where the error envelope travels.", "a+c"),
    (
        "6.correlation",
        "`request_id`, offending param, resource URI (OTel keys don't replace `request_id`).",
        "b",
    ),
    (
        "6.rename",
        "JSON-RPC side must rename `code`→`machine_code`, `message`→`human_message`; disclosure doesn't waive.",
        "b",
    ),
    (
        "6.details-field",
        "`field` = published inputSchema path (dotted) or `fields` array; exactly one; `uri` for resources.",
        "b",
    ),
    (
        "6.presence",
        "Required fields always present (`retry_after_ms` nullable); optional omitted, never null/empty.",
        "b",
    ),
    (
        "6.repair-object",
        "`repair` single object `{next_step, tool, arguments, alternative?}`; omit if none.",
        "b",
    ),
    (
        "6.degraded-carrier",
        "Envelope in `content[0].text` only as a disclosed framework-forced mode.",
        "b+c",
    ),
    ("6.no-recoverable", "No `recoverable` flag.", "a+b"),
)
