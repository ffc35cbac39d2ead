"""The canonical shape of a surface: what `drivable.surface.snapshot` keeps, sorted and
era-independent, before its fingerprint (`drivable.surface.fingerprint` computes that over this
shape, so neither module imports the other's caller).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

FORMAT = "drivable.surface/1"

_ERROR_KEYS = ("errors", "error_codes", "failure_codes")


def _meta_key_kind(key: str) -> str | None:
    """`lifecycle`, `errors` or `fingerprint` for a namespaced `_meta` key that carries one."""
    tail = key.rsplit("/", 1)[-1].lower()
    if tail in ("lifecycle", "errors", "fingerprint"):
        return tail
    return None


def _sorted_required(schema: Any) -> Any:
    """A copy of a JSON Schema with every `required` list sorted (it is a set by the spec)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "required" and isinstance(value, list):
                out[key] = sorted({str(v) for v in value})
            elif key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(
                value, dict
            ):
                out[key] = {k: _sorted_required(v) for k, v in value.items()}
            else:
                out[key] = _sorted_required(value)
        return out
    if isinstance(schema, list):
        return [_sorted_required(v) for v in schema]
    return schema


def _error_entries(raw: Any, source: str) -> list[dict[str, Any]]:
    """Error catalog entries from a list of `{code, ...}` or a mapping `code -> description|{...}`."""
    entries: list[dict[str, Any]] = []
    if isinstance(raw, Mapping):
        for code, doc in raw.items():
            entry: dict[str, Any] = {"code": str(code)}
            if isinstance(doc, Mapping):
                entry.update({str(k): v for k, v in doc.items() if k != "code"})
            elif doc is not None:
                entry["description"] = doc
            entries.append(entry)
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, str):
                entries.append({"code": item})
            elif isinstance(item, Mapping):
                code = item.get("code", item.get("machine_code", item.get("name")))
                if code is None:
                    continue
                entry = {str(k): v for k, v in item.items() if k not in ("machine_code", "name")}
                entry["code"] = str(code)
                entries.append(entry)
    for entry in entries:
        entry["source"] = source
    return entries


