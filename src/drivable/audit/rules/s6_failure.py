"""§6 Failure recovery and drivable's own `dv.*` probe rules: decided by the probes
(`drivable.audit.probes`), which report them by id."""

from __future__ import annotations

from drivable.audit.rules.base import RuleDoc
from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "6.tool-errors",
    "Semantic tool errors = `isError: true`; JSON-RPC only for admissibility (-32602, -32022, -32020, -32021).",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "A call with bad arguments comes back as a tool result with `isError: true`, not as a "
        "JSON-RPC error; and a failed call is never answered as a success (error text with "
        "`isError: false`). The probes that should fail (a missing field, placeholders, a "
        "malformed id, a well-formed id nobody has, an invented cursor) are judged by their text "
        '("Error: ...", a traceback line) or by a plain return wrapped as `structuredContent: '
        '{"result": "Error: ..."}`, as FastMCP and the SDK\'s MCPServer send a `-> str` tool\'s.',
        "Many hosts show JSON-RPC errors to the user, not the model; the model never learns what "
        "to fix. An error told as a success is taken as the answer: the model reports it as data.",
        '`{"error": {"code": -32602, "message": "Invalid params"}}` for a missing field; '
        '`return f"Error: no note {note_id}"` from a tool annotated `-> str`.',
        "Catch validation failures in the handler and return `isError: true` with the envelope; "
        "raise (FastMCP: `ToolError`) instead of returning error text.",
    ),
)

RULES.declare(
    "6.symbolic-codes",
    "Stable symbolic string codes as branch key.",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "An error result carries the envelope (a stable symbolic `code`, a `message`) as JSON in "
        "its first text block, the carrier every client reads.",
        "A model branches on a code; prose error strings change wording and cannot be branched on.",
        '`content: [{text: "Error executing tool: 1 validation error ..."}]` only.',
        'Return `isError: true` with `content: [{type: "text", text: \'{"code": "invalid_argument", '
        '"message": ..., "hint": ..., "issues": [...]}\'}]`; add `structuredContent` to an error '
        "only if it validates against the tool's outputSchema (drivable's runtime sends none).",
        levels=(
            (
                "minor",
                "the error is prose that says what went wrong (20 characters or more): a model can recover, but cannot branch on it",
            ),
        ),
    ),
)

RULES.declare(
    "6.field-feedback",
    "Which field, why, allowed values.",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "The error names the failing field (`issues[].path` or `details.field`) and says what "
        "was expected.",
        "Without the field the model changes the wrong argument, or all of them.",
        '`{code: invalid_argument, message: "bad input"}` for an unknown property `yeer`.',
        'Add `issues: [{path: "yeer", code: "unknown_property", expected: ...}]`.',
    ),
)

RULES.declare(
    "6.repair-hints",
    "Include the next corrective call/param/filter.",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "An error says the next call: a `hint` or a `repair` naming a real tool.",
        "First-repair success depends on the model knowing what to do next, not only what went "
        "wrong.",
        "`{code: not_found}` and nothing else for an unknown id.",
        'Add `hint: "Call list_invoices to find the id."` and `repair: {tool: "list_invoices", '
        "arguments: {...}}`.",
    ),
)

RULES.declare(
    "6.repair-callable",
    "Repair names real tools/params/values; literal args, no placeholders; lookup tool first if needed.",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "A `repair` names a tool that exists with arguments that validate against its input "
        "schema; the first-repair probe calls it (when it is safe to).",
        "A repair the model cannot call is worse than none: it spends a turn on a dead end.",
        '`repair: {tool: "lookup_invoice"}` when the catalog has `get_invoice`.',
        "Name the real tool and literal, schema-valid arguments.",
        levels=(("minor", "`repair` is there but not one object"),),
    ),
)

RULES.declare(
    "6.retryability",
    "`temporary`, `retry_after_ms` (int ≥0 or null; null if not temporary), `rate_limit_remaining`.",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "The envelope says whether retrying helps: `temporary` (bool) and `retry_after_ms`.",
        "Without it a model retries permanent errors and gives up on temporary ones.",
        "`{code: rate_limited, message}` with no retry information.",
        "Add `temporary: true, retry_after_ms: 2000` (or `false, null`).",
    ),
)

RULES.declare(
    "6.correlation",
    "`request_id`, offending param, resource URI (OTel keys don't replace `request_id`).",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "The envelope carries a `request_id`.",
        "Support and logs meet on one id; the model can quote it to a human.",
        "An error with no request id.",
        "Add `request_id` to every error envelope.",
    ),
)

RULES.declare(
    "6.presence",
    "Required fields always present (`retry_after_ms` nullable); optional omitted, never null/empty.",
    "b",
    doc=RuleDoc(
        "nit",
        "probe",
        "Optional envelope fields are omitted, never null or empty (except `retry_after_ms`).",
        "Null fields cost tokens and read as meaningful.",
        "`repair: null, details: {}`.",
        "Omit empty optional fields.",
    ),
)

RULES.declare(
    "6.no-recoverable",
    "No `recoverable` flag.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "probe",
        "No `recoverable` flag in an error (use `temporary` + a repair).",
        "`recoverable` conflates retrying with repairing; models read it as `retry as is`.",
        "`{recoverable: true}`.",
        "Replace with `temporary` and a `repair`.",
    ),
)

