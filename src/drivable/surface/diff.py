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
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from drivable.surface.snapshot import ANNOTATION_DEFAULTS

ChangeClass = Literal["breaking", "routing", "additive", "cosmetic"]
CLASSES: tuple[ChangeClass, ...] = ("breaking", "routing", "additive", "cosmetic")
Direction = Literal["in", "out"]


@dataclass(frozen=True)
class Change:
    klass: ChangeClass
    subject: str
    path: str
    summary: str

    def to_dict(self) -> dict[str, str]:
        return {
            "class": self.klass,
            "subject": self.subject,
            "path": self.path,
            "summary": self.summary,
        }

    def sort_key(self) -> tuple[int, str, str, str]:
        return (CLASSES.index(self.klass), self.subject, self.path, self.summary)


class _Sink:
    def __init__(self) -> None:
        self.changes: list[Change] = []

    def add(self, klass: ChangeClass, subject: str, path: str, summary: str) -> None:
        self.changes.append(Change(klass, subject, path, summary))


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _short(value: Any, limit: int = 60) -> str:
    text = _j(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _similar_text(a: str, b: str) -> float:
    return difflib.SequenceMatcher(
        None, " ".join(a.lower().split()), " ".join(b.lower().split())
    ).ratio()


# ---------------------------------------------------------------------------------------------------
# JSON Schema walking


_PROSE_KEYS = ("title", "description", "examples", "example", "$comment")
_NUMERIC_LOWER = ("minimum", "exclusiveMinimum")
_NUMERIC_UPPER = ("maximum", "exclusiveMaximum")
_COUNT_LOWER = ("minLength", "minItems", "minProperties", "minContains")
_COUNT_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains")
_HANDLED = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "format",
    "pattern",
    "multipleOf",
    "default",
    "nullable",
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "uniqueItems",
    "deprecated",
    *_PROSE_KEYS,
    *_NUMERIC_LOWER,
    *_NUMERIC_UPPER,
    *_COUNT_LOWER,
    *_COUNT_UPPER,
}


_REF = re.compile(r'"\$ref": "([^"]*)"')


def _defs(root: Any) -> Any:
    """What the root's `$ref`s can point at; None when one points outside `$defs`/`definitions`."""
    if not isinstance(root, Mapping):
        return ()
    for ref in _REF.findall(json.dumps(root)):
        if not ref.startswith(("#/$defs/", "#/definitions/")):
            return None
    return (root.get("$defs"), root.get("definitions"))


# Validation keywords compared only as opaque values: a change may accept or return other values.
_OPAQUE_VALIDATION = {
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
}


class _Resolver:
    """Follows local `$ref`s (`#/...` JSON pointers) inside one root schema."""

    def __init__(self, root: Any) -> None:
        self.root = root

    def resolve(self, node: Any, seen: tuple[str, ...] = ()) -> tuple[Any, tuple[str, ...]]:
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#"):
                return node, seen
            seen = (*seen, ref)
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                if isinstance(target, Mapping) and part in target:
                    target = target[part]
                else:
                    return node, seen
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if isinstance(target, Mapping) else target
        return node, seen


def _merged_all_of(node: Mapping[str, Any], resolver: _Resolver) -> dict[str, Any]:
    """Fold `allOf` members into one schema (properties and required are unioned)."""
    out = {k: v for k, v in node.items() if k != "allOf"}
    for member in node.get("allOf") or []:
        member, _ = resolver.resolve(member)
        if not isinstance(member, Mapping):
            continue
        member = _merged_all_of(member, resolver) if "allOf" in member else member
        for key, value in member.items():
            if key == "properties" and isinstance(value, Mapping):
                out["properties"] = {**value, **(out.get("properties") or {})}
            elif key == "required" and isinstance(value, list):
                out["required"] = sorted(set(out.get("required") or []) | set(value))
            else:
                out.setdefault(key, value)
    return out


