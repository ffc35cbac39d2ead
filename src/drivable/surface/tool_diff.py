"""How one tool changed: annotations (made less safe, or restated defaults), lifecycle, declared
error codes, routing `_meta`, prose fields, and the evidence that a removed tool was renamed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from drivable.schema import follow
from drivable.surface.changes import ChangeClass, _j, _norm_name, _short, _similar_text, _Sink
from drivable.surface.schema_facts import _pair, _shape
from drivable.surface.schema_walk import _SchemaWalk
from drivable.surface.snapshot import ANNOTATION_DEFAULTS


def _effective_annotations(tool: Mapping[str, Any]) -> dict[str, Any]:
    ann = tool.get("annotations")
    return dict(ann) if isinstance(ann, Mapping) else {}


_LESS_SAFE = {
    "readOnlyHint": (True, "read-only", "no longer read-only"),
    "destructiveHint": (False, "non-destructive", "may now be destructive"),
    "idempotentHint": (True, "idempotent", "no longer idempotent (a retry may repeat the effect)"),
    "openWorldHint": (False, "closed-world", "now reaches an open world"),
}


def _annotations(
    sink: _Sink, subject: str, base: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> None:
    oa, na = _effective_annotations(old), _effective_annotations(new)
    for hint, (safe_value, _, worse) in _LESS_SAFE.items():
        ov = oa.get(hint, ANNOTATION_DEFAULTS[hint])
        nv = na.get(hint, ANNOTATION_DEFAULTS[hint])
        path = f"{base}.annotations.{hint}"
        if ov == nv:
            if (hint in oa) != (hint in na) or oa.get(hint) != na.get(hint):
                said = "now stated" if hint in na else "no longer stated"
                sink.add(
                    "cosmetic", subject, path, f"{hint} {said} ({_j(nv)}, MCP's default meaning)"
                )
            continue
        if nv != safe_value and ov == safe_value:
            sink.add("breaking", subject, path, f"{hint} {_j(ov)} -> {_j(nv)}: {worse}")
        else:
            sink.add("additive", subject, path, f"{hint} {_j(ov)} -> {_j(nv)}: safer")
    if oa.get("title") != na.get("title"):
        sink.add(
            "routing",
            subject,
            f"{base}.annotations.title",
            f"annotation title {_short(oa.get('title'))} -> {_short(na.get('title'))}",
        )
    for key in sorted((set(oa) | set(na)) - set(_LESS_SAFE) - {"title"}):
        if oa.get(key) != na.get(key):
            sink.add(
                "cosmetic",
                subject,
                f"{base}.annotations.{key}",
                f"annotation {key} {_short(oa.get(key))} -> {_short(na.get(key))}",
            )


def _lifecycle(sink: _Sink, subject: str, base: str, old: Any, new: Any) -> None:
    old = old if isinstance(old, Mapping) else {}
    new = new if isinstance(new, Mapping) else {}
    if old.get("stability") != new.get("stability"):
        sink.add(
            "routing",
            subject,
            f"{base}.lifecycle.stability",
            f"stability {_short(old.get('stability'))} -> {_short(new.get('stability'))}",
        )
    od, nd = old.get("deprecation"), new.get("deprecation")
    if od != nd:
        if nd and not od:
            repl = nd.get("replaced_by") if isinstance(nd, Mapping) else None
            extra = f", replaced by {repl}" if repl else ""
            since = nd.get("since") if isinstance(nd, Mapping) else None
            sink.add(
                "routing",
                subject,
                f"{base}.lifecycle.deprecation",
                f"deprecated (since {since}{extra})",
            )
        elif od and not nd:
            sink.add("routing", subject, f"{base}.lifecycle.deprecation", "no longer deprecated")
        else:
            sink.add(
                "routing",
                subject,
                f"{base}.lifecycle.deprecation",
                f"deprecation changed: {_short(od)} -> {_short(nd)}",
            )
    for key in sorted((set(old) | set(new)) - {"stability", "deprecation"}):
        if old.get(key) != new.get(key):
            sink.add("cosmetic", subject, f"{base}.lifecycle.{key}", f"lifecycle {key} changed")


_RECOVERY_FIELDS_IGNORED = {"code", "source", "description", "message", "summary", "doc"}


def _errors(sink: _Sink, subject: str, base: str, old: Any, new: Any) -> None:
    om = {e["code"]: e for e in (old or []) if isinstance(e, Mapping) and "code" in e}
    nm = {e["code"]: e for e in (new or []) if isinstance(e, Mapping) and "code" in e}
    for code in sorted(set(om) - set(nm)):
        sink.add("breaking", subject, f"{base}.{code}", f"error code {code} removed")
    for code in sorted(set(nm) - set(om)):
        sink.add("additive", subject, f"{base}.{code}", f"error code {code} added")
    for code in sorted(set(om) & set(nm)):
        o, n = om[code], nm[code]
        fields = sorted((set(o) | set(n)) - _RECOVERY_FIELDS_IGNORED)
        changed = [f for f in fields if o.get(f) != n.get(f)]
        if changed:
            detail = ", ".join(
                f"{f} {_short(o.get(f), 30)} -> {_short(n.get(f), 30)}" for f in changed
            )
            sink.add(
                "breaking",
                subject,
                f"{base}.{code}",
                f"error code {code} changed meaning: {detail}",
            )
        od = " ".join(
            str(o.get(k) or "") for k in ("description", "message", "summary", "doc")
        ).strip()
        nd = " ".join(
            str(n.get(k) or "") for k in ("description", "message", "summary", "doc")
        ).strip()
        if od != nd:
            if od and nd and _similar_text(od, nd) >= 0.8:
                sink.add(
                    "routing",
                    subject,
                    f"{base}.{code}.description",
                    f"error code {code}: description reworded",
                )
            else:
                sink.add(
                    "breaking",
                    subject,
                    f"{base}.{code}.description",
                    f"error code {code} changed meaning: {_short(od, 40)} -> {_short(nd, 40)}",
                )


_ROUTING_META = re.compile(
    r"when-to-use|prerequisites|followups|follow-ups|summary|examples", re.IGNORECASE
)


def _meta(sink: _Sink, subject: str, base: str, old: Any, new: Any) -> None:
    old = old if isinstance(old, Mapping) else {}
    new = new if isinstance(new, Mapping) else {}
    for key in sorted(set(old) | set(new)):
        if old.get(key) == new.get(key):
            continue
        klass: ChangeClass = "routing" if _ROUTING_META.search(key) else "cosmetic"
        verb = "added" if key not in old else "removed" if key not in new else "changed"
        sink.add(klass, subject, f"{base}._meta.{key}", f"_meta {key} {verb}")


def _text_field(
    sink: _Sink,
    subject: str,
    path: str,
    what: str,
    old: Any,
    new: Any,
    klass: ChangeClass = "routing",
) -> None:
    if old == new:
        return
    if old in (None, ""):
        sink.add(klass, subject, path, f"{what} added: {_short(new, 50)}")
    elif new in (None, ""):
        sink.add(klass, subject, path, f"{what} removed (was {_short(old, 50)})")
    else:
        sink.add(klass, subject, path, f"{what} changed: {_short(old, 40)} -> {_short(new, 40)}")


def _tool_rename_evidence(
    old: Mapping[str, Any], new: Mapping[str, Any], n_old: int, n_new: int
) -> tuple[int, list[str]]:
    why: list[str] = []
    score = 0
    if _norm_name(str(old["name"])) == _norm_name(str(new["name"])):
        score += 3
        why.append("same name up to case and separators")
    ois, nis = old.get("inputSchema") or {}, new.get("inputSchema") or {}
    if _j(_shape(ois, ois)) == _j(_shape(nis, nis)):
        props = (ois.get("properties") if isinstance(ois, Mapping) else None) or {}
        score += 2 if len(props) >= 3 else 1
        why.append("same input schema")
    if _similar_text(_norm_name(str(old["name"])), _norm_name(str(new["name"]))) >= 0.75:
        score += 1
        why.append("similar name")
    if old.get("description") and old.get("description") == new.get("description"):
        score += 2
        why.append("same description")
    if old.get("outputSchema") and old.get("outputSchema") == new.get("outputSchema"):
        score += 1
        why.append("same output schema")
    if old.get("position") == new.get("position") and n_old == n_new:
        score += 1
        why.append("same position")
    lifecycle = old.get("lifecycle")
    if isinstance(lifecycle, Mapping):
        dep = lifecycle.get("deprecation")
        if isinstance(dep, Mapping) and dep.get("replaced_by") == new["name"]:
            score += 3
            why.append("its deprecation named the replacement")
    return score, why


_TOOL_KNOWN = {
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "lifecycle",
    "errors",
    "meta",
    "position",
    "detail",
}


def _empty_like(schema: Any) -> dict[str, Any]:
    """An object schema with no properties that otherwise reads like `schema` (root resolved)."""
    root, _ = follow(schema, schema)
    out: dict[str, Any] = {"type": "object", "properties": {}}
    if isinstance(root, Mapping):
        for key in ("title", "description", "additionalProperties", "$defs", "definitions"):
            if key in root:
                out[key] = root[key]
    return out


def _tool(sink: _Sink, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    name = str(new["name"])
    subject = f"tool:{name}"
    base = f"tools.{name}"
    _text_field(sink, subject, f"{base}.title", "title", old.get("title"), new.get("title"))
    _text_field(
        sink,
        subject,
        f"{base}.description",
        "description",
        old.get("description"),
        new.get("description"),
    )
    _annotations(sink, subject, base, old, new)
    if isinstance(new.get("detail"), Mapping):
        _detailed(sink, subject, base, old, new)
    else:
        _schemas(sink, subject, base, old, new, _listed)
    _lifecycle(sink, subject, base, old.get("lifecycle"), new.get("lifecycle"))
    _errors(sink, subject, f"{base}.errors", old.get("errors"), new.get("errors"))
    _meta(sink, subject, base, old.get("meta"), new.get("meta"))
    _other_keys(sink, subject, base, old, new, _TOOL_KNOWN)


def _listed(tool: Mapping[str, Any], key: str) -> Any:
    return tool.get(key)


def _whole(tool: Mapping[str, Any], key: str) -> Any:
    """`key` as the server publishes it whole: from the tool's `detail`, else as listed."""
    detail = tool.get("detail")
    if isinstance(detail, Mapping) and key in detail:
        return detail[key]
    return tool.get(key)