def _merge_codes(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per code (the first source wins, sources listed), sorted by code."""
    by_code: dict[str, dict[str, Any]] = {}
    for entry in entries:
        code = entry["code"]
        if code in by_code:
            sources = by_code[code]["source"]
            if entry["source"] not in sources:
                sources.append(entry["source"])
            continue
        merged = dict(entry)
        merged["source"] = [entry["source"]]
        by_code[code] = merged
    out = []
    for code in sorted(by_code):
        entry = by_code[code]
        entry["source"] = sorted(entry["source"])
        out.append(entry)
    return out


def _split_meta(meta: Any) -> tuple[dict[str, Any] | None, Any, dict[str, Any], str | None]:
    """(lifecycle, errors, other meta, published fingerprint) from a `_meta` object."""
    lifecycle: dict[str, Any] | None = None
    errors: Any = None
    other: dict[str, Any] = {}
    fingerprint: str | None = None
    if not isinstance(meta, Mapping):
        return None, None, {}, None
    for key in sorted(meta):
        value = meta[key]
        kind = _meta_key_kind(key)
        if kind == "lifecycle" and isinstance(value, Mapping):
            lifecycle = dict(value)
        elif kind == "errors":
            errors = value
        elif kind == "fingerprint":
            fingerprint = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        elif key == "io.modelcontextprotocol/serverInfo":
            continue  # the SDK's stamp of serverInfo, already under `server`
        else:
            other[key] = value
    return lifecycle, errors, other, fingerprint


def _tool_detail(discover: Any) -> dict[str, dict[str, Any]]:
    """What a server publishes beside its listing, per tool: the `_meta` key of server/discover
    ending in `/tools`, `{name: {description, inputSchema, outputSchema}}` (drivable's compact
    listing abridges the schemas there, docs/decisions/0041-a-field-the-detail-describes.md).
    Only the 2026-07-28 era has server/discover: a handshake-era snapshot has no detail."""
    meta = discover.get("_meta") if isinstance(discover, Mapping) else None
    if not isinstance(meta, Mapping):
        return {}
    out: dict[str, dict[str, Any]] = {}
    for key in sorted(meta):
        tools = meta[key]
        if key.rsplit("/", 1)[-1].lower() != "tools" or not isinstance(tools, Mapping):
            continue
        for name, detail in tools.items():
            if isinstance(detail, Mapping) and str(name) not in out:
                out[str(name)] = {
                    k: _sorted_required(v) if k.endswith("Schema") else v
                    for k, v in detail.items()
                    if k in ("description", "inputSchema", "outputSchema")
                }
    return out


def _item(
    raw: Mapping[str, Any], key_fields: tuple[str, ...], position: int
) -> tuple[dict[str, Any], str | None]:
    item: dict[str, Any] = {}
    lifecycle, errors, meta, fingerprint = _split_meta(raw.get("_meta"))
    for key, value in raw.items():
        if key == "_meta":
            continue
        if key in ("inputSchema", "outputSchema"):
            item[key] = _sorted_required(value)
        else:
            item[key] = value
    for name in key_fields:
        item.setdefault(name, None)
    item["lifecycle"] = lifecycle
    item["errors"] = _merge_codes(_error_entries(errors, "_meta")) if errors is not None else []
    item["meta"] = meta
    item["position"] = position
    return item, fingerprint


def _capabilities(caps: Any) -> dict[str, Any]:
    """Which capabilities the server has, the same whichever protocol era reported them.

    The `listChanged` and `subscribe` flags are left out on purpose: they are notification plumbing
    for the client, not surface for the agent, and the SDK advertises them differently per era (a
    2026-07-28 server says true for all of them, since `subscriptions/listen` serves every one).
    """
    caps = caps if isinstance(caps, Mapping) else {}
    out: dict[str, Any] = {}
    for name in ("tools", "resources", "prompts", "completions"):
        if caps.get(name) is not None:
            out[name] = {}
    extensions = caps.get("extensions")
    if isinstance(extensions, Mapping) and extensions:
        out["extensions"] = sorted(extensions)
    experimental = caps.get("experimental")
    if isinstance(experimental, Mapping) and experimental:
        out["experimental"] = sorted(experimental)
    return out


def _subscription_support(summary: Any) -> bool | None:
    """What the capability summary says of resource subscriptions; None when it says nothing."""
    if not isinstance(summary, Mapping):
        return None
    for key in ("subscription_support", "subscriptions"):
        if isinstance(summary.get(key), bool):
            return bool(summary[key])
    prereq = summary.get("prerequisites")
    negotiated = prereq.get("negotiated_capabilities") if isinstance(prereq, Mapping) else None
    server_caps = negotiated.get("server") if isinstance(negotiated, Mapping) else None
    if isinstance(server_caps, list):
        return any("subscri" in str(c) for c in server_caps)
    return None


def _server(info: Any) -> dict[str, Any]:
    info = info if isinstance(info, Mapping) else {}
    out: dict[str, Any] = {"name": info.get("name"), "version": info.get("version")}
    for key in ("title", "description", "websiteUrl"):
        if info.get(key) is not None:
            out[key] = info[key]
    return out


def canonical_form(collected: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical snapshot dict of a collected or offline surface, but for its fingerprint."""
    published: list[str] = []
    codes: list[dict[str, Any]] = []

    tools = []
    detail = _tool_detail(collected.get("discover"))
    for i, raw in enumerate(collected.get("tools") or []):
        item, fp = _item(raw, ("name", "title", "description", "inputSchema", "outputSchema"), i)
        item.setdefault("annotations", None)
        if str(item["name"]) in detail:
            item["detail"] = detail[str(item["name"])]
        tools.append(item)
        if fp:
            published.append(fp)
    resources = []
    for i, raw in enumerate(collected.get("resources") or []):
        item, fp = _item(raw, ("uri", "name", "title", "description", "mimeType"), i)
        resources.append(item)
        if fp:
            published.append(fp)
    templates = []
    for i, raw in enumerate(collected.get("resource_templates") or []):
        item, fp = _item(raw, ("uriTemplate", "name", "title", "description", "mimeType"), i)
        templates.append(item)
        if fp:
            published.append(fp)
    prompts = []
    for i, raw in enumerate(collected.get("prompts") or []):
        item, fp = _item(raw, ("name", "title", "description"), i)
        item["arguments"] = sorted(
            (dict(a) for a in (raw.get("arguments") or [])), key=lambda a: str(a.get("name"))
        )
        prompts.append(item)
        if fp:
            published.append(fp)

    discover = collected.get("discover")
    if isinstance(discover, Mapping):
        _, errors, _, fp = _split_meta(discover.get("_meta"))
        if errors is not None:
            codes.extend(_error_entries(errors, "discover._meta"))
        if fp:
            published.append(fp)

    summary = collected.get("capability_summary")
    if isinstance(summary, Mapping):
        for key in _ERROR_KEYS:
            raw = summary.get(key)
            if raw is None:
                continue
            if key == "failure_codes" and isinstance(raw, Mapping):
                # `{situation: CODE}`: the values are the codes, the keys say when they happen
                raw = [{"code": c, "description": k} for k, c in raw.items() if isinstance(c, str)]
            codes.extend(_error_entries(raw, f"capability_summary.{key}"))
        server_part = summary.get("server")
        if isinstance(server_part, Mapping) and isinstance(server_part.get("fingerprint"), str):
            published.append(server_part["fingerprint"])

    caps = _capabilities(collected.get("capabilities"))
    snapshot: dict[str, Any] = {
        "format": FORMAT,
        "server": _server(collected.get("server")),
        "instructions": collected.get("instructions"),
        "capabilities": caps,
        "completion_support": "completions" in caps,
        "subscription_support": _subscription_support(summary),
        "capability_summary": dict(summary) if isinstance(summary, Mapping) else None,
        "error_codes": _merge_codes(codes),
        "tools": sorted(tools, key=lambda t: str(t["name"])),
        "resources": sorted(resources, key=lambda r: str(r["uri"])),
        "resource_templates": sorted(templates, key=lambda r: str(r["uriTemplate"])),
        "prompts": sorted(prompts, key=lambda p: str(p["name"])),
        "published_fingerprint": sorted(set(published))[0] if published else None,
    }
    return snapshot


def plain(value: Any) -> Any:
    """Round-trip through JSON so the dict holds only JSON types (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))
