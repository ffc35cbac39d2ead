"""The value boundary: what reaches a reader, a handler or a store is valid for every backend.

Every call's arguments pass here first, in one iterative walk (no recursion, so no depth of
input can exhaust the stack), before pydantic, the kind readers or any store sees them:

- nesting is bounded (`MAX_DEPTH` levels of arrays and objects), refused at the first level over;
- size is bounded (the contract's inline limit, counted as UTF-8 the way the wire carries it);
  the count never fails, whatever the text holds, so no value skips the bound;
- text holds no NUL (PostgreSQL cannot store it, C libraries end strings at it) and no unpaired
  surrogate (no UTF-8 encoder, SQLite's or the wire's, can write it), in values and property names;
- integers lie within the 64-bit range both stores hold; numbers are finite.

After validation, `check_validated` walks the model the handler will get, because lenient readers
turn text into values ("9223372036854775808" into an int). `advertise_bounds` writes the integer
range into every input schema, so what the boundary refuses is what the schema says.

Refusals are `invalid_arguments` naming the field; nothing of the value is echoed or logged.
"""

from __future__ import annotations

import json
import logging
import math
import re
import sys
import traceback
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from drivable.contract.envelope import Envelope, Issue

MAX_DEPTH = 32
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1
# Stop at this many findings: the first few say what to fix, the rest only cost time.
MAX_ISSUES = 20
TEXT_EXPECTED = "text without NUL (U+0000) or unpaired surrogates (U+D800 to U+DFFF)"
INTEGER_EXPECTED = f"a whole number from {INT_MIN} to {INT_MAX}"


class _Walk:
    """The state of one walk: bytes counted so far, the issues found, whether it stopped early."""

    __slots__ = ("deep", "issues", "limit", "size", "stopped")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.size = 0
        self.issues: list[Issue] = []
        self.deep: str | None = None
        self.stopped = False

    def add(self, issue: Issue) -> None:
        self.issues.append(issue)
        if len(self.issues) >= MAX_ISSUES:
            self.stopped = True

    def count(self, n: int) -> None:
        self.size += n
        if self.limit is not None and self.size > self.limit:
            self.stopped = True


