"""Install real third-party MCP servers into a gitignored cache, once, for the audit's tests.

Each Python server gets its own throwaway venv (they may pin other `mcp` versions); the npm server is
installed with `npm install --prefix`. A stamp file marks a finished install so later runs reuse it.
Run `python tests/audit/thirdparty.py` to warm the cache (CI does this before pytest).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("DRIVABLE_THIRDPARTY_CACHE", ROOT / "var" / "thirdparty"))

PYPI_SERVERS = {
    # name: (pip requirement, console script)
    "time": ("mcp-server-time", "mcp-server-time"),
    "git": ("mcp-server-git", "mcp-server-git"),
    "fastmcp": ("fastmcp", None),
}
NPM_EVERYTHING = "@modelcontextprotocol/server-everything"


def _run(cmd: list[str], timeout: float = 600) -> None:
    subprocess.run(cmd, check=True, timeout=timeout, capture_output=True)


def python_server(name: str) -> Path:
    """The venv directory holding the named PyPI server, installed on first use."""
    requirement, _ = PYPI_SERVERS[name]
    venv = CACHE / f"py-{name}"
    stamp = venv / ".installed"
    if stamp.exists():
        return venv
    CACHE.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", "--clear", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", requirement])
    stamp.write_text(requirement + "\n")
    return venv


def python_server_command(name: str) -> list[str]:
    venv = python_server(name)
    _, script = PYPI_SERVERS[name]
    assert script is not None
    return [str(venv / "bin" / script)]


def npm_everything() -> list[str]:
    """The command that starts server-everything over stdio, installed on first use."""
    prefix = CACHE / "npm-everything"
    stamp = prefix / ".installed"
    entry = prefix / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"
    if not stamp.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        _run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                NPM_EVERYTHING,
            ]
        )
        stamp.write_text(NPM_EVERYTHING + "\n")
    return ["node", str(entry / "index.js"), "stdio"]


def warm() -> None:
    for name in PYPI_SERVERS:
        print(f"python server {name}: {python_server(name)}", flush=True)
    print(f"npm server-everything: {npm_everything()}", flush=True)


if __name__ == "__main__":
    warm()