def _schemas(
    sink: _Sink,
    subject: str,
    base: str,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    read: Callable[[Mapping[str, Any], str], Any],
) -> None:
    """The input and output schemas compared, each side's as `read` takes it from the tool."""
    ois, nis = read(old, "inputSchema") or {}, read(new, "inputSchema") or {}
    _SchemaWalk(sink, subject, "in", ois, nis).start(ois, nis, f"{base}.inputSchema", "input")
    oos, nos = read(old, "outputSchema"), read(new, "outputSchema")
    if oos or nos:
        # a schema on one side only is walked against an empty object of the same look, so each
        # field it promised (or now promises) is one entry
        start = oos if oos else _empty_like(nos)
        end = nos if nos else _empty_like(oos)
        _SchemaWalk(sink, subject, "out", start, end).start(
            start, end, f"{base}.outputSchema", "output"
        )


def _detailed(
    sink: _Sink, subject: str, base: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> None:
    """A tool the new server publishes whole beside an abridged listing
    (docs/decisions/0041-a-field-the-detail-describes.md).

    Each side's whole schemas (the detail, else the listing) are compared as any schemas are.
    With a detail on both sides that comparison stands. With none on the old side, its listing is
    all it promised, so of the whole comparison stands what the listings show too, and the
    breaking output changes (a result field the old listing promised that the new whole schema
    no longer holds as it was). What only the listings show, a field the listing stopped
    spelling that the detail still describes, changed an agent's first view and broke nothing it
    relied on: one routing change per schema says so. (With a detail on the old side only, the
    new whole is unknown, a handshake-era snapshot for one: the listings are compared.)
    """
    whole, listed = _Sink(), _Sink()
    _schemas(whole, subject, base, old, new, _whole)
    _schemas(listed, subject, base, old, new, _listed)
    both = isinstance(old.get("detail"), Mapping) and isinstance(new.get("detail"), Mapping)
    shown = {(c.path, c.summary) for c in listed.changes}
    sink.changes.extend(
        c
        for c in whole.changes
        if both
        or (c.path, c.summary) in shown
        or (c.klass == "breaking" and c.path.startswith(f"{base}.outputSchema"))
    )
    confirmed = {(c.path, c.summary) for c in whole.changes}
    for key, side in (("inputSchema", "input"), ("outputSchema", "output")):
        only = [
            c
            for c in listed.changes
            if (c.path, c.summary) not in confirmed and c.path.startswith(f"{base}.{key}")
        ]
        if only:
            sink.add(
                "routing",
                subject,
                f"{base}.{key}",
                f"the listed {side} schema changed where the whole one (server/discover) did "
                f"not: {len(only)} difference{'s' if len(only) > 1 else ''}, e.g. {only[0].summary}",
            )
    if both:
        _text_field(
            sink,
            subject,
            f"{base}.detail.description",
            "whole description",
            old["detail"].get("description"),
            new["detail"].get("description"),
        )


def _other_keys(
    sink: _Sink,
    subject: str,
    base: str,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    known: frozenset[str] | set[str],
) -> None:
    """Keys of an item the diff has no rule for: any change to them is cosmetic."""
    for key in sorted((set(old) | set(new)) - known):
        if old.get(key) != new.get(key):
            sink.add(
                "cosmetic",
                subject,
                f"{base}.{key}",
                f"{key} {_short(old.get(key))} -> {_short(new.get(key))}",
            )


def _removed_note(item: Mapping[str, Any]) -> str:
    lifecycle = item.get("lifecycle")
    if isinstance(lifecycle, Mapping) and isinstance(lifecycle.get("deprecation"), Mapping):
        dep = lifecycle["deprecation"]
        note = f" (was deprecated since {dep.get('since')}"
        if dep.get("replaced_by"):
            note += f", replaced by {dep.get('replaced_by')}"
        return note + ")"
    return ""


def _tools(sink: _Sink, old: list[Mapping[str, Any]], new: list[Mapping[str, Any]]) -> None:
    om = {str(t["name"]): t for t in old}
    nm = {str(t["name"]): t for t in new}
    removed = [n for n in om if n not in nm]
    added = [n for n in nm if n not in om]
    renames = _pair(
        removed, added, lambda a, b: _tool_rename_evidence(om[a], nm[b], len(old), len(new))
    )
    for a, b, why in renames:
        sink.add(
            "breaking",
            f"tool:{a}",
            f"tools.{a}",
            f"tool renamed to `{b}` ({', '.join(why)}){_removed_note(om[a])}",
        )
        _tool(sink, om[a], nm[b])
    done_old = {a for a, _, _ in renames}
    done_new = {b for _, b, _ in renames}
    for n in removed:
        if n not in done_old:
            sink.add("breaking", f"tool:{n}", f"tools.{n}", f"tool removed{_removed_note(om[n])}")
    for n in added:
        if n not in done_new:
            sink.add("additive", f"tool:{n}", f"tools.{n}", "tool added")
    for n in om:
        if n in nm:
            _tool(sink, om[n], nm[n])
    _order(
        sink,
        "tools",
        [str(t["name"]) for t in sorted(old, key=_pos)],
        [str(t["name"]) for t in sorted(new, key=_pos)],
        dict((b, a) for a, b, _ in renames),
    )


def _pos(item: Mapping[str, Any]) -> int:
    pos = item.get("position")
    return pos if isinstance(pos, int) else 0


def _order(sink: _Sink, what: str, old: list[str], new: list[str], renamed: dict[str, str]) -> None:
    new_as_old = [renamed.get(n, n) for n in new]
    common_old = [n for n in old if n in new_as_old]
    common_new = [n for n in new_as_old if n in old]
    if common_old != common_new:
        sink.add(
            "cosmetic",
            "server",
            f"{what}.order",
            f"the server lists its {what.replace('_', ' ')} in a different order",
        )
