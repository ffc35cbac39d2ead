"""§3 Tools, their names and descriptions: snake_case verb_noun names, descriptions that say when
and how, one verb per meaning, no endpoint mirroring, importable names (schemas: s3_schemas;
effects: s3_effects).
"""

from __future__ import annotations

import keyword
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding, tool_subject
from drivable.audit.rules.declare import Rules

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
BY_FIELD = re.compile(r"^(?P<stem>.+?)_by_(?P<field>[a-z0-9_]+)$")

RULES = Rules()


@RULES.per_tool(
    "3.naming",
    "`snake_case` prefix_verb_noun (`slack_send_message`); no prefix only if all hosts namespace.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Tool names are snake_case `verb_noun` (optionally prefixed, `slack_send_message`).",
        "Models copy naming patterns between tools; mixed styles and verb-less names make them "
        "invent tools that do not exist.",
        "`getUser`, `user-info`, `Users`.",
        "Rename to `get_user` / `users_get_profile`, keeping an alias during a deprecation window.",
        levels=(
            (
                "nit",
                "the name is snake_case but holds no verb drivable knows, or is a single lower-case word",
            ),
        ),
    ),
)
def _naming(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    name = str(tool.get("name", ""))
    if not SNAKE.match(name):
        one_word = re.fullmatch(r"[a-z][a-z0-9]*", name) is not None
        yield finding(
            "3.naming",
            # A single lower-case word (`echo`, `fetch`) imports fine and is read fine.
            "nit" if one_word else "minor",
            tool_subject(tool),
            f"`{name}` is not snake_case verb_noun.",
            {"name": name},
            f"Rename to `{'_'.join(h.words(name)) or 'verb_noun'}`"
            + ("" if h.verb_of(name) else " with a leading verb (get, list, create, ...)")
            + ".",
        )
    elif h.verb_of(name) is None:
        yield finding(
            "3.naming",
            "nit",
            tool_subject(tool),
            f"`{name}` has no recognisable verb.",
            {"name": name},
            "Start the name (after any prefix) with a verb: get, list, search, create, ...",
        )


@RULES.static(
    "3.verbs",
    "Each verb (list/get/create/update/delete/send/search) means one thing.",
    "a+c",
    doc=RuleDoc(
        "nit",
        "static",
        "One verb per meaning: the catalog does not mix synonyms (`get_` and `fetch_`, `delete_` "
        "and `remove_`).",
        "When two verbs mean the same, a model assumes they differ and looks for the difference.",
        "`get_invoice` beside `fetch_customer`.",
        "Pick one verb per meaning and rename the others.",
    ),
)
def _one_verb_per_meaning(ctx: StaticContext) -> Iterator[Finding]:
    names = sorted(ctx.tool_names)
    verbs = {h.verb_of(n) for n in names} - {None}
    for group in h.SYNONYM_GROUPS:
        used = sorted(v for v in verbs if v in group)
        if len(used) > 1:
            yield finding(
                "3.verbs",
                "nit",
                "server",
                f"Synonym verbs in one catalog: {', '.join(used)}.",
                {"verbs": used, "tools": [n for n in names if h.verb_of(n) in used][:10]},
                f"Use one verb (`{used[0]}`) for one meaning and rename the rest.",
            )


@RULES.per_tool(
    "3.descriptions",
    "Narrow descriptions with when-to-use, edge cases, example invocation.",
    "a+c",
    doc=RuleDoc(
        "major",
        "static",
        "Every tool has a description that says when to use it, its edge cases, and an example "
        "invocation.",
        "The description is the only thing a model reads to choose and fill a tool. A missing or "
        "one-line description turns selection into a guess.",
        '`"description": "Delete."`',
        "Write: purpose; `Use when ...`; edge cases (`Returns not_found if ...`); one example "
        "call with literal arguments.",
        levels=(
            (
                "minor",
                "there is a description beyond the name restated, but it lacks when to use, edge cases or an example",
            ),
        ),
    ),
)
def _description(ctx: StaticContext, tool: dict[str, Any]) -> Iterator[Finding]:
    desc = str(tool.get("description") or "").strip()
    name = str(tool.get("name"))
    props = sch.properties(h.input_schema(tool))
    example_args = {k: "..." for k in list(props)[:2]}
    if len(desc) < 20:
        restates = set(h.words(desc)) <= set(h.words(name)) | {"a", "an", "the", "of", "tool"}
        yield finding(
            "3.descriptions",
            # A short purpose line still lets a model choose; nothing, or the name again, does not.
            "major" if restates else "minor",
            tool_subject(tool),
            "Missing description." if not desc else f"Description is {len(desc)} characters.",
            {"description": desc},
            f"Describe `{name}`: what it does, `Use when ...`, edge cases, and an example such as "
            f"`{name}({', '.join(f'{k}=...' for k in example_args)})`.",
        )
        return
    missing = []
    if not h.WHEN_CUES.search(desc):
        missing.append("when to use it")
    if not h.EDGE_CUES.search(desc):
        missing.append("edge cases")
    if not h.EXAMPLE_CUES.search(desc):
        missing.append("an example invocation")
    if missing:
        # Length is the strongest signal: a purpose sentence without cues is degraded, not broken.
        yield finding(
            "3.descriptions",
            "minor",
            tool_subject(tool),
            f"Description does not say {', '.join(missing)}.",
            {"description": desc[:500]},
            f"Add to `{name}`'s description: "
            + "; ".join(
                {
                    "when to use it": "a `Use when ...` sentence",
                    "edge cases": "what happens when nothing matches or input is out of range",
                    "an example invocation": "one literal example call",
                }[m]
                for m in missing
            )
            + ".",
        )


@RULES.static(
    "3.code-exec-clients",
    "Import-friendly, non-colliding names; authoritative structuredContent; codes map to exceptions.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "Tool names are import-friendly identifiers and do not collide once normalised.",
        "Code-executing clients turn tools into functions; `get-user` and `get_user` collide and "
        "`get.user` does not import.",
        "`user.get` and `user-get`.",
        "Use `[a-z][a-z0-9_]*` names, unique after lower-casing.",
    ),
)
def _importable_names(ctx: StaticContext) -> Iterator[Finding]:
    names = sorted(ctx.tool_names)
    normal: dict[str, list[str]] = defaultdict(list)
    for n in names:
        normal[re.sub(r"[^a-z0-9]", "_", n.lower())].append(n)
    bad = [n for n in names if not n.isidentifier() or keyword.iskeyword(n)]
    clashes = [v for v in normal.values() if len(v) > 1]
    if bad or clashes:
        yield finding(
            "3.code-exec-clients",
            "minor",
            "server",
            "Tool names that do not import as identifiers or collide once normalised.",
            {"not_identifiers": bad[:10], "collisions": clashes[:10]},
            "Rename to `[a-z][a-z0-9_]*`, unique after lower-casing.",
        )


