"""The keywords of one schema node compared on their own: prose, enum, format, bounds, default.

The leaves of the schema-variance walk (`schema_walk`): none of them recurses, so they live apart
from the walk that calls them for every pair of nodes it compares. Each says its change through the
walk's sink, classed by the walk's direction (narrowing an input breaks a caller, widening an output
breaks a reader).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivable.schema import enum_values
from drivable.surface.changes import ChangeClass, Direction, _j, _short, _Sink
from drivable.surface.schema_facts import (
    _COUNT_LOWER,
    _COUNT_UPPER,
    _NUMERIC_LOWER,
    _NUMERIC_UPPER,
    _bound,
    _fmt_bound,
    _tighter,
)

Schema = Mapping[str, Any]


class _NodeKeywords:
    """The comparisons of one node's own keywords; `_SchemaWalk` adds the recursion."""

    sink: _Sink
    subject: str
    direction: Direction
    now_required: set[str]  # paths reported "now required": their removed default is implied

    def emit(self, klass: ChangeClass, path: str, summary: str) -> None:
        self.sink.add(klass, self.subject, path, summary)

    def narrowed(self) -> ChangeClass:
        """Class of a change that admits fewer values."""
        return "breaking" if self.direction == "in" else "additive"

    def widened(self) -> ChangeClass:
        """Class of a change that admits more values."""
        return "additive" if self.direction == "in" else "breaking"

    def _prose(self, old: Schema, new: Schema, path: str, label: str) -> None:
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

    def _enum(self, old: Schema, new: Schema, path: str, label: str) -> None:
        ov, nv = enum_values(old), enum_values(new)
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

    def _format(self, old: Schema, new: Schema, path: str, label: str) -> None:
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

    def _bounds(self, old: Schema, new: Schema, path: str, label: str, types: set[str]) -> None:
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

    def _default(self, old: Schema, new: Schema, path: str, label: str) -> None:
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