RULES.declare(
    "6.resource-errors",
    "Resource errors JSON-RPC with same envelope in `error.data`.",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "Reading an unknown resource gives a JSON-RPC error with the envelope in `error.data`.",
        "A resource read that fails with a bare message leaves the model with no next step.",
        "`-32603 Internal error` for an unknown URI.",
        'Return -32602 with `data: {machine_code: "not_found", human_message, ...}`.',
    ),
)

RULES.declare(
    "6.jsonrpc-code-allocation",
    "-32020..-32099 only spec-assigned; -32000..-32019 closed; custom outside -32768..-32000; never -32002/-32042.",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "JSON-RPC error codes stay out of the reserved bands (-32000..-32019 closed, never "
        "-32002/-32042 for new work).",
        "Clients attach meaning to reserved codes; a custom code there is misread.",
        "`-32001` for a custom not-found.",
        "Use -32602 for invalid params / not found, custom codes outside -32768..-32000.",
    ),
)

RULES.declare(
    "6.details-field",
    "`field` = published inputSchema path (dotted) or `fields` array; exactly one; `uri` for resources.",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "The field named by an error is a real path of the published input schema.",
        "A model maps the field back to its call; a field name the schema does not have cannot "
        "be fixed.",
        '`issues: [{path: "body.args.qty"}]` for a top-level `quantity`.',
        "Name the field by its inputSchema path (dotted).",
    ),
)

RULES.declare(
    "6.degraded-carrier",
    "Envelope in `content[0].text` only as a disclosed framework-forced mode.",
    "b+c",
    doc=RuleDoc(
        "minor",
        "probe",
        "An error's envelope is in the first text block, not only in `structuredContent` or "
        "`_meta`.",
        "Clients that show a model only `content` (most of them) turn an envelope kept elsewhere "
        "into an empty or prose error.",
        '`{"isError": true, "content": [{"text": "failed"}], "structuredContent": {"code": ...}}`.',
        "Serialise the envelope as JSON into `content[0].text`.",
    ),
)

RULES.declare(
    "dv.error-shape",
    "",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "An error result that carries `structuredContent` has it validate against the tool's "
        "`outputSchema`.",
        "TypeScript SDK 1.x clients validate structuredContent against the outputSchema even when "
        "`isError` is true, and throw: the model sees a client failure instead of the error.",
        "A search tool whose outputSchema requires `results` answering an error with "
        '`structuredContent: {"code": "invalid_arguments", ...}`.',
        "Send errors with no structuredContent and the envelope as JSON text (drivable's runtime "
        "does; Python SDK/FastMCP: raise `ToolError` or return `CallToolResult(isError=True, "
        "content=[...])`; TypeScript: return `{isError: true, content: [...]}` without "
        "`structuredContent`).",
    ),
)

RULES.declare(
    "dv.substrate-leak",
    "",
    "b",
    doc=RuleDoc(
        "critical",
        "probe",
        "No answer (content or structuredContent, success or error) leaks the substrate: SQL or "
        "driver errors, tracebacks, file paths, exception class names, a runtime's raw "
        "exception messages (a junk cursor answered `Incorrect padding`), framework validation "
        "dumps.",
        "A leak tells an attacker the stack and tells the model nothing it can act on; models "
        "then echo internals to users.",
        '`sqlite3.OperationalError: near "x": syntax error` in an error text.',
        "Catch at the tool boundary and map to the closed envelope; log internals to stderr with "
        "a request id.",
        levels=(
            (
                "major",
                "an internal path (site-packages, node_modules) in an error, or a language "
                "runtime's raw exception message (`Incorrect padding`, `invalid literal for "
                "int()`, `Cannot read properties of undefined`)",
            ),
            (
                "minor",
                "an exception class name, a file path or a framework validation dump that does not name the field",
            ),
        ),
    ),
)

RULES.declare(
    "dv.ambiguous-date",
    "",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "An ambiguous date (`01/02/2026`) is neither silently guessed nor rejected without the "
        "two readings: the server asks (error with both readings) or accepts with a note.",
        "January 2nd and February 1st are both plausible; a silent guess is a wrong answer the "
        "model cannot detect.",
        '`date_from: "01/02/2026"` accepted with no note.',
        'Return `ambiguous_date` with `readings: ["2026-01-02", "2026-02-01"]`, or accept ISO '
        "only and say so.",
    ),
)

RULES.declare(
    "dv.cursor-validation",
    "",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "A damaged cursor is rejected with a code and a hint to restart paging; an invented one "
        "is rejected too, or read as no cursor with a note that says so.",
        "A server that treats a bad cursor as page one makes the model read page one twice and "
        "believe it saw everything.",
        '`cursor: "invented"` returns the first page.',
        "Make cursors opaque and signed; reject unknown ones with `invalid_cursor` and a repair "
        "that restarts without `cursor`.",
    ),
)

RULES.declare(
    "dv.cold-start",
    "",
    "b",
    doc=RuleDoc(
        "minor",
        "probe",
        "Cold start: tokens a model reads before its first useful call, and whether that first "
        "call (the most likely read tool, with the schema's own values) succeeds.",
        "Cold-start first-call success is the outcome the checklist is tuned for.",
        "A first call that fails because the only example in the schema is invalid.",
        "Give the first tool a literal example and defaults that work.",
    ),
)

RULES.declare(
    "dv.probe-crash",
    "",
    "b",
    doc=RuleDoc(
        "major",
        "probe",
        "A probe call makes the server fail hard: the connection drops, or the call times out "
        "on input that should fail fast.",
        "A model's malformed call must never take the server down for the next call.",
        "The server process exits on `{}`.",
        "Validate before work; catch everything at the tool boundary.",
    ),
)
