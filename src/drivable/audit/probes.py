"""Dynamic probes: the calls models really make, and what a good server answers to each.

Every probe prefers input that fails before the handler (schema-invalid, placeholder, unknown
property). Tools that are annotated or named as mutating are called only with `allow_writes`.
Probe payloads are drivable's own fixed values; nothing the user passed is ever logged.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import jsonschema
from mcp import Client, MCPError
from mcp import types as mt
from pydantic import ValidationError

from drivable.audit import heuristics as h
from drivable.audit.model import Finding, Severity
from drivable.audit.rules.base import finding

Outcome = Literal["error-result", "success", "jsonrpc-error", "timeout", "crash", "invalid-result"]
UNKNOWN_PROPERTY = "dv_unknown_property"
# "e.g. 'America/New_York'": the value a model would copy from the description.
DESCRIBED_EXAMPLE = re.compile(
    r"(?:e\.g\.|for example|example:|such as)[,:]?\s*['\"`]([^'\"`]{1,80})['\"`]", re.I
)
PLACEHOLDERS = {"string": "string", "integer": 0, "number": 0, "boolean": True}


@dataclass
class ProbeCall:
    probe: str
    tool: str
    arguments: dict[str, Any]
    outcome: Outcome
    field: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def evidence(self, schema: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {"probe": self.probe, "sent": self.arguments}
        if self.result is not None:
            out["answer"] = trim_answer(self.result)
        if self.error is not None:
            out["jsonrpc_error"] = self.error
        if self.outcome in ("timeout", "crash", "invalid-result"):
            out["outcome"] = self.outcome
        if schema is not None:
            out["schema"] = schema
        return out


def trim_answer(result: dict[str, Any], limit: int = 600) -> dict[str, Any]:
    out = dict(result)
    content = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            text = block["text"]
            block = {**block, "text": text if len(text) <= limit else text[:limit] + "..."}
        content.append(block)
    out["content"] = content
    sc = json.dumps(result.get("structuredContent"), default=str)
    if len(sc) > 2 * limit:
        out["structuredContent"] = sc[: 2 * limit] + "..."
    return out


# --- substrate leaks -------------------------------------------------------------------------

LEAKS: tuple[tuple[str, Severity, re.Pattern[str], bool], ...] = (
    # (category, severity, pattern, only in errors)
    (
        "traceback",
        "critical",
        re.compile(
            r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+|\n\s+at [\w.$<>]+ \(?[^)\s]+:\d+:\d+\)?"
        ),
        False,
    ),
    (
        "sql/driver error",
        "critical",
        re.compile(
            r"(sqlite3?\.\w*Error|psycopg\d?\.|OperationalError|IntegrityError|ProgrammingError|"
            r"syntax error at or near|near \"[^\"]*\": syntax error|SQLSTATE|\bORA-\d{5}|"
            r"no such (table|column)|UNIQUE constraint failed|duplicate key value violates|"
            r"SELECT .+ FROM |INSERT INTO |mysql_\w+\(|pymongo\.errors)",
            re.I,
        ),
        False,
    ),
    (
        "framework validation dump",
        "major",
        re.compile(r"(errors\.pydantic\.dev|validation errors? for \w+|input_value=|input_type=)"),
        True,
    ),
    (
        "exception class name",
        "major",
        re.compile(r"\b(?:[A-Z][a-z0-9]+){1,4}(?:Error|Exception)\b(?!\w)"),
        True,
    ),
    (
        "file path",
        "major",
        re.compile(
            r"(?<![\w./:])(/(?:home|usr|var|etc|opt|srv|root|Users|private|proc|app|tmp)/[^\s'\"),]+|"
            r"[A-Za-z]:\\\\[^\s'\"]+|site-packages|node_modules/)"
        ),
        True,
    ),
)
# Exception-ish words that are ordinary English in error messages, not class names.
BENIGN_EXCEPTION_WORDS = {"Error", "McpError"}


def answer_text(call: ProbeCall) -> str:
    parts: list[str] = []
    if call.result is not None:
        for block in call.result.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        if call.result.get("structuredContent") is not None:
            parts.append(json.dumps(call.result["structuredContent"], default=str))
    if call.error is not None:
        parts.append(json.dumps(call.error, default=str))
    return "\n".join(parts)


def leaks_in(call: ProbeCall, known: tuple[str, ...] = ()) -> list[tuple[str, Severity, str]]:
    """Substrate in the answer. `known`: values the user configured (e.g. the repository path on
    the server's command line); echoing those back is not a leak."""
    text = answer_text(call)
    if not text:
        return []
    sent = json.dumps(call.arguments)
    is_error = call.outcome in ("error-result", "jsonrpc-error")
    found: list[tuple[str, Severity, str]] = []
    for category, severity, pattern, only_errors in LEAKS:
        if only_errors and not is_error:
            continue
        for m in pattern.finditer(text):
            snippet = m.group(0)
            if snippet in sent or snippet in BENIGN_EXCEPTION_WORDS:
                continue
            if any(k and (snippet.startswith(k) or k.startswith(snippet)) for k in known):
                continue
            found.append((category, severity, snippet[:120]))
            break
    return found


# --- the error envelope ----------------------------------------------------------------------


def envelope_of(call: ProbeCall) -> tuple[dict[str, Any] | None, str]:
    """The structured error, and where it travelled: structuredContent, text, or nowhere."""
    if call.result is None:
        return None, "none"
    sc = call.result.get("structuredContent")
    if isinstance(sc, dict):
        inner = sc.get("error") if isinstance(sc.get("error"), dict) and "code" not in sc else sc
        return inner, "structuredContent"
    for block in call.result.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            try:
                parsed = json.loads(block["text"])
            except ValueError:
                continue
            if isinstance(parsed, dict):
                inner = parsed.get("error") if isinstance(parsed.get("error"), dict) else parsed
                return inner, "text"
    return None, "none"


def named_fields(envelope: dict[str, Any] | None, text: str) -> set[str]:
    names: set[str] = set()
    if envelope:
        for issue in envelope.get("issues") or []:
            if isinstance(issue, dict):
                for key in ("path", "field", "loc"):
                    v = issue.get(key)
                    if isinstance(v, list):
                        names.update(str(x) for x in v)
                        names.add(".".join(str(x) for x in v))
                    elif v is not None:
                        names.add(str(v))
        details = envelope.get("details")
        if isinstance(details, dict):
            if details.get("field"):
                names.add(str(details["field"]))
            names.update(str(f) for f in details.get("fields") or [])
    return names


def mentions_field(field_name: str, envelope: dict[str, Any] | None, text: str) -> bool:
    names = named_fields(envelope, text)
    if field_name in names or any(n.split(".")[0] == field_name for n in names):
        return True
    return bool(re.search(rf"(?<![A-Za-z0-9]){re.escape(field_name)}(?![A-Za-z0-9])", text))


# --- values ----------------------------------------------------------------------------------


PATH_NAME = re.compile(r"(path|dir|directory|repo|repository|root|folder)$", re.I)


def plausible(
    schema: dict[str, Any],
    node: dict[str, Any],
    depth: int = 0,
    name: str = "",
    dirs: tuple[str, ...] = (),
) -> Any:
    node = h.resolve(schema, node)
    if dirs and PATH_NAME.search(name) and "string" in h.types_of(node):
        return dirs[0]  # the directory the server was started on is what a model would be told
    for key in ("const",):
        if key in node:
            return node[key]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    if "default" in node and node["default"] is not None:
        return node["default"]
    examples = node.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    quoted = DESCRIBED_EXAMPLE.search(str(node.get("description") or ""))
    if quoted and "string" in h.types_of(node):
        return quoted.group(1)
    for key in ("anyOf", "oneOf"):
        branches = [
            b for b in node.get(key) or [] if isinstance(b, dict) and b.get("type") != "null"
        ]
        if branches:
            return plausible(schema, branches[0], depth + 1)
    types = h.types_of(node)
    fmt = node.get("format")
    if "string" in types or not types:
        if fmt == "date":
            return "2026-01-15"
        if fmt == "date-time":
            return "2026-01-15T10:00:00Z"
        if fmt == "uuid":
            return "00000000-0000-4000-8000-000000000000"
        if fmt == "email":
            return "someone@example.com"
        if fmt in ("uri", "url"):
            return "https://example.com/"
        size = max(int(node.get("minLength") or 0), 3)
        return ("abc" * size)[:size]
    if "integer" in types:
        return int(node.get("minimum", 1) if node.get("minimum", 1) is not None else 1)
    if "number" in types:
        return node.get("minimum", 1)
    if "boolean" in types:
        return False
    if "array" in types:
        items = node.get("items")
        if int(node.get("minItems") or 0) > 0 and isinstance(items, dict) and depth < 3:
            return [plausible(schema, items, depth + 1)]
        return []
    if "object" in types and depth < 3:
        return required_args(schema, node, depth + 1)
    return None


def required_args(
    schema: dict[str, Any], node: dict[str, Any], depth: int = 0, dirs: tuple[str, ...] = ()
) -> dict[str, Any]:
    props = h.properties(node)
    return {
        name: plausible(schema, props.get(name, {}), depth, name, dirs)
        for name in node.get("required") or []
        if isinstance(name, str)
    }


def placeholder(node: dict[str, Any]) -> Any:
    types = h.types_of(node)
    for t in ("string", "integer", "number", "boolean"):
        if t in types:
            return PLACEHOLDERS[t]
    if "array" in types:
        return ["string"]
    if "object" in types:
        return {}
    return "string"


# --- the suite -------------------------------------------------------------------------------


@dataclass
class ProbePlan:
    probe: str
    arguments: dict[str, Any]
    field: str | None


def plan_for(tool: dict[str, Any], dirs: tuple[str, ...] = ()) -> list[ProbePlan]:
    schema = h.input_schema(tool)
    props = h.properties(schema)
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    base = required_args(schema, schema, dirs=dirs)
    plans = [ProbePlan("baseline", base, None)]
    if required:
        plans.append(ProbePlan("empty-call", {}, required[0]))
    plans.append(ProbePlan("unknown-property", {**base, UNKNOWN_PROPERTY: "x"}, UNKNOWN_PROPERTY))
    if props:
        filled = {name: placeholder(h.resolve(schema, node)) for name, node in props.items()}
        # An enum that does not list "string" must refuse it: that is the field to name.
        enum_field = next(
            (
                name
                for name, node in props.items()
                if isinstance(h.resolve(schema, node).get("enum"), list)
                and filled[name] not in h.resolve(schema, node)["enum"]
            ),
            None,
        )
        plans.append(ProbePlan("placeholders", filled, enum_field))
    for name, raw in props.items():
        node = h.resolve(schema, raw)
        types = h.types_of(node)
        if types & {"integer", "number"} and not any(p.probe == "spelled-number" for p in plans):
            plans.append(ProbePlan("spelled-number", {**base, name: "4 000"}, name))
        if h.is_date_property(name, node) and not any(p.probe == "spelled-date" for p in plans):
            plans.append(ProbePlan("spelled-date", {**base, name: "1. 10. 2026"}, name))
            plans.append(ProbePlan("ambiguous-date", {**base, name: "01/02/2026"}, name))
        if h.is_id_property(name, node) and not any(p.probe == "malformed-id" for p in plans):
            plans.append(ProbePlan("malformed-id", {**base, name: "%%not-an-id%%"}, name))
        if h.is_cursor_property(name, node) and not any(
            p.probe == "invented-cursor" for p in plans
        ):
            plans.append(
                ProbePlan("invented-cursor", {**base, name: "dv-invented-cursor-0001"}, name)
            )
    return plans


async def call_raw(
    client: Client, name: str, arguments: dict[str, Any], timeout: float
) -> ProbeCall:
    """One tools/call as the wire answered it: no output-schema check by the client, no retries."""
    call = ProbeCall("", name, arguments, "crash")
    session = client.session
    adapter = getattr(session, "_call_tool_adapter", None)
    try:
        with anyio.fail_after(timeout):
            if adapter is not None:
                result: Any = await session.send_request(
                    mt.CallToolRequest(
                        params=mt.CallToolRequestParams(name=name, arguments=arguments)
                    ),
                    adapter,
                )
            else:  # pragma: no cover - SDK internals moved; the public call still works
                result = await client.call_tool(name, arguments)
    except MCPError as exc:
        call.outcome = "jsonrpc-error"
        call.error = {"code": exc.code, "message": exc.message, "data": exc.data}
        return call
    except TimeoutError:
        call.outcome = "timeout"
        return call
    except ValidationError as exc:
        call.outcome = "invalid-result"
        call.error = {"message": f"result does not match the protocol: {exc.error_count()} errors"}
        return call
    except Exception as exc:  # the connection itself failed: evidence, not a crash of the audit
        call.outcome = "crash"
        call.error = {"message": f"{type(exc).__name__}"}
        return call
    if isinstance(result, mt.CallToolResult):
        call.result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        call.outcome = "error-result" if result.is_error else "success"
    else:
        call.outcome = "success"
        call.result = {"resultType": getattr(result, "result_type", "?")}
    return call


@dataclass
class ProbeState:
    tools: dict[str, dict[str, Any]]
    allow_writes: bool
    findings: list[Finding] = field(default_factory=list)
    calls: list[ProbeCall] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    seen: set[tuple[str, str]] = field(default_factory=set)
    envelope_gaps: dict[str, list[str]] = field(default_factory=dict)
    first_repair: dict[str, Any] | None = None
    cold_start: dict[str, Any] | None = None
    known: tuple[str, ...] = ()
    dirs: tuple[str, ...] = ()
    baseline_ok: dict[str, bool] = field(default_factory=dict)

    def once(self, rule: str, subject: str) -> bool:
        key = (rule, subject)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def add(
        self,
        rule: str,
        severity: Severity,
        subject: str,
        summary: str,
        evidence: Any,
        remediation: str,
        *,
        key: str | None = None,
    ) -> None:
        if self.once(rule, key or subject):
            self.findings.append(finding(rule, severity, subject, summary, evidence, remediation))


COLD_START_VERBS = ("search", "list", "find", "get")


def first_safe_tool(tools: dict[str, dict[str, Any]]) -> str | None:
    """The call a model most likely makes first: a search or list tool it is safe to call."""
    reads = [n for n, t in tools.items() if not h.is_mutating(t)]
    for verb in COLD_START_VERBS:
        for name in reads:
            if h.verb_of(name) == verb:
                return name
    return reads[0] if reads else None


async def probe_tools(
    client: Client,
    tools: list[dict[str, Any]],
    *,
    allow_writes: bool,
    timeout: float,
    max_tools: int,
    progress: Callable[[str], None] | None = None,
    known: tuple[str, ...] = (),
) -> ProbeState:
    """Probe each tool. `known`: the server's own command-line values (paths there are config)."""
    state = ProbeState({str(t.get("name")): t for t in tools}, allow_writes)
    state.known = tuple(k for k in known if len(k) > 3)
    state.dirs = tuple(k for k in state.known if os.path.isdir(k))
    for tool in tools[:max_tools]:
        name = str(tool.get("name"))
        if h.is_mutating(tool) and not allow_writes:
            state.skipped[name] = "mutating (annotated or named so); pass --allow-writes to probe"
            continue
        if progress:
            progress(name)
        alive = await _probe_one(client, tool, state, timeout)
        if not alive:
            break
    for name in [str(t.get("name")) for t in tools[max_tools:]]:
        state.skipped[name] = f"beyond --max-probe-tools {max_tools}"
    await _first_repair(client, state, timeout)
    _summarise_gaps(state)
    return state


async def _probe_one(
    client: Client, tool: dict[str, Any], state: ProbeState, timeout: float
) -> bool:
    name = str(tool.get("name"))
    subject = f"tool:{name}"
    schema = h.input_schema(tool)
    baseline: ProbeCall | None = None
    for plan in plan_for(tool, state.dirs):
        call = await call_raw(client, name, plan.arguments, timeout)
        call.probe, call.field = plan.probe, plan.field
        state.calls.append(call)
        if plan.probe == "baseline":
            baseline = call
            state.baseline_ok[name] = call.outcome == "success"
        if call.outcome == "crash":
            state.add(
                "dv.probe-crash",
                "major",
                subject,
                f"The connection failed during the `{plan.probe}` probe.",
                call.evidence(),
                f"Make `{name}` reject bad input without failing the server process.",
            )
            return False
        if call.outcome == "timeout":
            state.add(
                "dv.probe-crash",
                "major" if plan.probe != "baseline" else "minor",
                subject,
                f"No answer within {timeout:.0f} s to the `{plan.probe}` probe.",
                call.evidence(),
                f"Validate `{name}`'s input before doing work so bad calls fail fast.",
            )
            continue
        _check_leaks(call, state, subject)
        if call.outcome == "success":
            _check_success(call, tool, state, subject, baseline)
        elif call.outcome == "jsonrpc-error" and plan.probe != "baseline":
            state.add(
                "6.tool-errors",
                "major",
                subject,
                f"Bad arguments (`{plan.probe}`) come back as a JSON-RPC error, not isError.",
                call.evidence(),
                f"Return `isError: true` with a structured envelope from `{name}` for argument "
                "problems; keep JSON-RPC errors for protocol-level failures.",
            )
        elif call.outcome == "error-result":
            _check_envelope(call, tool, state, subject)
        if plan.probe == "baseline" and call.outcome == "success":
            cursor = _next_cursor(call)
            cursor_field = next(
                (p for p, n in h.properties(schema).items() if h.is_cursor_property(p, n)), None
            )
            if cursor and cursor_field:
                damaged = cursor[:-4] + ("AAAA" if not cursor.endswith("AAAA") else "BBBB")
                extra = await call_raw(
                    client, name, {**plan.arguments, cursor_field: damaged}, timeout
                )
                extra.probe, extra.field = "damaged-cursor", cursor_field
                state.calls.append(extra)
                _check_leaks(extra, state, subject)
                if extra.outcome == "success":
                    _check_success(extra, tool, state, subject, baseline)
                elif extra.outcome == "error-result":
                    _check_envelope(extra, tool, state, subject)
    return True


def _next_cursor(call: ProbeCall) -> str | None:
    sc = (call.result or {}).get("structuredContent")
    if isinstance(sc, dict):
        for key in ("next_cursor", "nextCursor", "cursor"):
            if isinstance(sc.get(key), str) and len(sc[key]) >= 6:
                return str(sc[key])
    return None


def _check_leaks(call: ProbeCall, state: ProbeState, subject: str) -> None:
    for category, severity, snippet in leaks_in(call, state.known):
        state.add(
            "dv.substrate-leak",
            severity,
            subject,
            f"The answer to the `{call.probe}` probe leaks a {category}: `{snippet}`.",
            call.evidence(),
            "Catch the failure at the tool boundary and answer with the closed envelope "
            "(code, message, hint); log the internals to stderr under a request id.",
            key=f"{subject}:{category}",
        )


def _check_success(
    call: ProbeCall,
    tool: dict[str, Any],
    state: ProbeState,
    subject: str,
    baseline: ProbeCall | None,
) -> None:
    name = str(tool.get("name"))
    result = call.result or {}
    out_schema = tool.get("outputSchema")
    if isinstance(out_schema, dict):
        sc = result.get("structuredContent")
        problem = None
        if sc is None:
            problem = "no structuredContent although an outputSchema is declared"
        else:
            try:
                jsonschema.validate(sc, out_schema)
            except jsonschema.ValidationError as exc:
                problem = f"structuredContent violates the outputSchema at `/{'/'.join(map(str, exc.absolute_path))}`: {exc.message[:200]}"
            except jsonschema.SchemaError as exc:
                problem = f"the outputSchema itself is invalid: {exc.message[:200]}"
        if problem:
            state.add(
                "3.output-schema",
                "major",
                subject,
                f"Success answer breaks the advertised output: {problem}.",
                call.evidence(schema=out_schema),
                f"Make `{name}` return structuredContent that validates against its outputSchema "
                "(or fix the schema).",
            )
    schema = h.input_schema(tool)
    if call.probe == "unknown-property" and h.is_closed(schema):
        state.add(
            "3.closed-schemas",
            "major",
            subject,
            f"Schema says `additionalProperties: false`, yet `{UNKNOWN_PROPERTY}` was accepted.",
            call.evidence(),
            f"Reject unknown properties in `{name}` with the field named "
            f'(`issues: [{{path: "{UNKNOWN_PROPERTY}", code: "unknown_property"}}]`).',
        )
    if call.probe == "placeholders" and call.field:
        sc_text = json.dumps(result.get("structuredContent"), default=str)
        if call.field not in sc_text:
            state.add(
                "3.strict-types",
                "major",
                subject,
                f"Enum `{call.field}` accepted the placeholder "
                f"{json.dumps(call.arguments.get(call.field))} silently.",
                call.evidence(schema=h.properties(schema).get(call.field)),
                f"Enforce the advertised enum of `{call.field}` in `{name}`: reject other values "
                f"with the field named and the allowed values in `expected`.",
            )
    if call.probe == "ambiguous-date":
        sc_text = json.dumps(result.get("structuredContent"), default=str).lower()
        noted = (
            call.field
            and call.field.lower() in sc_text
            and ("note" in sc_text or "warning" in sc_text or "ambig" in sc_text)
        )
        if not noted:
            state.add(
                "dv.ambiguous-date",
                "major",
                subject,
                f'`{call.field}: "01/02/2026"` was accepted with no note of how it was read.',
                call.evidence(),
                f"Ask on ambiguous dates in `{name}`: return `ambiguous_date` naming `{call.field}` "
                'with `readings: ["2026-01-02", "2026-02-01"]`, or a note saying which was read.',
            )
    if call.probe in ("invented-cursor", "damaged-cursor") and not _read_as_no_cursor(call, result):
        state.add(
            "dv.cursor-validation",
            "minor",
            subject,
            f"An {call.probe.replace('-', ' ')} for `{call.field}` was accepted as if valid.",
            call.evidence(),
            f"Reject unknown cursors in `{name}` with `invalid_cursor` naming `{call.field}` and "
            f"a repair that calls `{name}` again without it.",
        )


def _read_as_no_cursor(call: ProbeCall, result: dict[str, Any]) -> bool:
    """An invented cursor outside the token class may read as no cursor, if the answer says so.

    The conventions (seed 000, rule 13) read a value the server could never have issued ("0",
    "start", a made-up word) as "no cursor" with a note; only a damaged real token must be refused.
    """
    if call.probe != "invented-cursor" or not call.field:
        return False
    structured = result.get("structuredContent")
    notes = structured.get("notes") if isinstance(structured, dict) else None
    return isinstance(notes, list) and any(isinstance(n, str) and call.field in n for n in notes)


def _check_envelope(call: ProbeCall, tool: dict[str, Any], state: ProbeState, subject: str) -> None:
    name = str(tool.get("name"))
    envelope, carrier = envelope_of(call)
    text = answer_text(call)
    if not envelope or not isinstance(envelope.get("code"), str):
        state.add(
            "6.symbolic-codes",
            "major",
            subject,
            f"Rejection of the `{call.probe}` probe is unstructured: no symbolic code in "
            "structuredContent.",
            call.evidence(),
            f"Return `structuredContent: {{code, message, hint, issues}}` from `{name}` on every "
            "isError result, with the same JSON in a text block.",
        )
    # With every property a placeholder, naming any one of them is a fair first answer. A probe
    # built on a baseline the server already refused is not attributable: its field is not checked.
    derived = call.probe not in ("empty-call", "placeholders", "baseline")
    attributable = not (derived and not state.baseline_ok.get(name, True))
    candidates = list(call.arguments) if call.probe == "placeholders" else [str(call.field)]
    if (
        call.field
        and attributable
        and not any(mentions_field(c, envelope, text) for c in candidates)
    ):
        state.add(
            "6.field-feedback",
            "major",
            subject,
            f"Rejection of the `{call.probe}` probe does not name the failing field `{call.field}`.",
            call.evidence(),
            f'Add `issues: [{{path: "{call.field}", code: ..., expected: ...}}]` to `{name}`\'s '
            "error envelope.",
        )
    if envelope is None:
        return
    if carrier == "text":
        state.envelope_gaps.setdefault("text-only carrier", []).append(name)
    hint = envelope.get("hint")
    repair = envelope.get("repair")
    if not (isinstance(hint, str) and hint.strip()) and not isinstance(repair, dict):
        state.add(
            "6.repair-hints",
            "minor",
            subject,
            f"Rejection of the `{call.probe}` probe names no next step (no hint, no repair).",
            call.evidence(),
            f"Add `hint` naming the call to make next (e.g. `Call {name} with ...`) and a "
            "`repair` object when the fix is known.",
        )
    if repair is not None and not isinstance(repair, dict):
        state.add(
            "6.repair-callable",
            "minor",
            subject,
            "`repair` is not a single object.",
            call.evidence(),
            "Make `repair` one object `{next_step, tool, arguments}`, or omit it.",
        )
    if isinstance(repair, dict):
        target = repair.get("tool")
        if target is not None and target not in state.tools:
            state.add(
                "6.repair-callable",
                "major",
                subject,
                f"`repair.tool` names `{target}`, which is not a tool of this server.",
                call.evidence(),
                f"Name a real tool in `repair.tool` (one of {', '.join(sorted(state.tools)[:5])}).",
            )
        elif isinstance(target, str):
            args = repair.get("arguments")
            target_schema = h.input_schema(state.tools[target])
            try:
                jsonschema.validate(args if args is not None else {}, target_schema)
            except jsonschema.ValidationError as exc:
                state.add(
                    "6.repair-callable",
                    "major",
                    subject,
                    f"`repair.arguments` do not validate against `{target}`'s inputSchema: "
                    f"{exc.message[:160]}.",
                    call.evidence(schema=target_schema),
                    f"Give literal arguments that `{target}` accepts.",
                )
            except jsonschema.SchemaError:
                pass
            else:
                if state.first_repair is None and (
                    state.allow_writes or not h.is_mutating(state.tools[target])
                ):
                    state.first_repair = {"from": call, "tool": target, "arguments": args or {}}
    if "recoverable" in envelope:
        state.add(
            "6.no-recoverable",
            "minor",
            subject,
            "The envelope carries a `recoverable` flag.",
            call.evidence(),
            "Replace `recoverable` with `temporary` + `retry_after_ms` and a `repair`.",
        )
    if "temporary" not in envelope:
        state.envelope_gaps.setdefault("temporary", []).append(name)
    if "request_id" not in envelope:
        state.envelope_gaps.setdefault("request_id", []).append(name)
    nulls = [k for k, v in envelope.items() if k != "retry_after_ms" and v in (None, {}, "")]
    if nulls:
        state.envelope_gaps.setdefault("null optional fields", []).append(name)
    paths = named_fields(envelope, "")
    published = set(h.properties(h.input_schema(tool))) | {UNKNOWN_PROPERTY, ""}
    stray = sorted(p for p in paths if p.split(".")[0] not in published and not p.isdigit())
    if stray:
        state.add(
            "6.details-field",
            "minor",
            subject,
            f"The error names fields the inputSchema does not have: {', '.join(stray[:3])}.",
            call.evidence(),
            "Name fields by their published inputSchema path.",
        )


async def _first_repair(client: Client, state: ProbeState, timeout: float) -> None:
    plan = state.first_repair
    if plan is None:
        return
    call = await call_raw(client, plan["tool"], plan["arguments"], timeout)
    call.probe = "first-repair"
    state.calls.append(call)
    origin: ProbeCall = plan["from"]
    plan["outcome"] = call.outcome
    plan["evidence"] = {"rejected": origin.evidence(), "repair_call": call.evidence()}
    if call.outcome != "success":
        state.add(
            "6.repair-callable",
            "major",
            f"tool:{origin.tool}",
            f"Following the first repair (`{plan['tool']}`) did not succeed ({call.outcome}).",
            plan["evidence"],
            f"Make the repair of `{origin.tool}` a call that succeeds as given.",
        )


def _summarise_gaps(state: ProbeState) -> None:
    gaps = state.envelope_gaps
    if gaps.get("temporary"):
        tools = sorted(set(gaps["temporary"]))
        state.add(
            "6.retryability",
            "minor",
            "server",
            f"Error envelopes of {len(tools)} tools do not say whether retrying helps.",
            {"tools": tools[:10]},
            "Add `temporary` (bool) and `retry_after_ms` (int or null) to every envelope.",
        )
    if gaps.get("request_id"):
        tools = sorted(set(gaps["request_id"]))
        state.add(
            "6.correlation",
            "minor",
            "server",
            f"Error envelopes of {len(tools)} tools carry no `request_id`.",
            {"tools": tools[:10]},
            "Add `request_id` to every error envelope.",
        )
    if gaps.get("null optional fields"):
        tools = sorted(set(gaps["null optional fields"]))
        state.add(
            "6.presence",
            "nit",
            "server",
            "Error envelopes carry null or empty optional fields.",
            {"tools": tools[:10]},
            "Omit optional envelope fields that have no value.",
        )


# --- lists and resources ---------------------------------------------------------------------


async def probe_lists(client: Client, surface: dict[str, Any], timeout: float) -> list[Finding]:
    """List everything again (order must not change) and try an invented tools/list cursor."""
    out: list[Finding] = []

    async def names(kind: str) -> list[str] | None:
        try:
            with anyio.fail_after(timeout):
                if kind == "tools":
                    r: Any = await client.list_tools(cache_mode="bypass")
                    return [t.name for t in r.tools]
                if kind == "resources":
                    r = await client.list_resources(cache_mode="bypass")
                    return [str(x.uri) for x in r.resources]
                r = await client.list_prompts(cache_mode="bypass")
                return [p.name for p in r.prompts]
        except Exception:
            return None

    key_of = {"tools": "name", "resources": "uri", "prompts": "name"}
    for kind in ("tools", "resources", "prompts"):
        first = [str(x.get(key_of[kind])) for x in surface.get(kind, [])]
        if len(first) < 2 or len(surface.get("list_results", {}).get(f"{kind}/list", [])) > 1:
            continue
        for attempt in range(2):
            again = await names(kind)
            if again is not None and again != first:
                out.append(
                    finding(
                        "9.deterministic-order",
                        "major",
                        "server",
                        f"{kind}/list returned a different order on listing #{attempt + 2}.",
                        {"first": first[:15], "again": again[:15]},
                        f"Sort {kind}/list by a stable key (name) before returning it.",
                    )
                )
                break
    if surface.get("tools"):
        try:
            with anyio.fail_after(timeout):
                r = await client.list_tools(cursor="dv-invented-cursor-0001", cache_mode="bypass")
            out.append(
                finding(
                    "2.pagination",
                    "minor",
                    "server",
                    "tools/list accepted an invented cursor and returned a page.",
                    {"sent": {"cursor": "dv-invented-cursor-0001"}, "tools_returned": len(r.tools)},
                    "Reject unknown tools/list cursors with -32602 (invalid params).",
                )
            )
        except Exception:
            pass
    return out


async def probe_resources(client: Client, surface: dict[str, Any], timeout: float) -> list[Finding]:
    resources = surface.get("resources") or []
    templates = surface.get("resource_templates") or []
    if not resources and not templates:
        return []
    sample = str((resources[0] if resources else templates[0]).get("uri") or "x://")
    scheme = sample.split("://", 1)[0] if "://" in sample else "x"
    uri = f"{scheme}://dv-probe/does-not-exist"
    out: list[Finding] = []
    try:
        with anyio.fail_after(timeout):
            await client.read_resource(uri, cache_mode="bypass")
    except MCPError as exc:
        code, data = exc.code, exc.data
        evidence = {
            "sent": {"uri": uri},
            "jsonrpc_error": {"code": code, "message": exc.message, "data": data},
        }
        if not (isinstance(data, dict) and ("machine_code" in data or "code" in data)):
            out.append(
                finding(
                    "6.resource-errors",
                    "minor",
                    f"resource:{uri}",
                    "Reading an unknown resource gives an error with no envelope in `error.data`.",
                    evidence,
                    'Answer -32602 with `data: {machine_code: "not_found", human_message, hint}` '
                    "naming the list or template to use.",
                )
            )
        if -32019 <= code <= -32000 or code in (-32002, -32042):
            out.append(
                finding(
                    "6.jsonrpc-code-allocation",
                    "minor",
                    f"resource:{uri}",
                    f"Unknown resource answered with reserved code {code}.",
                    evidence,
                    "Use -32602 for a resource that does not exist.",
                )
            )
        call = ProbeCall(
            "unknown-resource", "", {"uri": uri}, "jsonrpc-error", error=evidence["jsonrpc_error"]
        )
        for category, severity, snippet in leaks_in(call):
            out.append(
                finding(
                    "dv.substrate-leak",
                    severity,
                    f"resource:{uri}",
                    f"The error for an unknown resource leaks a {category}: `{snippet}`.",
                    evidence,
                    "Answer with the envelope only; log internals to stderr.",
                )
            )
    except Exception:
        pass
    return out
