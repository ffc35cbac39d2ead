"""Print the tools/list of a naive twin's functions registered on standalone FastMCP, as JSON.

Run with an interpreter that has `fastmcp` (the project's src on PYTHONPATH, its site-packages as further arguments), e.g.
`FASTMCP_PYTHON=var/thirdparty/py-fastmcp/bin/python`: the same Python functions as the twin
(`drivable.eval.baselines`), so the only difference from the twin's listing is the framework.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any


async def listing(module: str) -> list[dict[str, Any]]:
    import fastmcp  # type: ignore[import-not-found,unused-ignore]

    twin = importlib.import_module(module).server
    app = fastmcp.FastMCP(twin.name)
    for tool in twin._tool_manager._tools.values():
        app.tool(tool.fn, name=tool.name, description=tool.description)
    async with fastmcp.Client(app) as client:
        return [t.model_dump(by_alias=True, exclude_none=True) for t in await client.list_tools()]


if __name__ == "__main__":
    import anyio

    # the project's own site-packages come last: FastMCP's environment wins, and what only the
    # project has (the twins import drivable's stores) is still found
    sys.path.extend(sys.argv[2:])
    print(json.dumps(anyio.run(listing, sys.argv[1]), ensure_ascii=False))
