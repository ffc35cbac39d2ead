"""Probing the lists and resources: stable order, cursors, an unknown resource URI."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client, MCPError

from drivable.audit.model import Finding
from drivable.audit.probes.call import ProbeCall
from drivable.audit.probes.leaks import leaks_in
from drivable.audit.rules.base import finding


async def probe_lists(client: Client, surface: dict[str, Any], timeout: float) -> list[Finding]:
    """List everything again (order must not change) and try an invented tools/list cursor."""
    out: list[Finding] = []

    async def names(kind: str) -> list[str] | None:
        try:
            with anyio.fail_after(timeout):
                if kind == "tools":
                    r: Any = await client.list_tools(cache_mode="bypass")
                    return [t.name for t in r.tools]
                if kind == "resources":
                    r = await client.list_resources(cache_mode="bypass")
                    return [str(x.uri) for x in r.resources]
                r = await client.list_prompts(cache_mode="bypass")
                return [p.name for p in r.prompts]
        except Exception:
            return None

    key_of = {"tools": "name", "resources": "uri", "prompts": "name"}
    for kind in ("tools", "resources", "prompts"):
        first = [str(x.get(key_of[kind])) for x in surface.get(kind, [])]
        if not first or len(surface.get("list_results", {}).get(f"{kind}/list", [])) > 1:
            continue
        for attempt in range(2):
            again = await names(kind)
            if again is not None and set(again) != set(first):
                out.extend(_changed(kind, first, again, surface))
                break
            if again is not None and again != first:
                out.append(
                    finding(
                        "9.deterministic-order",
                        "major",
                        "server",
                        f"{kind}/list returned a different order on listing #{attempt + 2}.",
                        {"first": first[:15], "again": again[:15]},
                        f"Sort {kind}/list by a stable key (name) before returning it.",
                    )
                )
                break
    # A server that never paged its tools/list has no cursors to validate: ignoring one (as every
    # SDK server does) is harmless. Only a paging server must refuse a cursor it never issued.
    if len(surface.get("list_results", {}).get("tools/list", [])) > 1:
        try:
            with anyio.fail_after(timeout):
                r = await client.list_tools(cursor="dv-invented-cursor-0001", cache_mode="bypass")
            out.append(
                finding(
                    "2.pagination",
                    "minor",
                    "server",
                    "tools/list accepted an invented cursor and returned a page.",
                    {"sent": {"cursor": "dv-invented-cursor-0001"}, "tools_returned": len(r.tools)},
                    "Reject unknown tools/list cursors with -32602 (invalid params).",
                )
            )
        except Exception:
            pass
    return out


def _changed(
    kind: str, first: list[str], again: list[str], surface: dict[str, Any]
) -> list[Finding]:
    """The catalog changed between two listings: fine when the capability says it may."""
    caps = surface.get("capabilities") or {}
    cap = caps.get(kind) if isinstance(caps, dict) else None
    if isinstance(cap, dict) and cap.get("listChanged") is True:
        return []
    gained = sorted(set(again) - set(first))
    lost = sorted(set(first) - set(again))
    return [
        finding(
            "9.list-changed",
            "nit",
            "server",
            f"{kind}/list changed between two listings (gained {len(gained)}, lost {len(lost)}), "
            f"but `{kind}.listChanged` is not advertised.",
            {"gained": gained[:15], "lost": lost[:15], f"capabilities.{kind}": cap},
            f"Advertise `{kind}: {{listChanged: true}}` and send "
            f"`notifications/{kind}/list_changed` when the list changes.",
        )
    ]


async def probe_resources(client: Client, surface: dict[str, Any], timeout: float) -> list[Finding]:
    resources = surface.get("resources") or []
    templates = surface.get("resource_templates") or []
    if not resources and not templates:
        return []
    sample = str((resources[0] if resources else templates[0]).get("uri") or "x://")
    scheme = sample.split("://", 1)[0] if "://" in sample else "x"
    uri = f"{scheme}://dv-probe/does-not-exist"
    out: list[Finding] = []
    try:
        with anyio.fail_after(timeout):
            await client.read_resource(uri, cache_mode="bypass")
    except MCPError as exc:
        code, data = exc.code, exc.data
        evidence = {
            "sent": {"uri": uri},
            "jsonrpc_error": {"code": code, "message": exc.message, "data": data},
        }
        if not (isinstance(data, dict) and ("machine_code" in data or "code" in data)):
            out.append(
                finding(
                    "6.resource-errors",
                    "minor",
                    f"resource:{uri}",
                    "Reading an unknown resource gives an error with no envelope in `error.data`.",
                    evidence,
                    'Answer -32602 with `data: {machine_code: "not_found", human_message, hint}` '
                    "naming the list or template to use.",
                )
            )
        if -32019 <= code <= -32000 or code in (-32002, -32042):
            out.append(
                finding(
                    "6.jsonrpc-code-allocation",
                    "minor",
                    f"resource:{uri}",
                    f"Unknown resource answered with reserved code {code}.",
                    evidence,
                    "Use -32602 for a resource that does not exist.",
                )
            )
        call = ProbeCall(
            "unknown-resource", "", {"uri": uri}, "jsonrpc-error", error=evidence["jsonrpc_error"]
        )
        for category, severity, snippet in leaks_in(call):
            out.append(
                finding(
                    "dv.substrate-leak",
                    severity,
                    f"resource:{uri}",
                    f"The error for an unknown resource leaks a {category}: `{snippet}`.",
                    evidence,
                    "Answer with the envelope only; log internals to stderr.",
                )
            )
    except Exception:
        pass
    return out
