"""What to send: a baseline call a careful model would make, and the mistakes models really make.

The baseline is built from the schema (const, default, examples, an example quoted in the
description, enums, the most specific branch of a union: `drivable.schema.sample`), filled with
what the server itself said where the schema cannot know (an id another tool listed, the directory
on the server's command line), so a failed baseline means the server failed, not the audit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.probes.call import UNKNOWN_PROPERTY

PLACEHOLDERS = {"string": "string", "integer": 0, "number": 0, "boolean": True}
DIR_NAME = re.compile(
    r"(^|_)(dir|directory|repo|repository|root|folder|workspace|cwd)(_path)?$", re.I
)
PATH_NAME = re.compile(r"(^|_)path$", re.I)
FILE_WORDS = re.compile(r"\bfiles?\b|_file|file_", re.I)
# A version-control reference: every repository has HEAD, as a model working in one knows.
REF_NAME = re.compile(r"^(revision|rev|ref|commit|commit_sha|sha|commitish|treeish)$", re.I)


@dataclass
class Knowledge:
    """Values the server or its command line gave us, usable as arguments."""

    dirs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # a file inside each directory: where a file path is wanted
    ids: dict[str, Any] = field(default_factory=dict)  # key seen in a listing -> first value
    listed_by: dict[str, str] = field(default_factory=dict)  # key -> the tool that listed it

    def learn(self, tool: str, value: Any, depth: int = 0) -> None:
        """Remember scalar values of id-like keys found anywhere in a listing's answer."""
        if depth > 4:
            return
        if isinstance(value, dict):
            for key, v in value.items():
                if isinstance(v, (str, int)) and not isinstance(v, bool) and _id_key(str(key)):
                    if str(key) not in self.ids:
                        self.ids[str(key)] = v
                        self.listed_by[str(key)] = tool
                else:
                    self.learn(tool, v, depth + 1)
        elif isinstance(value, list):
            for item in value[:3]:
                self.learn(tool, item, depth + 1)

    def id_for(self, name: str) -> Any:
        if name in self.ids:
            return self.ids[name]
        stem = (
            name[: -len("_id")]
            if name.endswith("_id")
            else name[:-2]
            if name.endswith("Id")
            else ""
        )
        if stem and "id" in self.ids and stem.lower() in self.listed_by["id"].lower():
            return self.ids["id"]
        for key in ("name", "title"):
            if stem and key in self.ids and name in (f"{stem}_name", f"{stem}_title"):
                return self.ids[key]
        return sch.MISSING


def _id_key(key: str) -> bool:
    return bool(h.ID_NAME.search(key)) or key in ("name", "title", "slug")


def baseline_arguments(tool: dict[str, Any], know: Knowledge) -> dict[str, Any]:
    schema = h.input_schema(tool)
    name_of_tool = str(tool.get("name") or "")
    # `read_file` wants a file; `search_files` and `list_files` search a directory for them.
    wants_file = bool(FILE_WORDS.search(name_of_tool)) and h.verb_of(name_of_tool) not in (
        "search",
        "list",
        "find",
        "browse",
    )
    repo_tool = any(DIR_NAME.search(p) for p in sch.properties(schema))

    def hint(name: str, node: dict[str, Any]) -> Any:
        if "string" not in sch.types_of(node) and sch.types_of(node):
            return sch.MISSING
        if know.dirs and (DIR_NAME.search(name) or (PATH_NAME.search(name) and not wants_file)):
            return know.dirs[0]  # the directory the server was started on is what a model is told
        if know.files and PATH_NAME.search(name) and wants_file:
            return know.files[0]
        if REF_NAME.match(name) or (name == "target" and repo_tool):
            return "HEAD"
        if h.is_id_property(name, node) or name.endswith("_name"):
            return know.id_for(name)
        return sch.MISSING

    return sch.sample_arguments(schema, hint=hint)


def placeholder(node: dict[str, Any]) -> Any:
    types = sch.types_of(node)
    for t in ("string", "integer", "number", "boolean"):
        if t in types:
            return PLACEHOLDERS[t]
    if "array" in types:
        return ["string"]
    if "object" in types:
        return {}
    return "string"


def _rotate(c: str) -> str:
    """Another character of the same class: digit, hex letter, or other letter of one case."""
    if c.isdigit():
        return str((int(c) + 5) % 10)
    for low in ("a", "A"):
        if low <= c <= chr(ord(low) + 5):
            return chr((ord(c) - ord(low) + 3) % 6 + ord(low))
        if low <= c <= chr(ord(low) + 25):
            return chr((ord(c) - ord(low) + 13) % 26 + ord(low))
    return c


