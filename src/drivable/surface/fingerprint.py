"""The surface fingerprint `<server>@<version>+<hash>` and what it covers ([9.fingerprint-format]).

This computation is versioned surface: a client compares fingerprints across releases of drivable, so
the algorithm below changes only with a new `ALGORITHM` number (and a note in docs/surface.md).

Algorithm 1, from a canonical snapshot `s` (`drivable.surface.snapshot.canonical`):

1. Build the covered document, a JSON object with exactly these keys:
   - `algorithm`: 1
   - `tools`, `resources`, `resource_templates`, `prompts`: `s[key]` as is (each item carries its
     title, description, schemas, annotations, lifecycle, error catalog, other `_meta` and position),
     but for a tool's `detail`: server/discover publishes it in one protocol era only, and the
     fingerprint is the same in both;
   - `completion_support`, `subscription_support`: `s[key]` (a boolean; the second may be null);
   - `error_codes`: `s["error_codes"]`;
   - `summary`: `{"capabilities": s["capabilities"], "instructions": s["instructions"],
     "capability_summary": s["capability_summary"], "server": s["server"] less name and version}`.
   Not covered: `format`, `published_fingerprint`, `fingerprint`, and the server's name and version
   (they are the fingerprint's prefix).
2. Remove what the server publishes about its own fingerprint, so publishing it does not change it:
   the key `fingerprint` of `summary.capability_summary.server`; and in every string anywhere in the
   document, each occurrence of `<name>@<version>+` followed by 16 lowercase hex digits, and of the
   published fingerprint itself, is replaced by `<fingerprint>`. (Namespaced `_meta` keys ending in
   `/fingerprint` never reach the snapshot's items: the snapshot keeps them aside.)
3. Serialize with sorted keys, separators `,` and `:`, no ASCII escaping, encode as UTF-8.
4. `hash` = the first 16 hex digits of SHA-256 of those bytes.
5. `value` = `<name>@<version>+<hash>`, where a missing name is `unknown` and a missing version `0`.

`covers` lists the keys of step 1 other than `algorithm`, in that order.

From a server, before publishing (the lists as the server will list them, in its order):

    fp = compute({"server": {"name": ..., "version": ...}, "capabilities": {...},
                  "instructions": ..., "discover": {"_meta": {...}}, "tools": [...],
                  "resources": [...], "resource_templates": [...], "prompts": [...],
                  "capability_summary": {...}})
    # publish fp.value (e.g. discover _meta["<ns>/fingerprint"], the summary, error envelopes)
    # and fp.covers
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from drivable.canonical import canonical_json
from drivable.surface.shape import canonical_form, plain

ALGORITHM = 1
COVERS: tuple[str, ...] = (
    "tools",
    "resources",
    "resource_templates",
    "prompts",
    "completion_support",
    "subscription_support",
    "error_codes",
    "summary",
)
PLACEHOLDER = "<fingerprint>"


@dataclass(frozen=True)
class Fingerprint:
    value: str
    covers: list[str]

    @property
    def hash(self) -> str:
        return self.value.rsplit("+", 1)[-1]


def _scrub(value: Any, patterns: list[re.Pattern[str]]) -> Any:
    if isinstance(value, str):
        for pattern in patterns:
            value = pattern.sub(PLACEHOLDER, value)
        return value
    if isinstance(value, Mapping):
        return {str(k): _scrub(v, patterns) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, patterns) for v in value]
    return value


def covered_document(surface: Mapping[str, Any]) -> dict[str, Any]:
    """Steps 1 and 2: the exact JSON value that is hashed."""
    server = dict(surface.get("server") or {})
    name = server.pop("name", None)
    version = server.pop("version", None)
    summary = surface.get("capability_summary")
    if isinstance(summary, Mapping):
        summary = dict(summary)
        inner = summary.get("server")
        if isinstance(inner, Mapping):
            summary["server"] = {k: v for k, v in inner.items() if k != "fingerprint"}
    doc: dict[str, Any] = {"algorithm": ALGORITHM}
    for key in COVERS[:-1]:
        default: Any = None if key.endswith("_support") else []
        doc[key] = surface.get(key, default)
    doc["tools"] = [
        {k: v for k, v in tool.items() if k != "detail"} if isinstance(tool, Mapping) else tool
        for tool in doc["tools"]
    ]
    doc["summary"] = {
        "capabilities": surface.get("capabilities") or {},
        "instructions": surface.get("instructions"),
        "capability_summary": summary,
        "server": server,
    }
    prefix = f"{name_part(name)}@{version_part(version)}+"
    patterns = [re.compile(re.escape(prefix) + r"[0-9a-f]{16}")]
    literals = [prefix]
    published = surface.get("published_fingerprint")
    if isinstance(published, str) and published:
        patterns.append(re.compile(re.escape(published)))
        literals.append(published)
    # walking every string is the slow part: do it only when one could hold a fingerprint
    text = json.dumps(doc, ensure_ascii=False)
    if not any(json.dumps(lit, ensure_ascii=False)[1:-1] in text for lit in literals):
        return doc
    scrubbed: dict[str, Any] = _scrub(doc, patterns)
    return scrubbed


def name_part(name: Any) -> str:
    return str(name) if name not in (None, "") else "unknown"


def version_part(version: Any) -> str:
    return str(version) if version not in (None, "") else "0"


def compute(surface: Mapping[str, Any]) -> Fingerprint:
    """The fingerprint of a canonical snapshot (with or without its `fingerprint` key).

    A surface that is not canonical yet (no `format` key: what `collect_surface` returns, or the
    lists a server builds for itself) is made canonical first, so both spellings agree.
    """
    if surface.get("format") is None:
        surface = canonical(surface)
    doc = covered_document(surface)
    digest = hashlib.sha256(canonical_json(doc)).hexdigest()[:16]
    server = surface.get("server") or {}
    value = f"{name_part(server.get('name'))}@{version_part(server.get('version'))}+{digest}"
    return Fingerprint(value=value, covers=list(COVERS))


def canonical(collected: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical snapshot dict (fingerprint included) of a collected or offline surface
    (`drivable.surface.snapshot.canonical`)."""
    snapshot = canonical_form(collected)
    computed = compute(snapshot)
    snapshot["fingerprint"] = {"value": computed.value, "covers": computed.covers}
    shown: dict[str, Any] = plain(snapshot)
    return shown


def of_collected(collected: Mapping[str, Any]) -> Fingerprint:
    """The fingerprint of a surface as `drivable.target.collect_surface` returns it."""
    return compute(canonical(collected))
