"""Classify every change between two canonical snapshots.

Four classes, from the point of view of an agent (a model) that learned the old surface:

- `breaking`: a call or a reading that used to work stops working, or silently means something else
  (tool removed or renamed, required input added, optional input made required, an input type, enum,
  format or bound narrowed, an output field removed, renamed or retyped, an error code removed or its
  meaning changed, a tool annotation made less safe, a resource's MIME type changed ...);
- `routing`: what the agent chooses by and fills in by changed (titles, descriptions, examples,
  instructions, lifecycle markers, the capability summary);
- `additive`: something new that breaks nothing (tools, optional inputs, output fields, enum values,
  error codes, capabilities, a safer annotation);
- `cosmetic`: nothing an agent acts on (schema titles, versions, order, annotations restated with the
  value MCP already defaulted to).

Schemas are walked in both directions: inputs are what the server accepts (narrowing breaks a caller),
outputs are what it returns (widening or retyping breaks a reader). `$ref`/`$defs` are resolved, arrays,
tuples, `anyOf`/`oneOf` unions, nullable type lists and `allOf` are walked. A property or a tool that
disappears while a similar one appears is reported as one rename when the evidence supports it (equal
names up to case and separators, the same schema shape, the same description, the same position, a
lifecycle `replaced_by`), never as a removal and an addition.

The work is in the modules beside this one: `changes` (a classified change and its sink),
`schema_facts`, `schema_keywords` and `schema_walk` (what the diff reads off a node beyond
`drivable.schema`, which resolves, folds and types schemas for it; one node's own keywords
compared; and the walk that compares two),
and `tool_diff` (a tool's annotations, lifecycle, errors and rename evidence). `diff`, `Change`,
`CLASSES`, `counts` and `to_json` are imported from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.surface.changes import (
    CLASSES,
    Change,
    ChangeClass,
    _norm_name,
    _short,
    _Sink,
    counts,
    to_json,
)
from drivable.surface.schema_facts import _pair
from drivable.surface.tool_diff import (
    _errors,
    _lifecycle,
    _meta,
    _order,
    _other_keys,
    _pos,
    _removed_note,
    _text_field,
    _tools,
)

_ITEM_KNOWN = {
    "lifecycle",
    "errors",
    "meta",
    "position",
    "name",
    "title",
    "description",
    "mimeType",
    "uri",
    "uriTemplate",
    "arguments",
    "annotations",
    "size",
}


def _listed(
    sink: _Sink,
    kind: str,
    key: str,
    old: list[Mapping[str, Any]],
    new: list[Mapping[str, Any]],
) -> None:
    """Resources (by uri), resource templates (by uriTemplate), prompts (by name)."""
    collection = {"resource": "resources", "template": "resource_templates", "prompt": "prompts"}[
        kind
    ]
    subject_kind = "prompt" if kind == "prompt" else "resource"
    om = {str(r[key]): r for r in old}
    nm = {str(r[key]): r for r in new}
    removed = [n for n in om if n not in nm]
    added = [n for n in nm if n not in om]

    def evidence(a: str, b: str) -> tuple[int, list[str]]:
        o, n = om[a], nm[b]
        why: list[str] = []
        score = 0
        if key != "name" and o.get("name") and o.get("name") == n.get("name"):
            score += 3
            why.append("same name")
        if _norm_name(a) == _norm_name(b):
            score += 3
            why.append("same key up to case and separators")
        if o.get("description") and o.get("description") == n.get("description"):
            score += 2
            why.append("same description")
        if o.get("position") == n.get("position") and len(old) == len(new):
            score += 1
            why.append("same position")
        return score, why

    renames = _pair(removed, added, evidence)
    noun = {"resource": "resource", "template": "resource template", "prompt": "prompt"}[kind]
    for a, b, why in renames:
        sink.add(
            "breaking",
            f"{subject_kind}:{a}",
            f"{collection}.{a}",
            f"{noun} renamed to `{b}` ({', '.join(why)}){_removed_note(om[a])}",
        )
        _item_diff(sink, kind, f"{subject_kind}:{b}", f"{collection}.{b}", om[a], nm[b])
    done_old = {a for a, _, _ in renames}
    done_new = {b for _, b, _ in renames}
    for n in removed:
        if n not in done_old:
            sink.add(
                "breaking",
                f"{subject_kind}:{n}",
                f"{collection}.{n}",
                f"{noun} removed{_removed_note(om[n])}",
            )
    for n in added:
        if n not in done_new:
            sink.add("additive", f"{subject_kind}:{n}", f"{collection}.{n}", f"{noun} added")
    for n in om:
        if n in nm:
            _item_diff(sink, kind, f"{subject_kind}:{n}", f"{collection}.{n}", om[n], nm[n])
    _order(
        sink,
        collection,
        [str(r[key]) for r in sorted(old, key=_pos)],
        [str(r[key]) for r in sorted(new, key=_pos)],
        dict((b, a) for a, b, _ in renames),
    )


def _item_diff(
    sink: _Sink, kind: str, subject: str, base: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> None:
    for field in ("title", "description"):
        _text_field(sink, subject, f"{base}.{field}", field, old.get(field), new.get(field))
    if kind != "prompt":
        _text_field(sink, subject, f"{base}.name", "name", old.get("name"), new.get("name"))
        if old.get("mimeType") != new.get("mimeType"):
            sink.add(
                "breaking",
                subject,
                f"{base}.mimeType",
                f"MIME type {_short(old.get('mimeType'))} -> {_short(new.get('mimeType'))}",
            )
        if old.get("size") != new.get("size"):
            sink.add("cosmetic", subject, f"{base}.size", "size changed")
        if old.get("annotations") != new.get("annotations"):
            sink.add("cosmetic", subject, f"{base}.annotations", "annotations changed")
    else:
        _prompt_arguments(
            sink, subject, base, old.get("arguments") or [], new.get("arguments") or []
        )
    _lifecycle(sink, subject, base, old.get("lifecycle"), new.get("lifecycle"))
    _errors(sink, subject, f"{base}.errors", old.get("errors"), new.get("errors"))
    _meta(sink, subject, base, old.get("meta"), new.get("meta"))
    _other_keys(sink, subject, base, old, new, _ITEM_KNOWN)


def _prompt_arguments(sink: _Sink, subject: str, base: str, old: list[Any], new: list[Any]) -> None:
    om = {str(a.get("name")): a for a in old if isinstance(a, Mapping)}
    nm = {str(a.get("name")): a for a in new if isinstance(a, Mapping)}
    for n in sorted(set(om) - set(nm)):
        sink.add("breaking", subject, f"{base}.arguments.{n}", f"argument `{n}` removed")
    for n in sorted(set(nm) - set(om)):
        if nm[n].get("required"):
            sink.add("breaking", subject, f"{base}.arguments.{n}", f"required argument `{n}` added")
        else:
            sink.add("additive", subject, f"{base}.arguments.{n}", f"optional argument `{n}` added")
    for n in sorted(set(om) & set(nm)):
        o, w = om[n], nm[n]
        if bool(o.get("required")) != bool(w.get("required")):
            if w.get("required"):
                sink.add(
                    "breaking",
                    subject,
                    f"{base}.arguments.{n}.required",
                    f"argument `{n}` was optional and is now required",
                )
            else:
                sink.add(
                    "additive",
                    subject,
                    f"{base}.arguments.{n}.required",
                    f"argument `{n}` was required and is now optional",
                )
        for field in ("title", "description"):
            _text_field(
                sink,
                subject,
                f"{base}.arguments.{n}.{field}",
                f"argument `{n}` {field}",
                o.get(field),
                w.get(field),
            )


def _capabilities(sink: _Sink, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    for name in sorted(set(old) | set(new)):
        if name not in new:
            sink.add(
                "breaking",
                "server",
                f"capabilities.{name}",
                f"capability {name} no longer advertised",
            )
            continue
        if name not in old:
            sink.add(
                "additive", "server", f"capabilities.{name}", f"capability {name} now advertised"
            )
            continue
        o, n = old[name], new[name]
        if isinstance(o, Mapping) and isinstance(n, Mapping):
            for flag in sorted(set(o) | set(n)):
                ov, nv = bool(o.get(flag)), bool(n.get(flag))
                if ov and not nv:
                    sink.add(
                        "breaking",
                        "server",
                        f"capabilities.{name}.{flag}",
                        f"{name}.{flag} no longer supported",
                    )
                elif nv and not ov:
                    sink.add(
                        "additive",
                        "server",
                        f"capabilities.{name}.{flag}",
                        f"{name}.{flag} now supported",
                    )
        elif o != n:
            removed = sorted(set(o) - set(n)) if isinstance(o, list) and isinstance(n, list) else []
            klass: ChangeClass = "breaking" if removed else "additive"
            sink.add(klass, "server", f"capabilities.{name}", f"{name} {_short(o)} -> {_short(n)}")


_SUMMARY_SKIP = {"errors", "error_codes", "failure_codes"}


def _summary(sink: _Sink, old: Any, new: Any, path: str = "capability_summary") -> None:
    if old == new:
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new)):
            if path == "capability_summary" and key in _SUMMARY_SKIP:
                continue  # compared as error codes
            if path == "capability_summary.server" and key == "fingerprint":
                continue  # the published fingerprint changes with everything else
            _summary(sink, old.get(key), new.get(key), f"{path}.{key}")
        return
    klass: ChangeClass = "routing"
    if path in ("capability_summary.server.name", "capability_summary.server.version"):
        klass = "cosmetic"
    if old is None:
        sink.add(klass, "server", path, "capability summary: added")
    elif new is None:
        sink.add(klass, "server", path, "capability summary: removed")
    else:
        sink.add(
            klass, "server", path, f"capability summary: {_short(old, 40)} -> {_short(new, 40)}"
        )


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every change from `old` to `new` (two canonical snapshots), in a deterministic order."""
    sink = _Sink()
    os_, ns = old.get("server") or {}, new.get("server") or {}
    if os_.get("name") != ns.get("name"):
        sink.add(
            "cosmetic",
            "server",
            "server.name",
            f"server name {_short(os_.get('name'))} -> {_short(ns.get('name'))}",
        )
    if os_.get("version") != ns.get("version"):
        sink.add(
            "cosmetic",
            "server",
            "server.version",
            f"server version {_short(os_.get('version'))} -> {_short(ns.get('version'))}",
        )
    for field in sorted((set(os_) | set(ns)) - {"name", "version"}):
        _text_field(
            sink, "server", f"server.{field}", f"server {field}", os_.get(field), ns.get(field)
        )
    _text_field(
        sink,
        "server",
        "instructions",
        "instructions",
        old.get("instructions"),
        new.get("instructions"),
    )
    _capabilities(sink, old.get("capabilities") or {}, new.get("capabilities") or {})
    _summary(sink, old.get("capability_summary"), new.get("capability_summary"))
    _errors(sink, "server", "error_codes", old.get("error_codes"), new.get("error_codes"))
    _tools(sink, list(old.get("tools") or []), list(new.get("tools") or []))
    _listed(
        sink, "resource", "uri", list(old.get("resources") or []), list(new.get("resources") or [])
    )
    _listed(
        sink,
        "template",
        "uriTemplate",
        list(old.get("resource_templates") or []),
        list(new.get("resource_templates") or []),
    )
    _listed(sink, "prompt", "name", list(old.get("prompts") or []), list(new.get("prompts") or []))
    unique = {(c.klass, c.subject, c.path, c.summary): c for c in sink.changes}
    return sorted(unique.values(), key=Change.sort_key)


__all__ = ["CLASSES", "Change", "counts", "diff", "to_json"]
