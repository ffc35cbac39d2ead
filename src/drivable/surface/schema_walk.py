"""The schema-variance walk: two JSON Schemas compared in the direction a change breaks.

Inputs are what the server accepts (narrowing breaks a caller), outputs what it returns (widening
or retyping breaks a reader). Unions, tuples, nullable type lists and `allOf` are walked; a property
that disappears while a similar one appears is one rename when the evidence supports it. The
recursion is here (its cases call each other through `walk`); the comparison of one node's own
keywords (prose, enum, format, bounds, default) is in `schema_keywords`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.schema import declared_types, follow, merge_all_of
from drivable.surface.changes import ChangeClass, Direction, _j, _norm_name, _short, _Sink
from drivable.surface.schema_facts import (
    _HANDLED,
    _OPAQUE_VALIDATION,
    _PROSE_KEYS,
    _covers,
    _defs,
    _distinctive,
    _pair,
    _resolved_text,
    _shape,
)
from drivable.surface.schema_keywords import Schema, _NodeKeywords

# The local refs followed on the way down, old side and new side: a ref met again on both sides is
# a recursive type already being compared on this path.
Seen = tuple[tuple[str, ...], tuple[str, ...]]


class _SchemaWalk(_NodeKeywords):
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

    def _dotted(self, path: str, name: str) -> str:
        """The field's name as an agent spells it: `a.b[].c` below the schema root."""
        below = path[len(self.root) :].lstrip(".") if path.startswith(self.root) else path
        return f"{below}.{name}" if below else name

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

    def _objects(self, old: Schema, new: Schema, path: str, label: str, seen: Seen) -> None:
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
            shape_a = _shape(op[a], self.old_root)
            if _j(shape_a) == _j(_shape(np_[b], self.new_root)):
                score += 2 if _distinctive(shape_a) else 1
                why.append("same schema")
            da = _resolved_text(op[a], self.old_root, "description")
            db = _resolved_text(np_[b], self.new_root, "description")
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
            self.walk(op[a], np_[b], sub, f"{self.noun} `{self._dotted(path, b)}`", seen)
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
                seen,
            )
        for name in sorted((oreq - set(op)) ^ (nreq - set(np_))):
            # required names without a property schema
            self._required_change(
                name in oreq, name in nreq, f"{path}.{name}", self._dotted(path, name)
            )
        oa, na = old.get("additionalProperties"), new.get("additionalProperties")
        if isinstance(oa, Mapping) and isinstance(na, Mapping):
            self.walk(oa, na, f"{path}.{{*}}", f"{label} (extra keys)", seen)
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

    def _arrays(self, old: Schema, new: Schema, path: str, label: str, seen: Seen) -> None:
        oi, ni = old.get("items"), new.get("items")
        if isinstance(oi, Mapping) or isinstance(ni, Mapping):
            self.walk(
                oi if oi is not None else {},
                ni if ni is not None else {},
                f"{path}[]",
                f"{label} (items)",
                seen,
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
                    self.walk(op_[i], np_[i], f"{path}[{i}]", f"{label} (item {i})", seen)
