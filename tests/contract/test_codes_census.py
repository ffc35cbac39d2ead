"""The registry, its docs, and every code the code base can emit stay in step."""

from __future__ import annotations

import re
from pathlib import Path

from drivable.contract.codes import (
    ERROR_CODES,
    ISSUE_CODES,
    WARNING_CODES,
    IssueCode,
    Recovery,
    WarningCode,
)
from drivable.contract.docs import codes_markdown

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "drivable"

# Places where a code is named as a literal: raising, building an envelope, warning, a reading.
EMITTERS = [
    re.compile(r"ToolError\(\s*\"([a-z_]+)\""),
    re.compile(r"Envelope\(\s*\"([a-z_]+)\""),
    re.compile(r"\.warn\(\s*\"([a-z_]+)\""),
    re.compile(r"Warning_\(\s*\"([a-z_]+)\""),
    re.compile(r"code=\"([a-z_]+)\""),
    re.compile(r"\"cursor_expired\" if expired else \"([a-z_]+)\""),
]


def emitted_codes() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        if "audit" in path.parts or "surface" in path.parts:
            continue  # the auditor and the diff talk about other servers' codes
        text = path.read_text(encoding="utf-8")
        for pattern in EMITTERS:
            for match in pattern.finditer(text):
                found.setdefault(match.group(1), []).append(str(path.relative_to(ROOT)))
    return found


DOMAIN_CODE = re.compile(r"\bCode\(\s*\"([a-z_]+)\"")


def domain_codes() -> set[str]:
    """Codes a server registers for its own domain (`Contract(domain_codes=[Code(...)])`)."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.name != "codes.py":
            found.update(DOMAIN_CODE.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_emitted_code_is_registered() -> None:
    known = set(ERROR_CODES) | set(ISSUE_CODES) | set(WARNING_CODES) | domain_codes()
    emitted = emitted_codes()
    assert emitted, "the census found no emitters: its patterns are stale"
    unknown = {code: where for code, where in emitted.items() if code not in known}
    assert not unknown, f"codes emitted but not registered: {unknown}"


def test_every_code_has_a_recovery_and_a_doc() -> None:
    for code in ERROR_CODES.values():
        assert isinstance(code.recovery, Recovery)
        assert len(code.doc) > 30, code.id
        assert re.fullmatch(r"[a-z][a-z_]+", code.id)
    entries: list[IssueCode | WarningCode] = [*ISSUE_CODES.values(), *WARNING_CODES.values()]
    for entry in entries:
        assert len(entry.doc) > 20, entry.id


def test_the_docs_are_the_registry() -> None:
    docs = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    assert docs == codes_markdown(), "regenerate with: drivable codes --markdown > docs/codes.md"


def test_temporary_codes_are_the_retry_later_ones() -> None:
    for code in ERROR_CODES.values():
        assert code.temporary == (code.recovery is Recovery.RETRY_LATER), code.id


def test_codes_are_append_only() -> None:
    # The published prefix of the registry; new codes go at the end, none leave.
    published = [
        "invalid_arguments", "unknown_tool", "payload_too_large", "not_found", "conflict",
        "state_conflict", "idempotency_mismatch", "in_progress", "confirmation_required",
        "confirmation_invalid", "invalid_cursor", "cursor_expired", "unauthenticated",
        "invalid_credentials", "insufficient_scope", "feature_disabled", "rate_limited",
        "unavailable", "upstream_timeout", "internal_error",
    ]  # fmt: skip
    assert list(ERROR_CODES)[: len(published)] == published
