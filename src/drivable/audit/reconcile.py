"""Static suspicions against what the probes observed: confirmed, softened, or dropped.

A rule read from the schema alone (an open object, no outputSchema, a create without a key) is a
suspicion. When a probe saw the behaviour, the behaviour decides: an unknown property the server
refused is not "accepted silently"; a tool that answers prose has no structure to declare; a
create whose retry errors or changes nothing does not duplicate. When no probe could look (the tool
was not called, or the audit ran offline), the finding stays, at most minor, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from drivable.audit.model import SEVERITY_RANK, Finding, Severity
from drivable.audit.probes import ProbeState

UNCONFIRMED = " (From the schema alone: no probe could confirm it"


def _static(f: Finding) -> bool:
    return not (isinstance(f.evidence, dict) and "probe" in f.evidence)


def _at_most(severity: Severity, cap: Severity) -> Severity:
    return severity if SEVERITY_RANK[severity] >= SEVERITY_RANK[cap] else cap


def _unconfirmed(f: Finding, why: str) -> Finding:
    return replace(
        f, severity=_at_most(f.severity, "minor"), summary=f"{f.summary}{UNCONFIRMED}: {why}.)"
    )


def _why_not_seen(state: ProbeState | None, tool: str) -> str:
    if state is None:
        return "probes did not run"
    if tool in state.skipped:
        return f"`{tool}` was {state.skipped[tool]}"
    return f"the probes of `{tool}` did not show it"


PROSE_OUTPUT = re.compile(
    r"\b(returns?|extracts?|as|in|gives?|outputs?)\b[^.]{0,60}\b(markdown|plain text|prose|"
    r"a diff|unified diff|html|human-readable text)\b",
    re.I,
)


def _prose_by_description(tools: dict[str, dict[str, Any]], tool: str) -> str | None:
    """A tool that says it answers markdown or a diff has no structure to declare, seen or not."""
    text = str(tools.get(tool, {}).get("description") or "")
    return "prose" if PROSE_OUTPUT.search(text) else None


def reconcile(
    findings: Iterable[Finding], state: ProbeState | None, surface: dict[str, Any]
) -> list[Finding]:
    tools = {str(t.get("name")): t for t in surface.get("tools") or [] if isinstance(t, dict)}
    out: list[Finding] = []
    for f in findings:
        judged = _judge(f, state, tools) if _static(f) else f
        if judged is not None:
            out.append(judged)
    return out


def _judge(
    f: Finding, state: ProbeState | None, tools: dict[str, dict[str, Any]]
) -> Finding | None:
    tool = f.subject.split(":", 1)[1] if f.subject.startswith("tool:") else ""
    seen: dict[str, Any] = state.observed.get(tool, {}) if state and tool else {}
    if f.rule == "3.closed-schemas":
        verdict = seen.get("unknown-property")
        if verdict == "accepted":
            return replace(
                f, summary=f"{f.summary} Confirmed: the probe's unknown property was accepted."
            )
        if verdict == "ignored":
            return replace(
                f,
                summary=f"{f.summary} Confirmed: with an unknown property the server gave its "
                "failed baseline's answer word for word; it never looked at the property.",
            )
        if verdict == "refused":
            return replace(
                f,
                severity=_at_most(f.severity, "minor"),
                summary=f"{f.summary} At run time the server refused an unknown property, so a "
                "model is told; the schema still does not say so up front.",
            )
        return _unconfirmed(f, _why_not_seen(state, tool))
    if f.rule == "3.output-schema":
        kind = seen.get("output") or _prose_by_description(tools, tool)
        if kind == "prose":
            return None  # prose (a diff, a page of markdown) has no structure to declare
        if kind in ("json", "structured"):
            return replace(f, summary=f"{f.summary} The answer seen is structured data.")
        return _unconfirmed(f, _why_not_seen(state, tool))
    if f.rule == "3.strict-types" and f.summary.startswith("Date-like"):
        prop = f.evidence.get("property") if isinstance(f.evidence, dict) else None
        if seen.get(f"date-read:{prop}") == "asked":
            # the server reads the date itself and asked which day "01/02/2026" meant: a
            # `format: date` would state only the form it writes (and a model shown it converted
            # the user's date itself, wrongly)
            return None
        return _unconfirmed(f, _why_not_seen(state, tool))
    evidence = f.evidence if isinstance(f.evidence, dict) else {}
    if f.rule == "3.idempotency-key" and "key_property" in evidence:
        # The schema leaves the key unbounded; the key probes (with --allow-writes) decide.
        if seen.get("keys") in ("refused", "accepted"):
            return None  # refused: the server bounds it; accepted: the probe's finding says so
        return _unconfirmed(f, _why_not_seen(state, tool))
    if f.rule == "3.strict-types" and "listed" in evidence and seen.get("typo") == "silent":
        return None  # the typo probe's finding says more: a misspelled value found nothing
    duplicating = f.rule == "3.idempotency-key" or (
        f.rule == "3.honest-annotations" and "idempotentHint" in f.summary
    )
    if duplicating:
        repeat = seen.get("repeat")
        if repeat in ("refused", "same"):
            return None  # the retry errored or changed nothing: the call does not duplicate
        if repeat == "different":
            return replace(
                f,
                summary=f"{f.summary} Confirmed: the same call made twice gave two different "
                "results.",
                evidence={**f.evidence, "repeat": seen.get("repeat_evidence")}
                if isinstance(f.evidence, dict)
                else f.evidence,
            )
        return _unconfirmed(f, _why_not_seen(state, tool))
    return f
