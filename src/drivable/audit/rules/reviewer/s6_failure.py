"""§6 Failure Recovery: the rules a reviewer decides (9), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "6.document-codes",
    "Document per-tool codes; critical ones inline, full catalog on demand.",
    "a+b",
    question="Are each tool's error codes documented, the critical ones inline and the full catalogue on demand?",
)
RULES.declare(
    "6.code-changes-breaking",
    "New code additive; changed meaning breaking; both in fingerprint.",
    "c",
    question="Are new error codes additive and a changed meaning treated as breaking, both reflected in the fingerprint?",
)
RULES.declare(
    "6.offending-value",
    "`details.value` only if known-safe (server-minted or enum member); blanket omission OK only if disclosed.",
    "b+c",
    question="Is `details.value` echoed only when known safe, and is any blanket omission disclosed?",
)
RULES.declare(
    "6.repair-intent",
    "Known fix → repair same tool with original args + minimal correction.",
    "b",
    question="When the fix is known, does the repair call the same tool with the original arguments and the minimal correction?",
)
RULES.declare(
    "6.capability-missing",
    "Undeclared capability → -32021 (HTTP 400) `data.requiredCapabilities` + named fallback.",
    "b",
    question="Does a request that needs an undeclared capability fail with -32021 and `data.requiredCapabilities` plus a fallback?",
)
RULES.declare(
    "6.elicitation",
    "Elicit only in declared modes via MRTR; no secrets via form (URL mode); fallback for non-eliciting clients.",
    "b+c",
    question="Is elicitation used only in declared modes, never for secrets in a form, with a fallback for clients that cannot elicit?",
)
RULES.declare(
    "6.name-carrier",
    "Summary names where the error envelope travels.",
    "a+c",
    question="Does the summary say where the error envelope travels (text block, `_meta`, `error.data`)?",
)
RULES.declare(
    "6.rename",
    "JSON-RPC side must rename `code`→`machine_code`, `message`→`human_message`; disclosure doesn't waive.",
    "b",
    question="Does the JSON-RPC side rename `code` to `machine_code` and `message` to `human_message`?",
)
RULES.declare(
    "6.repair-object",
    "`repair` single object `{next_step, tool, arguments, alternative?}`; omit if none.",
    "b",
    question="Is `repair` one object `{next_step, tool, arguments}` and omitted when there is none?",
)
