"""`drivable wrap --suggest -- CMD`: a starting config, from the upstream's listing and the
auditor's findings on it.

As written the config wraps the server exactly as no config does (tests/wrap/test_wrap_suggest.py
loads it back and compares the wrapped surfaces): it spells out what the wrapper inferred, for a
user to correct. Per tool: the effects inferred (a preset when one fits, else the four hints),
with the annotations they came from and the auditor's findings on them; the description when the
auditor flags it; the kinds bound by a property's name alone (`*_id`, a date name), not by its
type or format; a rename, commented, where the name is not `verb_noun`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from drivable.audit.model import Finding
from drivable.audit.runner import audit_surface
from drivable.contract.declare import Preset
from drivable.target import Target, collect_surface, connect
from drivable.wrap.build import Listing, owned_controls
from drivable.wrap.config import PRESETS
from drivable.wrap.effects import effects_of
from drivable.wrap.schema import DATE_NAMES, KINDS, is_id_name

# the auditor's rules about what a description says: a finding of one writes the description
DESCRIPTION_RULES = frozenset({"3.descriptions", "dv.instruction-text", "3.ap-prose-effects"})
EFFECT_RULES = frozenset(
    {
        "3.honest-annotations",
        "3.declare-effects",
        "3.idempotency-key",
        "3.sec-confirmation",
        "3.annotation-defaults",
    }
)
# what the wrapper does for every tool, whatever the config says: no line for them
WRAP_FIXES = frozenset({"3.closed-schemas", "3.output-schema"})
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


async def suggest(target: Target, timeout_s: float = 30.0) -> tuple[Listing, str]:
    """Read the upstream once, audit what it lists (static rules: no tool is called), and
    write the config."""
    async with connect(target) as client:
        surface = await collect_surface(client)
    _, findings = audit_surface(surface, offline=True)
    listing = listing_of(surface)
    return listing, suggested(listing, findings, timeout_s)


def listing_of(surface: Mapping[str, Any]) -> Listing:
    """The wrapper's `Listing` of a collected surface (`drivable.target.collect_surface`)."""
    server = surface.get("server") or {}
    return Listing(
        name=str(server.get("name") or "wrapped"),
        version=str(server.get("version") or "0"),
        instructions=surface.get("instructions"),
        tools=list(surface.get("tools") or []),
        resources=list(surface.get("resources") or []),
        resource_templates=list(surface.get("resource_templates") or []),
        prompts=list(surface.get("prompts") or []),
    )


def suggested(listing: Listing, findings: Sequence[Finding], timeout_s: float = 30.0) -> str:
    """The TOML text of a starting config for the server `listing` describes."""
    by_tool: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.subject.startswith("tool:"):
            by_tool.setdefault(finding.subject.removeprefix("tool:"), []).append(finding)
    lines = [
        "# A starting config for `drivable wrap --config FILE -- CMD`, written by",
        f"# `drivable wrap --suggest` from the listing of {listing.name} {listing.version} and",
        "# the auditor's findings on it. As written it wraps the server exactly as no config",
        "# does: correct what the wrapper inferred (the effects above all). The kinds a",
        f"# property may take: {', '.join(sorted(KINDS))}.",
        f"timeout_s = {timeout_s:g}",
    ]
    for tool in listing.tools:
        lines += ["", *_tool(tool, by_tool.get(tool["name"], []))]
    return "\n".join(lines) + "\n"


def _tool(tool: Mapping[str, Any], findings: Sequence[Finding]) -> list[str]:
    name = str(tool["name"])
    annotations = tool.get("annotations") or {}
    effects = effects_of(annotations, None, name, owned_controls(tool))
    hints = {k: v for k, v in annotations.items() if k.endswith("Hint")}
    out = [f"[tools.{_key(name)}]"]
    out.append(
        "# effects inferred from "
        + (", ".join(f"{k}={json.dumps(v)}" for k, v in hints.items()) or "no annotations")
        + (f"; owns {', '.join(sorted(owned_controls(tool)))}" if owned_controls(tool) else "")
    )
    out += [_said(f) for f in findings if f.rule in EFFECT_RULES]
    out.append(f"effects = {_effects(effects)}")
    described = [f for f in findings if f.rule in DESCRIPTION_RULES]
    text = str(tool.get("description") or "").strip()
    if described:
        out += [_said(f) for f in described]
        out.append(f"description = {_string(text)}" if text else '# description = "..."')
    kinds = guessed_kinds(tool.get("inputSchema") or {})
    if kinds:
        out.append("# kinds bound by the property's name alone")
        out.append(
            "kinds = { " + ", ".join(f"{_key(k)} = {_string(v)}" for k, v in kinds.items()) + " }"
        )
    for finding in findings:
        if finding.rule not in DESCRIPTION_RULES | EFFECT_RULES | WRAP_FIXES:
            out.append(_said(finding))
    if any(f.rule == "3.naming" for f in findings):
        out.append(f"# rename = {_string(_verb_noun(name))}")
    return out


def guessed_kinds(schema: Mapping[str, Any]) -> dict[str, str]:
    """The top-level string properties whose kind the wrapper binds by their name alone."""
    out: dict[str, str] = {}
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, Mapping) or not _plain_string(sub):
            continue
        if is_id_name(name):
            out[name] = "id"
        elif DATE_NAMES.match(name):
            out[name] = "date"
    return out


def _plain_string(schema: Mapping[str, Any]) -> bool:
    """A string with no format, pattern, enum or const: its name is all that binds a kind."""
    types = schema.get("type")
    kept = [t for t in types if t != "null"] if isinstance(types, list) else [types]
    return (
        kept == ["string"]
        and not any(k in schema for k in ("format", "pattern", "enum", "const", "$ref"))
        and not any(k in schema for k in ("anyOf", "oneOf"))
    )


def _effects(effects: Preset) -> str:
    chosen = {
        "read_only": effects.read_only,
        "destructive": effects.destructive,
        "idempotent": effects.idempotent,
    }
    for preset, hints in PRESETS.items():
        if hints == chosen:
            return _string(preset)
    table = {**chosen, "open_world": effects.open_world}
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table.items()) + " }"


def _said(finding: Finding) -> str:
    summary = " ".join(finding.summary.split())
    return f"# audit {finding.severity} {finding.rule}: {summary}"


def _verb_noun(name: str) -> str:
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).replace("-", "_").lower()
    return re.sub(r"_+", "_", snake).strip("_") or name


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; TOML escapes DEL too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")
