"""What every answer to a hostile or fuzzed call must satisfy.

- no `internal_error` (an unexpected exception inside the server);
- no substrate leak: nothing of the driver, the database, the file system or the interpreter
  (SQL or driver text, tracebacks, file paths, exception class names) in content or
  structuredContent; what the caller sent (echoed back as `received`) is not held against it;
- every rejection is the pinned envelope, and a rejection of the input names its field(s).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENVELOPE_KEYS = ("code", "message", "hint", "issues", "temporary", "retry_after_ms", "request_id")
# Codes whose rejection is about the input: each must name the field(s) at fault.
FIELD_CODES = frozenset({"invalid_arguments", "idempotency_mismatch"})

_SUBSTRATE = [
    r"Traceback \(most recent call last\)",
    r"File \"[^\"]+\", line \d+",
    r"site-packages",
    r"\.py(?![\w-])",
    r"\bsqlite3?\b",
    r"\bpsycopg\b",
    r"\bSQLSTATE\b",
    r"no such (table|column)",
    r"syntax error at or near",
    r"constraint failed",
    r"UNIQUE constraint",
    r"\bErrno\b",
    r"pydantic_core",
    r"validation errors? for [A-Z]\w+",
    r"object has no attribute",
    r"\b(?:[A-Z][a-z]+){1,4}(?:Error|Exception)\b",
    r"\b(?:KeyError|TypeError|ValueError|AttributeError|IndexError|RuntimeError)\b",
    r"/(?:srv|home|root|usr|opt|var/lib)/[\w.-]+",
    r"\bat 0x[0-9a-f]{6,}\b",
]
SUBSTRATE = re.compile("|".join(_SUBSTRATE))
_HERE_PATHS = tuple(
    p for p in {str(Path(__file__).resolve().parents[3]), sys.prefix, sys.base_prefix} if len(p) > 4
)


@dataclass(frozen=True)
class Finding:
    """One broken promise: what kind, on which tool, and a short excerpt (never the whole payload)."""

    kind: str  # internal_error | leak | unnamed_field | malformed_envelope | no_answer | dead
    tool: str
    detail: str


def string_leaves(value: Any, limit: int = 10_000) -> list[str]:
    """Every string (values and keys) inside a JSON value, iteratively (deep nesting is input)."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < limit:
        current = stack.pop()
        if isinstance(current, str):
            out.append(current)
        elif isinstance(current, Mapping):
            for key, item in current.items():
                out.append(str(key))
                stack.append(item)
        elif isinstance(current, list | tuple):
            stack.extend(current)
    return out


def _without_echoes(value: Any) -> Any:
    """The answer less what echoes the input: `received` and `readings` of issues."""
    if isinstance(value, Mapping):
        return {
            k: _without_echoes(v) for k, v in value.items() if k not in ("received", "readings")
        }
    if isinstance(value, list):
        return [_without_echoes(v) for v in value]
    return value


def leaks(text: str, sent: Iterable[str]) -> list[str]:
    """Substrate markers in `text`, after removing every string the caller sent."""
    cleaned = text
    for piece in sorted({s for s in sent if len(s) >= 3}, key=len, reverse=True)[:500]:
        cleaned = cleaned.replace(piece, " ").replace(json.dumps(piece)[1:-1], " ")
    found = [m.group(0) for m in SUBSTRATE.finditer(cleaned)]
    found.extend(p for p in _HERE_PATHS if p in cleaned)
    return found[:5]


def check_result(
    tool: str,
    arguments: Any,
    structured: Any,
    texts: list[str],
    is_error: bool,
) -> list[Finding]:
    """The findings about one tool result (an empty list when it keeps every promise)."""
    findings: list[Finding] = []
    sent = string_leaves(arguments)
    scrubbed = json.dumps(_without_echoes(structured), ensure_ascii=False)
    mirrors: list[str] = []
    for text in texts:
        try:
            mirrors.append(json.dumps(_without_echoes(json.loads(text)), ensure_ascii=False))
        except ValueError:
            mirrors.append(text)
    for blob in [scrubbed, *mirrors]:
        found = leaks(blob, sent)
        if found:
            findings.append(Finding("leak", tool, ", ".join(found)))
            break
    if not is_error:
        return findings
    if not isinstance(structured, Mapping):
        return [*findings, Finding("malformed_envelope", tool, "no envelope")]
    missing = [k for k in ENVELOPE_KEYS if k not in structured]
    if missing:
        findings.append(Finding("malformed_envelope", tool, f"missing {missing}"))
        return findings
    code = str(structured["code"])
    if code == "internal_error":
        findings.append(Finding("internal_error", tool, str(structured.get("request_id"))))
    issues = structured.get("issues") or []
    if code in FIELD_CODES:
        if not issues:
            findings.append(Finding("unnamed_field", tool, f"{code} with no issues"))
        for issue in issues:
            if not isinstance(issue, Mapping) or not str(issue.get("path", "")).strip():
                findings.append(Finding("unnamed_field", tool, f"{code}: an issue without a path"))
                break
    return findings


def check_transport_refusal(status: int, body: bytes) -> list[Finding]:
    """A refusal before the tool ran (HTTP 4xx, a JSON-RPC error): structured, no leak, never 5xx."""
    findings: list[Finding] = []
    text = body.decode("utf-8", errors="replace")
    if status >= 500:
        findings.append(Finding("internal_error", "(transport)", f"HTTP {status}"))
    found = leaks(text, [])
    if found:
        findings.append(Finding("leak", "(transport)", ", ".join(found)))
    return findings
