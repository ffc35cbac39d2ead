"""The canonical snapshot of what an agent sees of a server.

`canonical(collected)` turns a surface from `drivable.target.collect_surface` (or an offline dump read by
`load_surface_file`) into one sorted, era-independent dict; `dumps(snapshot)` writes it byte for byte the
same every time for the same server. What goes in:

- `server`: name, version, title, description, website (from serverInfo);
- `instructions`, `capabilities` (which ones the server has; the era-dependent notification flags are
  left out so both protocol eras agree), `completion_support` (the completions capability) and
  `subscription_support` (what the capability summary says of resource subscriptions, null when it
  says nothing);
- `capability_summary`: the JSON of a capability summary resource, when the server has one;
- `error_codes`: the server-wide error catalog (namespaced `_meta` keys ending in `/errors` on discover,
  and `errors` / `error_codes` / `failure_codes` in the capability summary), sorted by code; a tool's
  own catalog (`_meta["<ns>/errors"]` on the tool) stays on the tool as `errors`;
- `tools` (sorted by name) with title, description, input and output schemas, annotations as given,
  lifecycle metadata (`_meta["<ns>/lifecycle"]`), the tool's own error catalog, the other `_meta` keys,
  `position` (its place in the server's own order), and `detail` when server/discover publishes the
  tool whole beside an abridged listing (`_meta["<ns>/tools"]`: description, input and output schemas;
  the 2026-07-28 era only, so the fingerprint leaves it out);
- `resources` (by uri), `resource_templates` (by uriTemplate), `prompts` (by name), likewise;
- `published_fingerprint`: what the server says its fingerprint is, kept out of every hash;
- `fingerprint`: `{value, covers}` computed by `drivable.surface.fingerprint.compute`.

The shape is `drivable.surface.shape`'s; `canonical` adds the fingerprint.

Nothing about the transport or the wire bytes goes in, and of the protocol era only a tool's `detail`,
which the handshake era cannot read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, TextIO

from mcp import Client

from drivable.surface.fingerprint import canonical
from drivable.surface.shape import FORMAT
from drivable.target import Target, collect_surface, connect, load_surface_file

__all__ = [
    "ANNOTATION_DEFAULTS",
    "FORMAT",
    "SurfaceUnreadable",
    "canonical",
    "dumps",
    "is_snapshot",
    "load",
    "take",
    "take_collected",
]

# MCP's defaults for absent tool annotations (the spec's meaning of "not said").
ANNOTATION_DEFAULTS: dict[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}

_SUMMARY_HINT = re.compile(r"capabilit|summary", re.IGNORECASE)


class SurfaceUnreadable(RuntimeError):
    """The server advertised a list and then failed to serve it."""


def dumps(snapshot: Mapping[str, Any]) -> str:
    """The snapshot file's exact text: sorted keys, two-space indent, UTF-8, one final newline."""
    return json.dumps(snapshot, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def is_snapshot(data: Any) -> bool:
    return isinstance(data, Mapping) and data.get("format") == FORMAT


async def _capability_summary(client: Client, collected: Mapping[str, Any]) -> Any:
    """Read the first JSON resource that names itself a capability summary; None when there is none."""
    for res in collected.get("resources") or []:
        label = " ".join(str(res.get(k) or "") for k in ("uri", "name", "title"))
        mime = str(res.get("mimeType") or "application/json")
        if not _SUMMARY_HINT.search(label) or "json" not in mime:
            continue
        try:
            result = await client.read_resource(str(res["uri"]))
        except Exception:  # a summary the server lists but fails to serve is simply absent
            continue
        for content in result.contents:
            text = getattr(content, "text", None)
            if text is None:
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(data, Mapping):
                return data
    return None


async def take_collected(target: Target, errlog: TextIO | None = None) -> dict[str, Any]:
    """Collect a live server's surface and its capability summary (read-only calls only).

    A stdio server's stderr goes to `errlog` (default: this process's stderr).
    """
    async with connect(target, errlog=errlog) as client:
        collected = await collect_surface(client)
        failed = {k: v for k, v in collected["unsupported"].items() if "failed" in str(v)}
        if failed:
            # a list the server advertises but fails would read as "everything removed"
            raise SurfaceUnreadable("; ".join(f"{k}: {v}" for k, v in sorted(failed.items())))
        collected["capability_summary"] = await _capability_summary(client, collected)
    return collected


async def take(target: Target, errlog: TextIO | None = None) -> dict[str, Any]:
    """The canonical snapshot of a live server."""
    return canonical(await take_collected(target, errlog))


def load(path: str) -> dict[str, Any]:
    """A snapshot from a file: a drivable snapshot as is, or any dump `load_surface_file` reads."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if is_snapshot(data):
        return dict(data)
    return canonical(load_surface_file(path))
