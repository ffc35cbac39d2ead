"""A classified change of a server's surface, the sink that collects them, and their JSON."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

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


def counts(changes: list[Change]) -> dict[str, int]:
    return {k: sum(1 for c in changes if c.klass == k) for k in CLASSES}


def to_json(changes: list[Change]) -> dict[str, list[dict[str, str]]]:
    """The pinned JSON: `{"changes": [{"class", "subject", "path", "summary"}]}`."""
    return {"changes": [c.to_dict() for c in changes]}
