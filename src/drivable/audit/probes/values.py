"""The values of a baseline call: what the schema says, else what the server itself showed.

A careful model fills a create from what it read: the room id a listing gave, the day the server
says it is, a free time it showed, an enum member, a time after the start, its own email, a key it
generated. The audit does the same, so a failed baseline means the server failed, not the audit:
`Knowledge` keeps what successful answers showed (every scalar under its key, the ids, the
dates), and `baseline_arguments` fills each property from the schema's own value or from it,
never with the placeholder word a schema sampler falls back on.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from drivable import kinds
from drivable import schema as sch
from drivable.audit import heuristics as h

DIR_NAME = re.compile(
    r"(^|_)(dir|directory|repo|repository|root|folder|workspace|cwd)(_path)?$", re.I
)
PATH_NAME = re.compile(r"(^|_)path$", re.I)
FILE_WORDS = re.compile(r"\bfiles?\b|_file|file_", re.I)
# A version-control reference: every repository has HEAD, as a model working in one knows.
REF_NAME = re.compile(r"^(revision|rev|ref|commit|commit_sha|sha|commitish|treeish)$", re.I)
ISO_DAY_CHARS = len("2026-10-05")
EMAIL_NAME = re.compile(r"(^|_)e?mail(_address)?$", re.I)
DATETIME_NAME = re.compile(r"(_at$|datetime|timestamp)", re.I)
COUNTED = re.compile(r"^(?P<prefix>\D*?)(?P<digits>\d+)$")
LEARNED_PER_KEY = 20
# The word drivable.schema.sample writes for a free string it knows nothing about.
GENERATED_WORD = "example"
AN_EMAIL = "someone@example.com"


def _id_key(key: str) -> bool:
    return bool(h.ID_NAME.search(key)) or key in ("name", "title", "slug")


def _day_of(value: Any) -> str | None:
    """The day an answer wrote (`2026-10-05`, or the day of `2026-10-05T09:00:00Z`): read by the
    date kind, its one reader, and kept only when the server wrote it in the canonical form."""
    if not isinstance(value, str) or len(value) < ISO_DAY_CHARS:
        return None
    head = value[:ISO_DAY_CHARS]
    reading = kinds.read("date", head)
    return head if reading.outcome == "value" and reading.value == head else None


@dataclass
class Knowledge:
    """Values the server or its command line gave us, usable as arguments."""

    dirs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # a file inside each directory: where a file path is wanted
    ids: dict[str, Any] = field(default_factory=dict)  # key seen in a listing -> first value
    listed_by: dict[str, str] = field(default_factory=dict)  # key -> the tool that listed it
    values: dict[str, Any] = field(default_factory=dict)  # any key -> first scalar seen
    seen: dict[str, list[Any]] = field(default_factory=dict)  # id key -> values, in order
    days: set[str] = field(default_factory=set)  # every ISO day an answer held

    def learn(self, tool: str, value: Any, depth: int = 0) -> None:
        """Remember the scalars of an answer: ids (and what listed them), every key's first
        value, the ids each listing showed, and the days."""
        if depth > 4:
            return
        if isinstance(value, dict):
            for key, v in value.items():
                key = str(key)
                if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                    self.values.setdefault(key, v)
                    day = _day_of(v)
                    if day:
                        self.days.add(day)
                    if isinstance(v, (str, int)) and _id_key(key):
                        if key not in self.ids:
                            self.ids[key] = v
                            self.listed_by[key] = tool
                        seen = self.seen.setdefault(key, [])
                        if v not in seen and len(seen) < LEARNED_PER_KEY:
                            seen.append(v)
                else:
                    self.learn(tool, v, depth + 1)
        elif isinstance(value, list):
            for item in value[:LEARNED_PER_KEY]:
                self.learn(tool, item, depth + 1)

    def id_for(self, name: str) -> Any:
        if name in self.ids:
            return self.ids[name]
        stem = _stem(name)
        if stem and "id" in self.ids and stem.lower() in self.listed_by["id"].lower():
            return self.ids["id"]
        for key in ("name", "title"):
            if stem and key in self.ids and name in (f"{stem}_name", f"{stem}_title"):
                return self.ids[key]
        return sch.MISSING

    def next_id(self, name: str) -> Any:
        """The id after the highest one listed, when the listed ids count up (`bk_1001`,
        `bk_1002` -> `bk_1003`; 7, 9 -> 10): what a create that takes its own new id needs."""
        listed = self.seen.get(name) or (self.seen.get("id") if _stem(name) else None) or []
        if len(listed) < 2:
            return sch.MISSING
        if all(isinstance(v, int) for v in listed):
            return max(listed) + 1
        parts = [COUNTED.match(str(v)) for v in listed]
        if not all(parts) or len({p.group("prefix") for p in parts if p}) != 1:
            return sch.MISSING
        width = max(len(p.group("digits")) for p in parts if p)
        top = max(int(p.group("digits")) for p in parts if p)
        prefix = parts[0].group("prefix") if parts[0] else ""
        return f"{prefix}{top + 1:0{width}d}"

    def day(self) -> str:
        """The latest day any answer held (the server's own calendar), else today."""
        return max(self.days) if self.days else dt.date.today().isoformat()


def _stem(name: str) -> str:
    if name.endswith("_id"):
        return name[: -len("_id")]
    return name[:-2] if name.endswith("Id") else ""


def _fits(value: Any, node: dict[str, Any]) -> bool:
    """Whether a learned value can be sent where `node` is: its type, and its enum if any."""
    enum = node.get("enum")
    if isinstance(enum, list):
        return value in enum
    types = sch.types_of(node)
    if not types:
        return True
    return sch.json_type(value) in types or (
        "number" in types and isinstance(value, int) and not isinstance(value, bool)
    )


def _own(node: dict[str, Any]) -> bool:
    """The schema names its own value: a model copies that first."""
    return any(k in node for k in ("const", "default", "examples", "enum"))


def _text_for(name: str, node: dict[str, Any]) -> str:
    """Words for a free string no schema or answer filled: readable, never a placeholder."""
    text = "Audit " + (" ".join(h.words(name)) or "check")
    low = node.get("minLength")
    while isinstance(low, int) and len(text) < low:
        text += " text"
    high = node.get("maxLength")
    return text[:high] if isinstance(high, int) and high > 0 else text


def _clock(value: Any) -> str | None:
    """A time of day as the time kind writes it (`09:00:00`), or None: what orders two times."""
    if not isinstance(value, str):
        return None
    reading = kinds.read("time", value)
    return str(reading.value) if reading.outcome == "value" else None


def _clock_after(start: str, at: str) -> str:
    """An hour after `start`, in the start's own form (`9:30` -> `10:30`, `10:00:00` ->
    `11:00:00`); `at` is the start as the time kind wrote it."""
    hours, minutes, seconds = at.split(":")[:3]
    later = f"{min(int(hours) + 1, 23):02d}:{minutes}"
    return f"{later}:{seconds[:2]}" if start.count(":") == 2 else later


def creates_its_own_id(tool_name: str, prop: str) -> bool:
    """`create_note(note_id)`: the id of the thing the tool creates, which must be new."""
    verb = h.verb_of(tool_name)
    stem = _stem(prop)
    return bool(verb in h.CREATING_VERBS and stem and stem in h.words(tool_name))


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

    creating = h.verb_of(name_of_tool) in h.CREATING_VERBS

    def learned(name: str, node: dict[str, Any]) -> Any:
        """What an answer showed under this key, unless the create names the new thing so."""
        if creating and (
            name in ("name", "title", "slug") or creates_its_own_id(name_of_tool, name)
        ):
            return sch.MISSING
        value = know.values.get(name, sch.MISSING)
        return value if value is not sch.MISSING and _fits(value, node) else sch.MISSING

    def hint(name: str, node: dict[str, Any]) -> Any:
        types = sch.types_of(node)
        if h.is_key_property(name) and "string" in types:
            return str(uuid.uuid4())  # a key a model generates, once per intended change
        if creates_its_own_id(name_of_tool, name) and h.is_id_property(name, node):
            fresh = know.next_id(name)
            if fresh is not sch.MISSING:
                return fresh
        if "string" not in types and types:
            shown = learned(name, node)
            if shown is sch.MISSING and h.is_id_property(name, node):
                shown = know.id_for(name)
            return shown
        if know.dirs and (DIR_NAME.search(name) or (PATH_NAME.search(name) and not wants_file)):
            return know.dirs[0]  # the directory the server was started on is what a model is told
        if know.files and PATH_NAME.search(name) and wants_file:
            return know.files[0]
        if REF_NAME.match(name) or (name == "target" and repo_tool):
            return "HEAD"
        if h.is_id_property(name, node) or name.endswith("_name"):
            return know.id_for(name)
        shown = learned(name, node)
        if shown is not sch.MISSING:
            return shown
        if h.is_date_property(name, node):
            day = know.day()
            wants_time = node.get("format") == "date-time" or DATETIME_NAME.search(name)
            return f"{day}T10:00:00Z" if wants_time else day
        if _own(node):
            return sch.MISSING
        if EMAIL_NAME.search(name) or node.get("format") == "email":
            return next(
                (v for k, v in know.values.items() if EMAIL_NAME.search(k) and "@" in str(v)),
                AN_EMAIL,
            )
        plain = sch.sample(schema, node)
        if isinstance(plain, str) and plain.startswith(GENERATED_WORD):
            return _text_for(name, node)
        return sch.MISSING

    args = sch.sample_arguments(schema, hint=hint)
    return _end_after_start(schema, args)


def _end_after_start(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A start and an end (`start`/`end`, `start_time`/`end_time`, `from`/`to`) as times of
    day: the end comes after the start, the next member of its enum or an hour later."""
    props = sch.properties(schema)
    for start_name, end_name in (("start", "end"), ("start_time", "end_time"), ("from", "to")):
        start, end = args.get(start_name), args.get(end_name)
        start_at, end_at = _clock(start), _clock(end)
        if start_at is None or end_at is None or end_at > start_at:
            continue
        node = sch.resolve(schema, props.get(end_name, {}))
        enum = node.get("enum")
        if isinstance(enum, list):
            later = [v for v in enum if (_clock(v) or "") > start_at]
            if later:
                args[end_name] = later[0]
        else:
            args[end_name] = _clock_after(str(start), start_at)
    return args
