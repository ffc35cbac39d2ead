"""§4 Resources and §5 Prompts: triage metadata, short summaries, templates, prompt guidance."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from drivable.audit import heuristics as h
from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding
from drivable.audit.rules.declare import Rules

DEPLOYMENT_BITS = re.compile(
    r"(localhost|127\.0\.0\.1|:\d{2,5}/|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}|\b\d{10,}\b)", re.I
)
TOOL_MENTION = re.compile(r"`?\b([a-z][a-z0-9]*(?:_[a-z0-9]+){1,5})\b`?")

RULES = Rules()


def _resources(ctx: StaticContext) -> list[dict[str, Any]]:
    return [r for r in ctx.surface.get("resources", []) if isinstance(r, dict)]


def _templates(ctx: StaticContext) -> list[dict[str, Any]]:
    return [t for t in ctx.surface.get("resource_templates", []) if isinstance(t, dict)]


def _prompts(ctx: StaticContext) -> list[dict[str, Any]]:
    return [p for p in ctx.surface.get("prompts", []) if isinstance(p, dict)]


def _listed(ctx: StaticContext) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(subject, description, entry) of every listed resource, then every template."""
    for item in _resources(ctx) + _templates(ctx):
        subject = f"resource:{item.get('uri') or item.get('uriTemplate')}"
        yield subject, str(item.get("description") or ""), item


@RULES.static(
    "4.uri-nouns",
    "URI segments = stable domain nouns, not deployment ids.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "Resource URIs are built from domain nouns, not deployment ids (hosts, ports, uuids, "
        "timestamps).",
        "A URI a model learnt must still resolve tomorrow and on another deployment.",
        "`http://localhost:8080/items/0f8fad5b-...`",
        "Use `invoices://2026/INV-42`-style URIs with stable domain ids.",
    ),
)
def _uri_nouns(ctx: StaticContext) -> Iterator[Finding]:
    for subject, _, item in _listed(ctx):
        uri = str(item.get("uri") or item.get("uriTemplate") or "")
        if DEPLOYMENT_BITS.search(uri):
            yield finding(
                "4.uri-nouns",
                "minor",
                subject,
                "URI carries deployment details (host, port, uuid or timestamp).",
                {"uri": uri},
                "Build URIs from stable domain nouns and ids.",
            )


@RULES.static(
    "4.index-vs-body",
    "Lists give enough metadata to decide whether to read.",
    "a",
    doc=RuleDoc(
        "major",
        "static",
        "List entries hold triage metadata, not bodies (descriptions over 1,000 characters).",
        "Inlining bodies in `resources/list` makes every listing pay for every body.",
        "A resource whose description is the whole document.",
        "Keep a one-line description; serve the body from `resources/read`.",
    ),
)
def _index_vs_body(ctx: StaticContext) -> Iterator[Finding]:
    for subject, desc, _ in _listed(ctx):
        if len(desc) > 1000:
            yield finding(
                "4.index-vs-body",
                "major",
                subject,
                f"List entry carries a {len(desc)}-character description.",
                {"description_start": desc[:200]},
                "Keep a one-line description and serve the body from resources/read.",
            )


@RULES.static(
    "4.triage-metadata",
    "Native title/description/mimeType/size/lastModified; custom under namespaced `_meta`.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Resources carry the native triage fields: `description` and `mimeType` (and `size` when "
        "large).",
        "A model decides whether to read a resource from its list entry; without them it reads "
        "everything or nothing.",
        '`{"uri": "file:///report", "name": "report"}`',
        "Add `description`, `mimeType` and `size` to each resource.",
    ),
)
def _triage_metadata(ctx: StaticContext) -> Iterator[Finding]:
    resources, templates = _resources(ctx), _templates(ctx)
    bare = [
        str(r.get("uri")) for r in resources if not r.get("description") or not r.get("mimeType")
    ]
    if bare:
        yield finding(
            "4.triage-metadata",
            "minor",
            "server",
            f"{len(bare)} of {len(resources)} resources lack a description or mimeType.",
            {"resources": bare[:10]},
            "Add `description` and `mimeType` (and `size`) to each listed resource.",
        )
    if resources or templates:
        ctx.note(4, f"{len(resources)} resources, {len(templates)} templates listed")


