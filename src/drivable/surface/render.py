"""Write a diff as text (a terminal), JSON (the pinned shape) or Markdown (a pull-request comment)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from drivable.surface.diff import CLASSES, Change, counts, to_json

_HEADINGS = {
    "breaking": "Breaking: an agent that learned the old surface fails or misbehaves",
    "routing": "Routing: what agents choose tools by and fill them in by changed",
    "additive": "Additive: new surface, nothing breaks",
    "cosmetic": "Cosmetic: nothing an agent acts on",
}


def _fingerprints(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> tuple[str, str]:
    def fp(s: Mapping[str, Any] | None) -> str:
        if not s:
            return "?"
        return str((s.get("fingerprint") or {}).get("value", "?"))

    return fp(old), fp(new)


def text(
    changes: list[Change],
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
) -> str:
    lines: list[str] = []
    if old is not None or new is not None:
        a, b = _fingerprints(old, new)
        lines.append(f"old {a}")
        lines.append(f"new {b}")
    n = counts(changes)
    lines.append(", ".join(f"{n[k]} {k}" for k in CLASSES))
    if not changes:
        lines.append("no change an agent can see")
    for klass in CLASSES:
        group = [c for c in changes if c.klass == klass]
        if not group:
            continue
        lines.append("")
        lines.append(_HEADINGS[klass])
        for c in group:
            lines.append(f"  {c.subject}  {c.summary}")
            lines.append(f"      at {c.path}")
    return "\n".join(lines) + "\n"


def as_json(changes: list[Change]) -> str:
    return json.dumps(to_json(changes), ensure_ascii=False, indent=2) + "\n"


def _md(text_: str) -> str:
    return text_.replace("|", "\\|").replace("\n", " ")


def markdown(
    changes: list[Change],
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
) -> str:
    n = counts(changes)
    verdict = (
        "breaks agents"
        if n["breaking"]
        else "changes routing"
        if n["routing"]
        else "safe for agents"
    )
    lines = [f"### MCP surface diff: {verdict}", ""]
    if old is not None or new is not None:
        a, b = _fingerprints(old, new)
        lines += [f"`{a}` → `{b}`", ""]
    lines.append(" · ".join(f"**{n[k]}** {k}" for k in CLASSES))
    for klass in CLASSES:
        group = [c for c in changes if c.klass == klass]
        if not group:
            continue
        lines += [
            "",
            f"#### {_HEADINGS[klass]}",
            "",
            "| subject | change | path |",
            "|---|---|---|",
        ]
        for c in group:
            lines.append(f"| `{_md(c.subject)}` | {_md(c.summary)} | `{_md(c.path)}` |")
    return "\n".join(lines) + "\n"


def render(
    changes: list[Change],
    fmt: str,
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
) -> str:
    if fmt == "json":
        return as_json(changes)
    if fmt in ("md", "markdown"):
        return markdown(changes, old, new)
    return text(changes, old, new)
