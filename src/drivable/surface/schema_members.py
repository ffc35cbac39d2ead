"""The members of a schema node, for the schema-variance walk: an object's properties (added,
removed, renamed when the evidence supports it, newly required or optional) and an array's items.
`_SchemaWalk` (schema_walk) inherits them and supplies the recursion, `walk`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.surface.changes import ChangeClass, _j, _norm_name, _short
from drivable.surface.schema_facts import _distinctive, _pair, _resolved_text, _shape
from drivable.surface.schema_keywords import Schema, _NodeKeywords

# The local refs followed on the way down, old side and new side: a ref met again on both sides is
# a recursive type already being compared on this path.
Seen = tuple[tuple[str, ...], tuple[str, ...]]


class _MemberWalk(_NodeKeywords):
    """An object's properties and an array's items, compared; the walk below them is `walk`."""

    old_root: Any
    new_root: Any
    noun: str
    root: str

    def walk(self, old: Any, new: Any, path: str, label: str, seen: Seen = ((), ())) -> None:
        """Compare two subschemas (`_SchemaWalk.walk`)."""
        raise NotImplementedError

    def _dotted(self, path: str, name: str) -> str:
        """The field's name as an agent spells it: `a.b[].c` below the schema root."""
        below = path[len(self.root) :].lstrip(".") if path.startswith(self.root) else path
        return f"{below}.{name}" if below else name

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
