"""Drive one MCP server with the Python SDK 1.x client and print what it received, as JSON.

    python drive_mcp1.py PLAN.json      (run by the interpreter of a venv holding `mcp<2`)

The plan is the one `drive.mjs` reads (see there); this file imports nothing of drivable (only `refs.py`
beside it), since it runs in a venv of its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from importlib.metadata import version
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamablehttp_client
from refs import payload_of, resolve  # beside this file, which runs as a script


async def drive(plan: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "sdk": "py1",
        "version": version("mcp"),
        "era": plan["era"],
        "transport": plan["transport"]["kind"],
        "connect": None,
        "tools": [],
        "steps": [],
    }
    t = plan["transport"]
    if t["kind"] == "stdio":
        env = {**get_default_environment(), **t["env"]}
        params = StdioServerParameters(command=t["command"], args=t["args"], env=env)
        streams = stdio_client(params, errlog=open(os.devnull, "w"))  # noqa: SIM115
    else:
        streams = streamablehttp_client(t["url"])
    try:
        async with streams as opened, ClientSession(opened[0], opened[1]) as session:
            init = await session.initialize()
            out["protocolVersion"] = init.protocolVersion
            out["connect"] = {"ok": True}
            out["tools"] = [tool.name for tool in (await session.list_tools()).tools]
            payloads: dict[str, Any] = {}
            for step in plan["steps"]:
                entry: dict[str, Any] = {"id": step["id"], "tool": step["tool"], "threw": False}
                entry["error"] = entry["result"] = None
                try:
                    arguments = resolve(step["arguments"], payloads)
                except (KeyError, IndexError, StopIteration) as error:
                    entry["unresolved"] = repr(error)  # the plan's fault, not the client's
                    out["steps"].append(entry)
                    continue
                try:
                    result = await session.call_tool(step["tool"], arguments)
                    entry["result"] = result.model_dump(
                        by_alias=True, mode="json", exclude_none=True
                    )
                    payloads[step["id"]] = payload_of(entry["result"])
                except Exception as error:  # what the client raised is the measurement
                    entry["threw"] = True
                    entry["error"] = {"name": type(error).__name__, "message": str(error)}
                out["steps"].append(entry)
    except Exception as error:
        if out["connect"] is None:
            out["connect"] = {
                "ok": False,
                "error": {"name": type(error).__name__, "message": str(error)},
            }
    return out


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        print(json.dumps(asyncio.run(drive(json.load(handle)))))