def bad_text(text: str) -> bool:
    """Whether `text` holds a NUL or an unpaired surrogate (cheap for ordinary text)."""
    if "\x00" in text:
        return True
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def safe_text(text: str) -> str:
    """`text` with NULs and unpaired surrogates replaced by U+FFFD, safe to encode anywhere."""
    if not bad_text(text):
        return text
    cleaned = text.replace("\x00", "\ufffd")
    return cleaned.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def safe_value(value: Any, depth: int = 0) -> Any:
    """A JSON value with every string (and key) made safe; deep values are summarised."""
    if isinstance(value, str):
        return safe_text(value)
    if depth >= 4 and isinstance(value, list | dict):
        return f"<{type(value).__name__} of {len(value)} items>"
    if isinstance(value, list):
        return [safe_value(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {safe_text(str(k)): safe_value(v, depth + 1) for k, v in value.items()}
    return value


def _utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _text_issue(path: str, what: str) -> Issue:
    return Issue(
        path,
        "invalid_character",
        f"'{path}' {what} a NUL character or an unpaired surrogate, which no store can keep.",
        expected=TEXT_EXPECTED,
    )


def _join(parent: str, step: str | int) -> str:
    return f"{parent}.{step}" if parent else str(step)


def _scalar(walk: _Walk, path: str, value: Any) -> None:
    where = path or "(arguments)"
    if isinstance(value, str):
        walk.count(_utf8_len(value) + 2)
        if bad_text(value):
            walk.add(_text_issue(where, "holds"))
    elif isinstance(value, bool) or value is None:
        walk.count(5)
    elif isinstance(value, int):
        if value > INT_MAX or value < INT_MIN:
            walk.count(20)
            walk.add(
                Issue(
                    where,
                    "out_of_range",
                    f"'{where}' is outside the range a stored whole number can have.",
                    expected=INTEGER_EXPECTED,
                )
            )
        else:
            walk.count(len(str(value)))
    elif isinstance(value, float):
        walk.count(24)
        if not math.isfinite(value):
            walk.add(
                Issue(
                    where,
                    "invalid_number",
                    f"'{where}' is not a finite number (NaN and Infinity are not JSON numbers).",
                    expected="a finite number",
                )
            )
    else:
        walk.count(16)


def _walk(walk: _Walk, root: Any) -> None:
    stack: list[tuple[str, Any, int]] = [("", root, 0)]
    while stack and not walk.stopped:
        path, node, depth = stack.pop()
        if isinstance(node, Mapping | list | tuple):
            if depth > MAX_DEPTH:
                walk.deep = path or "(arguments)"
                walk.stopped = True
                return
            walk.count(2)
            if isinstance(node, Mapping):
                for key, value in node.items():
                    name = key if isinstance(key, str) else str(key)
                    walk.count(_utf8_len(name) + 4)
                    if bad_text(name):
                        # The name itself is not repeated: the path is the object holding it.
                        walk.add(_text_issue(path or "(arguments)", "has a property name with"))
                        continue
                    stack.append((_join(path, name), value, depth + 1))
            else:
                for index, value in enumerate(node):
                    walk.count(1)
                    stack.append((_join(path, index), value, depth + 1))
        else:
            _scalar(walk, path, node)


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)
_LONG_DIGITS = re.compile(r"\d{19}")
_NESTED = (dict, list)


def _shallow(arguments: Mapping[str, Any]) -> bool:
    """Whether the arguments nest at most three levels (what almost every call sends), so the
    C encoder may walk them: checked without recursion, stopping at the first deeper value."""
    for value in arguments.values():
        if type(value) not in _NESTED:
            continue
        for inner in value.values() if type(value) is dict else value:
            if type(inner) not in _NESTED:
                continue
            for leaf in inner.values() if type(inner) is dict else inner:
                if type(leaf) in _NESTED:
                    return False
    return True


def _flat_ascii_scalars(arguments: Mapping[str, Any], max_bytes: int) -> bool:
    """True when the arguments surely pass without encoding them: a flat object of ASCII text
    without NUL, flags, nulls and numbers in range, whose JSON cannot exceed `max_bytes` even
    with every character escaped. False means: the encoder decides (`_clean_fast`)."""
    if type(arguments) is not dict:
        return False
    most = 2  # {}
    for key, value in arguments.items():
        if type(key) is not str or not key.isascii() or "\x00" in key:
            return False
        kind = type(value)
        if kind is str:
            if not value.isascii() or "\x00" in value:
                return False
            most += 6 * len(value) + 2  # a control character escapes to \u00XX
        elif kind is int:
            if value > INT_MAX or value < INT_MIN:
                return False
            most += 20
        elif kind is float:
            if not math.isfinite(value):
                return False
            most += 32
        elif not (kind is bool or value is None):
            return False
        else:
            most += 5
        most += 6 * len(key) + 4  # "key":,
    return most <= max_bytes


def _clean_fast(arguments: Mapping[str, Any], max_bytes: int) -> bool:
    """True when shallow arguments surely pass: encoded once in C, then the text checked for a
    NUL, an unencodable character, a long run of digits (maybe an integer out of range) and size.
    False means: walk them to find out (and to name the field)."""
    if type(arguments) is not dict or not _shallow(arguments):
        return False
    try:
        text = _ENCODER.encode(arguments)
    except (TypeError, ValueError):
        return False  # NaN, Infinity or a value JSON has no spelling for
    if "\\u0000" in text or _LONG_DIGITS.search(text):
        return False
    if text.isascii():
        return len(text) <= max_bytes
    try:
        return len(text.encode("utf-8")) <= max_bytes
    except UnicodeEncodeError:
        return False


def refusal(tool: str, arguments: Mapping[str, Any], max_bytes: int) -> Envelope | None:
    """The envelope refusing `arguments` of `tool` at the boundary, or None when they pass."""
    if _flat_ascii_scalars(arguments, max_bytes) or _clean_fast(arguments, max_bytes):
        return None
    walk = _Walk(max_bytes)
    _walk(walk, arguments)
    if walk.deep is not None:
        return Envelope(
            "invalid_arguments",
            f"The arguments of {tool} nest deeper than {MAX_DEPTH} levels.",
            hint=f"Send {tool} flat values as its inputSchema shows, and call it again.",
            issues=[
                Issue(
                    walk.deep,
                    "nesting_too_deep",
                    f"'{walk.deep}' is nested more than {MAX_DEPTH} levels deep.",
                    expected=f"at most {MAX_DEPTH} levels of arrays and objects",
                )
            ],
        )
    if walk.limit is not None and walk.size > walk.limit:
        return Envelope(
            "payload_too_large",
            f"The arguments of {tool} are over {max_bytes} bytes, the inline limit.",
            hint=(
                "Pass a reference instead of inline content: the id or URI of something "
                "already stored, as the tool's description says."
            ),
            details={"limit_bytes": max_bytes, "received_bytes": walk.size},
        )
    return _invalid(tool, walk.issues)


def check_validated(tool: str, value: Any) -> Envelope | None:
    """The envelope refusing a validated input whose numbers a reader produced out of bounds
    ("9223372036854775808" read as an integer); its text came from text the walk passed."""
    if isinstance(value, BaseModel) and _flat_within_bounds(value.__dict__):
        return None  # the common case, answered without building a path per field
    walk = _Walk(None)
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack and not walk.stopped:
        path, node, depth = stack.pop()
        kind = type(node)
        if kind is int:
            if node > INT_MAX or node < INT_MIN:
                _scalar(walk, path, node)
        elif kind is float:
            if not math.isfinite(node):
                _scalar(walk, path, node)
        elif kind is str or kind is bool or node is None or depth > MAX_DEPTH + 2:
            continue
        elif isinstance(node, BaseModel):
            stack.extend((_join(path, k), v, depth + 1) for k, v in node.__dict__.items())
        elif isinstance(node, list | tuple):
            stack.extend((_join(path, i), v, depth + 1) for i, v in enumerate(node))
        elif isinstance(node, Mapping):
            stack.extend((_join(path, str(k)), v, depth + 1) for k, v in node.items())
    return _invalid(tool, walk.issues)


def _flat_within_bounds(fields: Mapping[str, Any]) -> bool:
    """True when every field is a scalar the stores keep: text, a flag, null, a number in range."""
    for value in fields.values():
        kind = type(value)
        if kind is int:
            if value > INT_MAX or value < INT_MIN:
                return False
        elif kind is float:
            if not math.isfinite(value):
                return False
        elif not (kind is str or kind is bool or value is None):
            return False
    return True


def _invalid(tool: str, issues: list[Issue]) -> Envelope | None:
    if not issues:
        return None
    first = issues[0]
    count = len(issues)
    return Envelope(
        "invalid_arguments",
        f"{count} argument{'s' if count != 1 else ''} of {tool} did not validate.",
        hint=f"Fix {first.path} ({first.message.rstrip('.')}) and call {tool} again.",
        issues=issues,
    )


def advertise_bounds(schema: Any) -> None:
    """Write the stored integer range into every integer of a JSON Schema that lacks a bound."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
            if "minimum" not in node and "exclusiveMinimum" not in node:
                node["minimum"] = INT_MIN
            if "maximum" not in node and "exclusiveMaximum" not in node:
                node["maximum"] = INT_MAX
        stack.extend(v for v in node.values() if isinstance(v, dict | list))


def log_failure(
    logger: logging.Logger, message: str, *args: Any, failure: BaseException | None = None
) -> None:
    """Log the exception being handled for the operator without its message.

    Exception messages quote values (a driver's "invalid input ... 'CANARY'", pydantic's
    `input_value=...`), so the record keeps the exception types of the chain and the frames
    (file, line, function), never the text: no argument value reaches a log this way.
    """
    if failure is None:
        failure = sys.exc_info()[1]
    chain: list[str] = []
    frames: list[str] = []
    seen: set[int] = set()
    while failure is not None and id(failure) not in seen:
        seen.add(id(failure))
        chain.append(type(failure).__name__)
        frames = [
            f"{f.filename}:{f.lineno} in {f.name}"
            for f in traceback.extract_tb(failure.__traceback__)
        ] + frames
        failure = failure.__cause__ or failure.__context__
    logger.error(
        message + " [%s]\n  %s", *args, " <- ".join(chain) or "no exception", "\n  ".join(frames)
    )
