"""The schema-variance walk: two JSON Schemas compared in the direction a change breaks.

Inputs are what the server accepts (narrowing breaks a caller), outputs what it returns (widening
or retyping breaks a reader). Unions, tuples, nullable type lists and `allOf` are walked; a property
that disappears while a similar one appears is one rename when the evidence supports it. The
recursion is here (its cases call each other through `walk`); an object's properties and an
array's items are compared in `schema_members`, one node's own keywords (prose, enum, format,
bounds, default) in `schema_keywords`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.schema import declared_types, follow, merge_all_of
from drivable.surface.changes import ChangeClass, Direction, _j, _short, _Sink
from drivable.surface.schema_facts import (
    _HANDLED,
    _OPAQUE_VALIDATION,
    _PROSE_KEYS,
    _covers,
    _defs,
)
from drivable.surface.schema_keywords import Schema
from drivable.surface.schema_members import Seen, _MemberWalk


class _SchemaWalk(_MemberWalk):
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
        self.old_root = old_root
        self.new_root = new_root
        self.noun = "input" if direction == "in" else "output field"
        self.root = ""
        self.now_required: set[str] = set()
        # equal subtrees can be skipped only when every $ref they hold means the same on both sides
        old_defs = _defs(old_root)
        self.same_defs = old_defs is not None and old_defs == _defs(new_root)

    def start(self, old: Any, new: Any, path: str, label: str) -> None:
        self.root = path
        self.walk(old, new, path, label)

    def walk(self, old: Any, new: Any, path: str, label: str, seen: Seen = ((), ())) -> None:
        if self.same_defs and old == new:
            return
        seen_old, seen_new = seen
        old_ref = old.get("$ref") if isinstance(old, Mapping) else None
        new_ref = new.get("$ref") if isinstance(new, Mapping) else None
        if (
            old_ref is not None
            and new_ref is not None
            and old_ref in seen_old
            and new_ref in seen_new
        ):
            return  # a recursive type already being compared on this path
        old, seen_old = follow(self.old_root, old, seen_old)
        new, seen_new = follow(self.new_root, new, seen_new)
        seen = seen
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
            old = merge_all_of(self.old_root, old)
        if "allOf" in new:
            new = merge_all_of(self.new_root, new)
        old_variants = self._variants(old, self.old_root)
        new_variants = self._variants(new, self.new_root)
        if len(old_variants) > 1 or len(new_variants) > 1:
            self._prose(old, new, path, label)
            self._union(old_variants, new_variants, path, label, seen)
            return
        self._single(old_variants[0], new_variants[0], path, label, seen)

    def _variants(self, node: Schema, root: Any) -> list[Schema]:
        members = node.get("anyOf") or node.get("oneOf")
        if isinstance(members, list) and members:
            base = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf", *_PROSE_KEYS)}
            out: list[Schema] = []
            for member in members:
                member, _ = follow(root, member)
                if not isinstance(member, Mapping):
                    continue
                merged = {**base, **member}
                out.extend(self._variants(merged, root))
            return out or [node]
        types = declared_types(node)
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

    def _variant_key(self, node: Schema) -> str:
        types = declared_types(node)
        key = ",".join(sorted(types)) if types else "any"
        if "const" in node:
            key += "=" + _j(node["const"])
        elif isinstance(node.get("title"), str) and key == "object":
            key += ":" + node["title"]
        return key

    def _union(
        self, old: list[Schema], new: list[Schema], path: str, label: str, seen: Seen
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
        old_types = set().union(*(declared_types(v) or {"any"} for v in old)) if old else set()
        new_types = set().union(*(declared_types(v) or {"any"} for v in new)) if new else set()
        # integer <-> number leftovers are a type change, not an unrelated variant
        for i, key in list(old_left.items()):
            for j, nkey in list(new_left.items()):
                if {key, nkey} == {"integer", "number"}:
                    pairs.append((i, j))
                    del old_left[i], new_left[j]
                    break
        for i, j in sorted(pairs):
            sub = path if len(old) == 1 and len(new) == 1 else f"{path}|{self._variant_key(new[j])}"
            self._single(old[i], new[j], sub, label, seen)
        for i in sorted(old_left):
            key = old_left[i]
            covered = declared_types(old[i]) is not None and _covers(
                new_types, declared_types(old[i]) or set()
            )
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
            covered = declared_types(new[j]) is not None and _covers(
                old_types, declared_types(new[j]) or set()
            )
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

    def _single(self, old: Schema, new: Schema, path: str, label: str, seen: Seen) -> None:
        self._prose(old, new, path, label)
        old_t, new_t = declared_types(old), declared_types(new)
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
        self._objects(old, new, path, label, seen)
        self._arrays(old, new, path, label, seen)
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
