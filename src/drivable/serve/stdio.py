"""stdio: the protocol on stdout and nothing else; every log line goes to stderr."""

from __future__ import annotations

import logging
import sys

import anyio
from mcp.server.stdio import stdio_server

from drivable.contract import Contract
from drivable.serve.mount import build_server, compute_fingerprint


def _logs_to_stderr() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        stream = getattr(handler, "stream", None)
        if stream is sys.stdout:
            root.removeHandler(handler)
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


async def serve_stdio(contract: Contract) -> None:
    _logs_to_stderr()
    await contract.prepare()
    await compute_fingerprint(contract)
    server = build_server(contract)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(contract: Contract) -> None:
    """Serve `contract` on this process's stdin/stdout until the client closes it."""
    anyio.run(serve_stdio, contract)