def same_shape_other(value: Any) -> Any:
    """An id of the same shape as `value` that is not `value` (its last 4 digits moved, or its
    last 4 letters when it has no digit: a prefix such as `usr_` stays), or None when there is
    none to derive one from."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1_000_003
    if not isinstance(value, str):
        return None
    movable = str.isdigit if any(c.isdigit() for c in value) else str.isalpha
    chars = list(value)
    moved = 0
    for i in range(len(chars) - 1, -1, -1):
        if moved == 4:
            break
        if chars[i].isascii() and movable(chars[i]):
            chars[i] = _rotate(chars[i])
            moved += 1
    other = "".join(chars)
    return other if other != value else None


@dataclass
class ProbePlan:
    probe: str
    arguments: dict[str, Any]
    field: str | None
    together: tuple[str, ...] = ()  # the optionals `all-optionals` sets at once


def _optional_value(schema: dict[str, Any], node: dict[str, Any]) -> Any:
    """A value an optional scalar surely accepts, or MISSING: numbers 1 (or their minimum),
    booleans true, a default, example or enum member; free strings are left out (a made-up
    string would be refused for itself, not for its company)."""
    node = sch.resolve(schema, node)
    types = sch.types_of(node)
    if any(k in node for k in ("default", "examples", "enum", "const")):
        value = sch.sample(schema, node)
        return value if value is not None and not isinstance(value, (dict, list)) else sch.MISSING
    if types & {"integer", "number"} and not types & {"string", "object", "array"}:
        low = node.get("minimum")
        return max(1, int(low)) if isinstance(low, (int, float)) else 1
    if types == {"boolean"}:
        return True
    return sch.MISSING


def all_optionals(tool: dict[str, Any], base: dict[str, Any]) -> ProbePlan | None:
    """The baseline with every optional scalar set at once: optionals that exclude each other
    and say so only when called together are caught here (the schema would say it otherwise)."""
    schema = h.input_schema(tool)
    required = set(sch.required(schema))
    added: dict[str, Any] = {}
    for name, node in sch.properties(schema).items():
        if name in required or name in base:
            continue
        value = _optional_value(schema, node)
        if value is not sch.MISSING:
            added[name] = value
    if len(added) < 2:
        return None
    return ProbePlan("all-optionals", {**base, **added}, None, tuple(added))


def plan_for(tool: dict[str, Any], know: Knowledge | None = None) -> list[ProbePlan]:
    know = know or Knowledge()
    schema = h.input_schema(tool)
    props = sch.properties(schema)
    required = sch.required(schema)
    base = baseline_arguments(tool, know)
    plans = [ProbePlan("baseline", base, None)]
    together = all_optionals(tool, base)
    if together is not None:
        plans.append(together)
    if required:
        plans.append(ProbePlan("empty-call", {}, required[0]))
    plans.append(ProbePlan("unknown-property", {**base, UNKNOWN_PROPERTY: "x"}, UNKNOWN_PROPERTY))
    if props:
        filled = {name: placeholder(sch.resolve(schema, node)) for name, node in props.items()}
        # An enum that does not list "string" must refuse it: that is the field to name.
        enum_field = next(
            (
                name
                for name, node in props.items()
                if isinstance(sch.resolve(schema, node).get("enum"), list)
                and filled[name] not in sch.resolve(schema, node)["enum"]
            ),
            None,
        )
        plans.append(ProbePlan("placeholders", filled, enum_field))
    done: set[str] = set()
    for name, raw in props.items():
        node = sch.resolve(schema, raw)
        types = sch.types_of(node)
        if types & {"integer", "number"} and "spelled-number" not in done:
            done.add("spelled-number")
            plans.append(ProbePlan("spelled-number", {**base, name: "4 000"}, name))
        if h.is_date_property(name, node):
            if "spelled-date" not in done:
                done.add("spelled-date")
                plans.append(ProbePlan("spelled-date", {**base, name: "1. 10. 2026"}, name))
            # every date: one that asks is read by the server, whatever its schema says
            plans.append(ProbePlan("ambiguous-date", {**base, name: "01/02/2026"}, name))
        if h.is_id_property(name, node) and "malformed-id" not in done:
            done.add("malformed-id")
            plans.append(ProbePlan("malformed-id", {**base, name: "%%not-an-id%%"}, name))
            unknown = same_shape_other(base.get(name, know.id_for(name)))
            if unknown is not None:
                # well formed, so a server that checks the shape first still has to look it up
                plans.append(ProbePlan("unknown-id", {**base, name: unknown}, name))
        if h.is_cursor_property(name, node) and "invented-cursor" not in done:
            done.add("invented-cursor")
            plans.append(
                ProbePlan("invented-cursor", {**base, name: "dv-invented-cursor-0001"}, name)
            )
    return plans
