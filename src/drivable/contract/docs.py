"""The codes reference, generated from the registry (docs/codes.md is this output, checked by a test)."""

from __future__ import annotations

from drivable.contract.codes import ERROR_CODES, ISSUE_CODES, TRANSPORT_REFUSALS, WARNING_CODES


def codes_markdown() -> str:
    lines = [
        "# Codes",
        "",
        "Generated from `drivable.contract.codes` by `drivable codes --markdown`; do not edit by hand.",
        "Codes are append-only: never renamed, never removed, never given a new meaning.",
        "",
        "## Error codes (`code` of the envelope)",
        "",
        "| code | recovery | temporary | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for code in ERROR_CODES.values():
        lines.append(
            f"| `{code.id}` | {code.recovery.value} | {'yes' if code.temporary else 'no'} | {code.doc} |"
        )
    lines += ["", "## Issue codes (`issues[].code`)", "", "| code | meaning |", "| --- | --- |"]
    for issue in ISSUE_CODES.values():
        lines.append(f"| `{issue.id}` | {issue.doc} |")
    lines += ["", "## Warning codes (`warnings[].code`)", "", "| code | meaning |", "| --- | --- |"]
    for warning in WARNING_CODES.values():
        lines.append(f"| `{warning.id}` | {warning.doc} |")
    lines += [
        "",
        "## Transport refusals (HTTP, before any tool runs)",
        "",
        "Each is JSON-RPC (or, for 401, 408, 413 and 503, the bare envelope) with the envelope's "
        "`code`; its hint names what the refusal is about.",
        "",
        "| refusal | HTTP | code | the hint names | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for refusal in TRANSPORT_REFUSALS.values():
        lines.append(
            f"| `{refusal.id}` | {refusal.status} | `{refusal.code}` | {refusal.about} | {refusal.doc} |"
        )
    return "\n".join(lines) + "\n"