def _types(node: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a (non-union) schema admits; None when unconstrained."""
    raw = node.get("type")
    types: set[str] | None
    if isinstance(raw, str):
        types = {raw}
    elif isinstance(raw, list):
        types = {str(t) for t in raw}
    else:
        values = None
        if "enum" in node and isinstance(node["enum"], list):
            values = node["enum"]
        elif "const" in node:
            values = [node["const"]]
        if values is None:
            if "properties" in node:
                return {"object"}
            if "items" in node:
                return {"array"}
            return None
        types = {_json_type(v) for v in values}
    if node.get("nullable") is True:
        types.add("null")
    return types


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _covers(wide: set[str], narrow: set[str]) -> bool:
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _shape(node: Any, resolver: _Resolver, depth: int = 0) -> Any:
    """A schema with prose removed and refs inlined (to a depth): what rename evidence compares."""
    if depth > 8:
        return "…"
    node, _ = resolver.resolve(node)
    if isinstance(node, Mapping):
        return {
            k: _shape(v, resolver, depth + 1)
            for k, v in sorted(node.items())
            if k not in _PROSE_KEYS and k not in ("$defs", "definitions", "default")
        }
    if isinstance(node, list):
        return [_shape(v, resolver, depth + 1) for v in node]
    return node


def _enum_values(node: Mapping[str, Any]) -> list[Any] | None:
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    if "const" in node:
        return [node["const"]]
    return None


def _bound(node: Mapping[str, Any], side: str, integer: bool) -> tuple[float, bool] | None:
    """(value, exclusive) of the lower or upper numeric bound; integer bounds made inclusive."""
    plain, exclusive_key = (
        ("minimum", "exclusiveMinimum") if side == "lo" else ("maximum", "exclusiveMaximum")
    )
    candidates: list[tuple[float, bool]] = []
    value = node.get(plain)
    excl = node.get(exclusive_key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        candidates.append((float(value), excl is True))
    if isinstance(excl, int | float) and not isinstance(excl, bool):
        candidates.append((float(excl), True))
    if not candidates:
        return None
    if side == "lo":
        best = max(candidates, key=lambda c: (c[0], c[1]))
    else:
        best = min(candidates, key=lambda c: (c[0], not c[1]))
    if integer:
        v, ex = best
        if side == "lo":
            v = math.floor(v) + 1 if ex else math.ceil(v)
        else:
            v = math.ceil(v) - 1 if ex else math.floor(v)
        return (float(v), False)
    return best


def _tighter(old: tuple[float, bool] | None, new: tuple[float, bool] | None, side: str) -> int:
    """1 if new is tighter than old, -1 if looser, 0 if the same."""
    if old == new:
        return 0
    if old is None:
        return 1
    if new is None:
        return -1
    (ov, oe), (nv, ne) = old, new
    if ov == nv:
        return 1 if ne and not oe else -1
    if side == "lo":
        return 1 if nv > ov else -1
    return 1 if nv < ov else -1


def _fmt_bound(b: tuple[float, bool] | None, side: str) -> str:
    if b is None:
        return "none"
    v, ex = b
    shown = str(int(v)) if float(v).is_integer() else str(v)
    op = (">" if ex else ">=") if side == "lo" else ("<" if ex else "<=")
    return f"{op} {shown}"


class _SchemaWalk:
    """Walks an old and a new schema side by side and reports each difference once."""

    def __init__(
        self,
        sink: _Sink,
        subject: str,
        direction: Direction,
        old_root: Any,
        new_root: Any,
    ) -> None:
        self.sink = sink
        self.subject = subject
        self.direction = direction
        self.old = _Resolver(old_root)
        self.new = _Resolver(new_root)
        self.noun = "input" if direction == "in" else "output field"
        self.root = ""
        self.now_required: set[str] = set()
        # equal subtrees can be skipped only when every $ref they hold means the same on both sides
        old_defs = _defs(old_root)
        self.same_defs = old_defs is not None and old_defs == _defs(new_root)

    def start(self, old: Any, new: Any, path: str, label: str) -> None:
        self.root = path
        self.walk(old, new, path, label)

    def emit(self, klass: ChangeClass, path: str, summary: str) -> None:
        self.sink.add(klass, self.subject, path, summary)

    def _dotted(self, path: str, name: str) -> str:
        """The field's name as an agent spells it: `a.b[].c` below the schema root."""
        below = path[len(self.root) :].lstrip(".") if path.startswith(self.root) else path
        return f"{below}.{name}" if below else name

    def narrowed(self) -> ChangeClass:
        """Class of a change that admits fewer values."""
        return "breaking" if self.direction == "in" else "additive"

    def widened(self) -> ChangeClass:
        """Class of a change that admits more values."""
        return "additive" if self.direction == "in" else "breaking"

    def walk(
        self,
        old: Any,
        new: Any,
        path: str,
        label: str,
        seen_old: tuple[str, ...] = (),
        seen_new: tuple[str, ...] = (),
    ) -> None:
        if self.same_defs and old == new:
            return
        old_ref = old.get("$ref") if isinstance(old, Mapping) else None
        new_ref = new.get("$ref") if isinstance(new, Mapping) else None
        if (
            old_ref is not None
            and new_ref is not None
            and old_ref in seen_old
            and new_ref in seen_new
        ):
            return  # a recursive type already being compared on this path
        old, seen_old = self.old.resolve(old, seen_old)
        new, seen_new = self.new.resolve(new, seen_new)
        if old is True or old == {}:
            old = {}
        if new is True or new == {}:
            new = {}
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            if old != new:
                self.emit(
                    "breaking", path, f"{label}: schema changed from {_short(old)} to {_short(new)}"
                )
            return
        if "allOf" in old:
            old = _merged_all_of(old, self.old)
        if "allOf" in new:
            new = _merged_all_of(new, self.new)
        old_variants = self._variants(old, self.old)
        new_variants = self._variants(new, self.new)
        if len(old_variants) > 1 or len(new_variants) > 1:
            self._prose(old, new, path, label)
            self._union(old_variants, new_variants, path, label, seen_old, seen_new)
            return
        self._single(old_variants[0], new_variants[0], path, label, seen_old, seen_new)

    def _variants(self, node: Mapping[str, Any], resolver: _Resolver) -> list[Mapping[str, Any]]:
        members = node.get("anyOf") or node.get("oneOf")
        if isinstance(members, list) and members:
            base = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf", *_PROSE_KEYS)}
            out: list[Mapping[str, Any]] = []
            for member in members:
                member, _ = resolver.resolve(member)
                if not isinstance(member, Mapping):
                    continue
                merged = {**base, **member}
                out.extend(self._variants(merged, resolver))
            return out or [node]
        types = _types(node)
        if isinstance(node.get("type"), list) and types and len(types) > 1:
            out = []
            for t in sorted(types):
                variant = {k: v for k, v in node.items() if k not in ("type", "nullable")}
                variant["type"] = t
                if t == "null":
                    variant = {"type": "null"}
                out.append(variant)
            return out
        return [node]

    def _variant_key(self, node: Mapping[str, Any]) -> str:
        types = _types(node)
        key = ",".join(sorted(types)) if types else "any"
        if "const" in node:
            key += "=" + _j(node["const"])
        elif isinstance(node.get("title"), str) and key == "object":
            key += ":" + node["title"]
        return key

    def _union(
        self,
        old: list[Mapping[str, Any]],
        new: list[Mapping[str, Any]],
        path: str,
        label: str,
        seen_old: tuple[str, ...],
        seen_new: tuple[str, ...],
    ) -> None:
        old_left = {i: self._variant_key(v) for i, v in enumerate(old)}
        new_left = {i: self._variant_key(v) for i, v in enumerate(new)}
        pairs: list[tuple[int, int]] = []
        for i, key in list(old_left.items()):
            for j, nkey in list(new_left.items()):
                if key == nkey:
                    pairs.append((i, j))
                    del old_left[i], new_left[j]
                    break
        # second pass: the same base type (e.g. two object variants with different titles)
        for i, key in list(old_left.items()):
            base = key.split(":")[0].split("=")[0]
            for j, nkey in list(new_left.items()):
                if nkey.split(":")[0].split("=")[0] == base and "=" not in key and "=" not in nkey:
                    pairs.append((i, j))
                    del old_left[i], new_left[j]
                    break
        old_types = set().union(*(_types(v) or {"any"} for v in old)) if old else set()
        new_types = set().union(*(_types(v) or {"any"} for v in new)) if new else set()
        # integer <-> number leftovers are a type change, not an unrelated variant
        for i, key in list(old_left.items()):
            for j, nkey in list(new_left.items()):
                if {key, nkey} == {"integer", "number"}:
                    pairs.append((i, j))
                    del old_left[i], new_left[j]
                    break
        for i, j in sorted(pairs):
            sub = path if len(old) == 1 and len(new) == 1 else f"{path}|{self._variant_key(new[j])}"
            self._single(old[i], new[j], sub, label, seen_old, seen_new)
        for i in sorted(old_left):
            key = old_left[i]
            covered = _types(old[i]) is not None and _covers(new_types, _types(old[i]) or set())
            if covered and "=" not in key:
                continue
            if "=" in key:  # a const variant: an enum value by another spelling
                value = key.split("=", 1)[1]
                self.emit("breaking", f"{path}|{key}", f"{label}: value {value} removed")
                continue
            self.emit(
                self.narrowed(),
                f"{path}|{key}",
                f"{label}: no longer {'accepts' if self.direction == 'in' else 'returns'} {key}",
            )
        for j in sorted(new_left):
            key = new_left[j]
            covered = _types(new[j]) is not None and _covers(old_types, _types(new[j]) or set())
            if covered and "=" not in key:
                continue
            if "=" in key:
                value = key.split("=", 1)[1]
                self.emit("additive", f"{path}|{key}", f"{label}: value {value} added")
                continue
            self.emit(
                self.widened(),
                f"{path}|{key}",
                f"{label}: now {'accepts' if self.direction == 'in' else 'may return'} {key}",
            )

    def _prose(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, label: str) -> None:
        for key in ("description", "examples", "example"):
            if old.get(key) != new.get(key):
                if key not in old:
                    detail = f"added: {_short(new[key], 50)}"
                elif key not in new:
                    detail = f"removed (was {_short(old[key], 50)})"
                else:
                    detail = f"changed: {_short(old[key], 40)} -> {_short(new[key], 40)}"
                self.emit("routing", f"{path}.{key}", f"{label}: {key} {detail}")
        if old.get("title") != new.get("title"):
            self.emit(
                "cosmetic",
                f"{path}.title",
                f"{label}: schema title {_short(old.get('title'))} -> {_short(new.get('title'))}",
            )
        if old.get("deprecated") != new.get("deprecated"):
            state = "deprecated" if new.get("deprecated") else "no longer deprecated"
            self.emit("routing", f"{path}.deprecated", f"{label}: now {state}")

    def _single(
        self,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        path: str,
        label: str,
        seen_old: tuple[str, ...],
        seen_new: tuple[str, ...],
    ) -> None:
        self._prose(old, new, path, label)
        old_t, new_t = _types(old), _types(new)
        if old_t != new_t:
            if new_t is None:
                self.emit(
                    self.widened(),
                    f"{path}.type",
                    f"{label}: type {sorted(old_t or [])} is now unconstrained",
                )
            elif old_t is None:
                self.emit(
                    self.narrowed(),
                    f"{path}.type",
                    f"{label}: type now restricted to {sorted(new_t)}",
                )
            elif _covers(old_t, new_t):
                self.emit(
                    self.narrowed(),
                    f"{path}.type",
                    f"{label}: type narrowed from {sorted(old_t)} to {sorted(new_t)}",
                )
            elif _covers(new_t, old_t):
                self.emit(
                    self.widened(),
                    f"{path}.type",
                    f"{label}: type widened from {sorted(old_t)} to {sorted(new_t)}",
                )
            else:
                self.emit(
                    "breaking",
                    f"{path}.type",
                    f"{label}: type changed from {sorted(old_t)} to {sorted(new_t)}",
                )
        self._enum(old, new, path, label)
        self._format(old, new, path, label)
        self._bounds(old, new, path, label, new_t or old_t or set())
        self._default(old, new, path, label)
        self._objects(old, new, path, label, seen_old, seen_new)
        self._arrays(old, new, path, label, seen_old, seen_new)
        for key in sorted((set(old) | set(new)) - _HANDLED):
            if old.get(key) != new.get(key):
                # a validation keyword this walk does not reason about: assume the worst
                klass: ChangeClass = "breaking" if key in _OPAQUE_VALIDATION else "cosmetic"
                note = " (not compared in detail)" if klass == "breaking" else ""
                self.emit(
                    klass,
                    f"{path}.{key}",
                    f"{label}: keyword {key} {_short(old.get(key))} -> {_short(new.get(key))}{note}",
                )

    def _enum(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, label: str) -> None:
        ov, nv = _enum_values(old), _enum_values(new)
        if ov == nv:
            return
        if ov is None and nv is not None:
            self.emit(self.narrowed(), f"{path}.enum", f"{label}: now limited to {_short(nv)}")
            return
        if nv is None and ov is not None:
            self.emit(self.widened(), f"{path}.enum", f"{label}: no longer limited to {_short(ov)}")
            return
        assert ov is not None and nv is not None
        old_keys = {_j(v): v for v in ov}
        new_keys = {_j(v): v for v in nv}
        for key in sorted(set(old_keys) - set(new_keys)):
            self.emit("breaking", f"{path}.enum", f"{label}: enum value {key} removed")
        for key in sorted(set(new_keys) - set(old_keys)):
            self.emit("additive", f"{path}.enum", f"{label}: enum value {key} added")
        if set(old_keys) == set(new_keys):
            self.emit("cosmetic", f"{path}.enum", f"{label}: enum values reordered")

    def _format(
        self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, label: str
    ) -> None:
        of, nf = old.get("format"), new.get("format")
        if of == nf:
            return
        if nf is None:
            self.emit("breaking", f"{path}.format", f"{label}: format {of!r} removed")
        elif of is None:
            self.emit(self.narrowed(), f"{path}.format", f"{label}: format {nf!r} added")
        else:
            self.emit(
                "breaking", f"{path}.format", f"{label}: format changed from {of!r} to {nf!r}"
            )

    def _bounds(
        self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, label: str, types: set[str]
    ) -> None:
        integer = types == {"integer"} or types == {"integer", "null"}
        for side, keys in (("lo", _NUMERIC_LOWER), ("hi", _NUMERIC_UPPER)):
            ob, nb = _bound(old, side, integer), _bound(new, side, integer)
            t = _tighter(ob, nb, side)
            if t == 0:
                if any(old.get(k) != new.get(k) for k in keys):
                    self.emit(
                        "cosmetic",
                        f"{path}.{keys[0]}",
                        f"{label}: bound restated as {_fmt_bound(nb, side)}",
                    )
                continue
            word = "tightened" if t > 0 else "loosened"
            self.emit(
                self.narrowed() if t > 0 else self.widened(),
                f"{path}.{keys[0]}",
                f"{label}: {'lower' if side == 'lo' else 'upper'} bound {word} from {_fmt_bound(ob, side)} to {_fmt_bound(nb, side)}",
            )
        for counted, side in ((_COUNT_LOWER, "lo"), (_COUNT_UPPER, "hi")):
            for key in counted:
                o, n = old.get(key), new.get(key)
                if o == n:
                    continue
                ob2 = None if o is None else (float(o), False)
                nb2 = None if n is None else (float(n), False)
                t = _tighter(ob2, nb2, side)
                word = "tightened" if t > 0 else "loosened"
                self.emit(
                    self.narrowed() if t > 0 else self.widened(),
                    f"{path}.{key}",
                    f"{label}: {key} {word} from {o} to {n}",
                )
        om, nm = old.get("multipleOf"), new.get("multipleOf")
        if om != nm:
            if om is None:
                klass = self.narrowed()
            elif nm is None:
                klass = self.widened()
            elif (
                isinstance(om, int | float)
                and isinstance(nm, int | float)
                and om
                and nm
                and (nm / om).is_integer()
            ):
                klass = self.narrowed()
            elif (
                isinstance(om, int | float)
                and isinstance(nm, int | float)
                and om
                and nm
                and (om / nm).is_integer()
            ):
                klass = self.widened()
            else:
                klass = "breaking"
            self.emit(klass, f"{path}.multipleOf", f"{label}: multipleOf {om} -> {nm}")
        op, np_ = old.get("pattern"), new.get("pattern")
        if op != np_:
            if op is None:
                self.emit(self.narrowed(), f"{path}.pattern", f"{label}: pattern {np_!r} added")
            elif np_ is None:
                self.emit(self.widened(), f"{path}.pattern", f"{label}: pattern {op!r} removed")
            else:
                self.emit(
                    "breaking",
                    f"{path}.pattern",
                    f"{label}: pattern changed from {op!r} to {np_!r}",
                )
        ou, nu = bool(old.get("uniqueItems")), bool(new.get("uniqueItems"))
        if ou != nu:
            self.emit(
                self.narrowed() if nu else self.widened(),
                f"{path}.uniqueItems",
                f"{label}: uniqueItems {ou} -> {nu}",
            )

    def _default(
        self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, label: str
    ) -> None:
        if old.get("default") == new.get("default") and ("default" in old) == ("default" in new):
            return
        if self.direction == "out":
            self.emit(
                "cosmetic",
                f"{path}.default",
                f"{label}: default {_short(old.get('default'))} -> {_short(new.get('default'))}",
            )
        elif "default" not in old:
            self.emit(
                "additive", f"{path}.default", f"{label}: default {_short(new['default'])} added"
            )
        elif "default" not in new:
            if path in self.now_required:
                return  # implied by "now required", reported there
            self.emit(
                "routing", f"{path}.default", f"{label}: default {_short(old['default'])} removed"
            )
        else:
            self.emit(
                "breaking",
                f"{path}.default",
                f"{label}: default changed from {_short(old['default'])} to {_short(new['default'])} (an agent that omits it gets different behaviour)",
            )

    def _objects(
        self,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        path: str,
        label: str,
        seen_old: tuple[str, ...],
        seen_new: tuple[str, ...],
    ) -> None:
        op = old.get("properties") if isinstance(old.get("properties"), Mapping) else {}
        np_ = new.get("properties") if isinstance(new.get("properties"), Mapping) else {}
        assert isinstance(op, Mapping) and isinstance(np_, Mapping)
        oreq = set(old.get("required") or [])
        nreq = set(new.get("required") or [])
        removed = [k for k in op if k not in np_]
        added = [k for k in np_ if k not in op]
        old_order = list(op)
        new_order = list(np_)

        def evidence(a: str, b: str) -> tuple[int, list[str]]:
            why: list[str] = []
            score = 0
            if _norm_name(a) == _norm_name(b):
                score += 3
                why.append("same name up to case and separators")
            shape_a = _shape(op[a], self.old)
            if _j(shape_a) == _j(_shape(np_[b], self.new)):
                score += 2 if _distinctive(shape_a) else 1
                why.append("same schema")
            da = _resolved_text(op[a], self.old, "description")
            db = _resolved_text(np_[b], self.new, "description")
            if da and da == db:
                score += 2
                why.append("same description")
            if old_order.index(a) == new_order.index(b):
                score += 1
                why.append("same position")
            return score, why

        renames = _pair(removed, added, evidence)
        for a, b, why in renames:
            sub = f"{path}.{b}"
            was_req, is_req = a in oreq, b in nreq
            self.emit(
                "breaking",
                f"{path}.{a}",
                f"{self.noun} `{self._dotted(path, a)}` renamed to `{b}` ({', '.join(why)})",
            )
            self._required_change(was_req, is_req, sub, self._dotted(path, b))
            self.walk(
                op[a], np_[b], sub, f"{self.noun} `{self._dotted(path, b)}`", seen_old, seen_new
            )
        paired_old = {a for a, _, _ in renames}
        paired_new = {b for _, b, _ in renames}
        for name in removed:
            if name in paired_old:
                continue
            if self.direction == "in":
                self.emit(
                    "breaking",
                    f"{path}.{name}",
                    f"input `{self._dotted(path, name)}` removed (a call that sends it is rejected or loses it)",
                )
            else:
                self.emit(
                    "breaking",
                    f"{path}.{name}",
                    f"output field `{self._dotted(path, name)}` removed",
                )
        for name in added:
            if name in paired_new:
                continue
            if self.direction == "in":
                if name in nreq:
                    self.emit(
                        "breaking",
                        f"{path}.{name}",
                        f"required input `{self._dotted(path, name)}` added",
                    )
                else:
                    self.emit(
                        "additive",
                        f"{path}.{name}",
                        f"optional input `{self._dotted(path, name)}` added",
                    )
            else:
                self.emit(
                    "additive", f"{path}.{name}", f"output field `{self._dotted(path, name)}` added"
                )
        for name in op:
            if name not in np_:
                continue
            self._required_change(
                name in oreq, name in nreq, f"{path}.{name}", self._dotted(path, name)
            )
            self.walk(
                op[name],
                np_[name],
                f"{path}.{name}",
                f"{self.noun} `{self._dotted(path, name)}`",
                seen_old,
                seen_new,
            )
        for name in sorted((oreq - set(op)) ^ (nreq - set(np_))):
            # required names without a property schema
            self._required_change(
                name in oreq, name in nreq, f"{path}.{name}", self._dotted(path, name)
            )
        oa, na = old.get("additionalProperties"), new.get("additionalProperties")
        if isinstance(oa, Mapping) and isinstance(na, Mapping):
            self.walk(oa, na, f"{path}.{{*}}", f"{label} (extra keys)", seen_old, seen_new)
        elif oa != na:
            closed_old, closed_new = oa is False, na is False
            if closed_new and not closed_old:
                klass: ChangeClass = "breaking" if self.direction == "in" else "cosmetic"
                self.emit(
                    klass, f"{path}.additionalProperties", f"{label}: unknown keys are now rejected"
                )
            elif closed_old and not closed_new:
                klass = "additive" if self.direction == "in" else "cosmetic"
                self.emit(
                    klass, f"{path}.additionalProperties", f"{label}: unknown keys are now allowed"
                )
            else:
                self.emit(
                    "cosmetic",
                    f"{path}.additionalProperties",
                    f"{label}: additionalProperties {_short(oa)} -> {_short(na)}",
                )

    def _required_change(self, was: bool, now: bool, path: str, name: str) -> None:
        if was == now:
            return
        if self.direction == "in":
            if now:
                self.now_required.add(path)
                self.emit(
                    "breaking",
                    f"{path}.required",
                    f"input `{name}` was optional and is now required",
                )
            else:
                self.emit(
                    "additive",
                    f"{path}.required",
                    f"input `{name}` was required and is now optional",
                )
        elif now:
            self.emit(
                "additive", f"{path}.required", f"output field `{name}` is now always present"
            )
        else:
            self.emit("breaking", f"{path}.required", f"output field `{name}` may now be absent")

    def _arrays(
        self,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        path: str,
        label: str,
        seen_old: tuple[str, ...],
        seen_new: tuple[str, ...],
    ) -> None:
        oi, ni = old.get("items"), new.get("items")
        if isinstance(oi, Mapping) or isinstance(ni, Mapping):
            self.walk(
                oi if oi is not None else {},
                ni if ni is not None else {},
                f"{path}[]",
                f"{label} (items)",
                seen_old,
                seen_new,
            )
        op_, np_ = old.get("prefixItems"), new.get("prefixItems")
        if isinstance(op_, list) or isinstance(np_, list):
            op_ = op_ if isinstance(op_, list) else []
            np_ = np_ if isinstance(np_, list) else []
            for i in range(max(len(op_), len(np_))):
                if i >= len(op_):
                    self.emit(self.narrowed(), f"{path}[{i}]", f"{label}: tuple item {i} added")
                elif i >= len(np_):
                    self.emit(self.widened(), f"{path}[{i}]", f"{label}: tuple item {i} removed")
                else:
                    self.walk(
                        op_[i], np_[i], f"{path}[{i}]", f"{label} (item {i})", seen_old, seen_new
                    )


def _distinctive(shape: Any) -> bool:
    """A schema shape that says more than a bare type (an enum, a format, a pattern, properties)."""
    if not isinstance(shape, Mapping):
        return False
    return any(k not in ("type",) for k in shape)


def _resolved_text(node: Any, resolver: _Resolver, key: str) -> str | None:
    node, _ = resolver.resolve(node)
    if isinstance(node, Mapping) and isinstance(node.get(key), str):
        return str(node[key])
    return None


def _pair(
    removed: list[str],
    added: list[str],
    evidence: Callable[[str, str], tuple[int, list[str]]],
    threshold: int = 3,
) -> list[tuple[str, str, list[str]]]:
    """Greedy best-first pairing of removed and added names whose evidence reaches the threshold."""
    scored: list[tuple[int, str, str, list[str]]] = []
    for a in removed:
        for b in added:
            score, why = evidence(a, b)
            if score >= threshold:
                scored.append((score, a, b, why))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    used_a: set[str] = set()
    used_b: set[str] = set()
    out: list[tuple[str, str, list[str]]] = []
    for _, a, b, why in scored:
        if a in used_a or b in used_b:
            continue
        used_a.add(a)
        used_b.add(b)
        out.append((a, b, why))
    return out


# ---------------------------------------------------------------------------------------------------
# Surface items


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
    if _j(_shape(ois, _Resolver(ois))) == _j(_shape(nis, _Resolver(nis))):
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
}