@RULES.static(
    "4.templates",
    "Publish `resources/templates/list` (uriTemplate, name, title, description, mimeType).",
    "a",
    doc=RuleDoc(
        "nit",
        "static",
        "Resource templates carry `name`, `description` and `mimeType`.",
        "A template is a promise of many resources; the model must know what fills it.",
        '`{"uriTemplate": "case://{id}"}`',
        "Add `description` (say where `{id}` comes from) and `mimeType`.",
    ),
)
def _templates_described(ctx: StaticContext) -> Iterator[Finding]:
    for t in _templates(ctx):
        if not t.get("description") or not t.get("mimeType"):
            yield finding(
                "4.templates",
                "nit",
                f"resource:{t.get('uriTemplate')}",
                "Template lacks a description or mimeType.",
                {"template": t},
                "Add `description` (naming where each variable comes from) and `mimeType`.",
            )


@RULES.static(
    "4.short-summaries",
    "Resource summaries ≤ 3 sentences.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Resource and template descriptions are at most three sentences.",
        "List entries are read in bulk; long descriptions belong in the body.",
        "A ten-sentence description on a list entry.",
        "Cut to three sentences; move the rest into the resource body.",
    ),
)
def _short_summaries(ctx: StaticContext) -> Iterator[Finding]:
    for subject, desc, _ in _listed(ctx):
        if len(desc) <= 1000 and len(h.sentences(desc)) > 3:  # longer: 4.index-vs-body
            yield finding(
                "4.short-summaries",
                "minor",
                subject,
                f"Description has {len(h.sentences(desc))} sentences.",
                {"description": desc[:400]},
                "Cut the description to three sentences.",
            )


@RULES.static(
    "5.when-to-use",
    "Say when the prompt applies.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "Each prompt's description says when it applies.",
        "A prompt is chosen by a human or a model from its description alone.",
        '`{"name": "review"}` with no description.',
        "Describe the situation the prompt is for: `Use when ...`.",
    ),
)
def _when_to_use(ctx: StaticContext) -> Iterator[Finding]:
    prompts = _prompts(ctx)
    for p in prompts:
        desc = str(p.get("description") or "")
        if not desc or not h.WHEN_CUES.search(desc):
            yield finding(
                "5.when-to-use",
                "minor",
                f"prompt:{p.get('name')}",
                "Prompt does not say when it applies." if desc else "Prompt has no description.",
                {"description": desc},
                f"Describe when to use `{p.get('name')}`: `Use when ...`.",
            )
    if prompts:
        ctx.note(5, f"{len(prompts)} prompts listed")


@RULES.static(
    "5.completion",
    "Completion for dynamic prompt args.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "static",
        "Prompts with arguments come with the `completions` capability.",
        "Without completion the model guesses valid argument values.",
        "A prompt `court_summary(court)` with no completions.",
        "Advertise `completions` and complete the prompt arguments.",
    ),
)
def _prompt_completion(ctx: StaticContext) -> Iterator[Finding]:
    if ctx.offline or "completions" in ctx.capabilities:
        return
    prompts = [p for p in ctx.surface.get("prompts", []) if p.get("arguments")]
    if prompts:
        yield finding(
            "5.completion",
            "minor",
            "server",
            f"{len(prompts)} prompts take arguments but `completions` is not advertised.",
            {"prompts": [p.get("name") for p in prompts[:10]]},
            "Advertise `completions` and complete dynamic prompt arguments.",
        )


@RULES.static(
    "5.name-followups",
    "Name follow-on tools/resources canonically.",
    "a+b",
    doc=RuleDoc(
        "minor",
        "static",
        "Tool-like names a prompt mentions are real tools.",
        "A prompt that names a tool that does not exist teaches the model to call it.",
        "Prompt text mentions `search_cases`; the catalog has `search_decisions`.",
        "Use the canonical tool names from `tools/list`.",
    ),
)
def _name_followups(ctx: StaticContext) -> Iterator[Finding]:
    for p in _prompts(ctx):
        desc = str(p.get("description") or "")
        mentioned = {m for m in TOOL_MENTION.findall(desc) if h.verb_of(m)}
        unknown = sorted(mentioned - ctx.tool_names)
        if unknown and ctx.tools:
            yield finding(
                "5.name-followups",
                "minor",
                f"prompt:{p.get('name')}",
                "Prompt names tools that do not exist: " + ", ".join(f"`{u}`" for u in unknown),
                {"mentioned": unknown, "tools": sorted(ctx.tool_names)[:20]},
                "Use canonical names from tools/list.",
            )