@RULES.static(
    "3.ap-endpoint-wrapping",
    "Anti-pattern: one tool per endpoint (60 tools ≈ 6–10 tasks).",
    "a+c",
    doc=RuleDoc(
        "major",
        "static",
        "No endpoint mirroring: `get_x_by_id`, `get_x_by_email`, `get_x_by_name` are one tool.",
        "Each mirrored endpoint is another near-identical choice; models pick the wrong one or "
        "chain them.",
        "`get_user_by_id`, `get_user_by_email`.",
        "One `get_user` with `user_id` or `email` (a oneOf), or a `find_users(query)`.",
    ),
)
def _endpoint_mirroring(ctx: StaticContext) -> Iterator[Finding]:
    names = sorted(ctx.tool_names)
    by_stem: dict[str, list[str]] = defaultdict(list)
    for n in names:
        m = BY_FIELD.match(n)
        if m:
            by_stem[m.group("stem")].append(n)
    for stem, mirrored in by_stem.items():
        if len(mirrored) > 1 or stem in ctx.tool_names:
            family = sorted(set(mirrored) | ({stem} & ctx.tool_names))
            fields = [BY_FIELD.match(n).group("field") for n in family if BY_FIELD.match(n)]  # type: ignore[union-attr]
            yield finding(
                "3.ap-endpoint-wrapping",
                "major",
                "server",
                f"Endpoint mirroring: {', '.join(f'`{n}`' for n in family)}.",
                {"tools": family},
                f"Merge into one `{stem}` taking one of "
                + ", ".join(f"`{f}`" for f in fields)
                + " (a oneOf), and remove the others after a deprecation window.",
            )