def _empty_like(schema: Any) -> dict[str, Any]:
    """An object schema with no properties that otherwise reads like `schema` (root resolved)."""
    root, _ = _Resolver(schema).resolve(schema)
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
    ois, nis = old.get("inputSchema") or {}, new.get("inputSchema") or {}
    _SchemaWalk(sink, subject, "in", ois, nis).start(ois, nis, f"{base}.inputSchema", "input")
    oos, nos = old.get("outputSchema"), new.get("outputSchema")
    if oos or nos:
        # a schema on one side only is walked against an empty object of the same look, so each
        # field it promised (or now promises) is one entry
        start = oos if oos else _empty_like(nos)
        end = nos if nos else _empty_like(oos)
        _SchemaWalk(sink, subject, "out", start, end).start(
            start, end, f"{base}.outputSchema", "output"
        )
    _lifecycle(sink, subject, base, old.get("lifecycle"), new.get("lifecycle"))
    _errors(sink, subject, f"{base}.errors", old.get("errors"), new.get("errors"))
    _meta(sink, subject, base, old.get("meta"), new.get("meta"))
    for key in sorted((set(old) | set(new)) - _TOOL_KNOWN):
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
    for key in sorted((set(old) | set(new)) - _ITEM_KNOWN):
        if old.get(key) != new.get(key):
            sink.add(
                "cosmetic",
                subject,
                f"{base}.{key}",
                f"{key} {_short(old.get(key))} -> {_short(new.get(key))}",
            )


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


def counts(changes: list[Change]) -> dict[str, int]:
    return {k: sum(1 for c in changes if c.klass == k) for k in CLASSES}


def to_json(changes: list[Change]) -> dict[str, list[dict[str, str]]]:
    """The pinned JSON: `{"changes": [{"class", "subject", "path", "summary"}]}`."""
    return {"changes": [c.to_dict() for c in changes]}
