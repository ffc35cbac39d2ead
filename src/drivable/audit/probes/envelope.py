"""Reading a rejection the way any client can: the error envelope, where it travelled, what it names.

The carrier every client accepts is JSON in the first text block: TypeScript SDK 1.x clients check
`structuredContent` against the tool's `outputSchema` even on `isError: true` results, so an error
carried only there breaks them, and one carried there in a shape the outputSchema does not allow
makes them throw. `_meta["dev.drivable/envelope"]` is read as a second copy.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from drivable.audit.probes.call import ProbeCall, text_blocks

Carrier = Literal["text", "meta", "structuredContent", "none"]
META_KEY = "dev.drivable/envelope"
ERROR_TEXT = re.compile(
    r"^\s*(\[?error\]?\b|error:|exception\b|traceback\b|failed\b|failure\b|invalid (argument|input|"
    r"param)|unknown (tool|argument|parameter)|could not\b|unable to\b|cannot\b|"
    r"(\w+ )?not found\b|access denied|permission denied)",
    re.I,
)

# The calls a careful model makes: they are meant to succeed. Every other probe is meant to fail.
MAY_SUCCEED = frozenset({"baseline", "all-optionals", "repeat-baseline", "first-repair"})


def _inner(parsed: dict[str, Any]) -> dict[str, Any]:
    err = parsed.get("error")
    return err if isinstance(err, dict) and "code" not in parsed else parsed


def envelope_of(call: ProbeCall) -> tuple[dict[str, Any] | None, Carrier]:
    """The structured error and the first carrier it was found in, text first."""
    if call.result is None:
        return None, "none"
    for text in text_blocks(call)[:1]:
        try:
            parsed = json.loads(text)
        except ValueError:
            break
        if isinstance(parsed, dict):
            return _inner(parsed), "text"
    meta = call.result.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get(META_KEY), dict):
        return _inner(meta[META_KEY]), "meta"
    sc = call.result.get("structuredContent")
    if isinstance(sc, dict):
        return _inner(sc), "structuredContent"
    return None, "none"


def error_text_of_success(call: ProbeCall) -> str | None:
    """The error a success answer carries in its text (isError false), or None.

    A result with structuredContent is judged by that; one whose first text block reads as an
    error ("Error: ...", "not found", `{"error": ...}`) is an error the client was told is a success.
    """
    if call.outcome != "success" or call.result is None:
        return None
    asked = json.dumps(call.arguments).lower()
    if "error" in asked or "fail" in asked:
        return None  # the call asked for an error-like answer (a demo of error messages, a log)
    if call.result.get("structuredContent") is not None:
        sc = call.result["structuredContent"]
        if isinstance(sc, dict) and set(sc) <= {"error", "message", "code"} and "error" in sc:
            return json.dumps(sc)[:200]
        # A plain return wrapped as `{"result": ...}` (FastMCP, the SDK's MCPServer) is judged as
        # its text, on calls meant to fail: an answer to a good call may start with "Cannot".
        wrapped = sc.get("result") if isinstance(sc, dict) and len(sc) == 1 else None
        if isinstance(wrapped, str) and call.probe not in MAY_SUCCEED and ERROR_TEXT.match(wrapped):
            return wrapped[:200]
        return None
    blocks = text_blocks(call)
    if not blocks:
        return None
    first = blocks[0]
    try:
        parsed = json.loads(first)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        if "error" in parsed and set(parsed) <= {"error", "message", "code", "details"}:
            return first[:200]
        return None
    return first[:200] if ERROR_TEXT.match(first) else None


def named_fields(envelope: dict[str, Any] | None) -> set[str]:
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
    """The envelope's issues name the field, or the text does: as written, or in words
    ("Invalid branch type: lcoal" names `branch_type` to a model as well)."""
    names = named_fields(envelope)
    if field_name in names or any(n.split(".")[0] == field_name for n in names):
        return True
    if re.search(rf"(?<![A-Za-z0-9]){re.escape(field_name)}(?![A-Za-z0-9])", text):
        return True
    spaced = field_name.replace("_", " ").strip()
    return spaced != field_name and bool(
        re.search(rf"(?<![A-Za-z0-9]){re.escape(spaced)}(?![A-Za-z0-9])", text, re.I)
    )
