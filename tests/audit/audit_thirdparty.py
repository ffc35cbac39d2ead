"""Install real third-party MCP servers into a gitignored cache, once, for the audit's tests.

Each Python server gets its own throwaway venv (they may pin other `mcp` versions); each npm server
is installed with `npm install --prefix` into its own folder. Versions are pinned so the labelled
corpus (tests/audit/corpus.py) keeps describing the same behaviour. A stamp file marks a finished
install so later runs reuse it. Run `python -m tests.audit.audit_thirdparty` to warm the cache.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.install_lock import install_lock
from tests.venvs import build_venv

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("DRIVABLE_THIRDPARTY_CACHE", ROOT / "var" / "thirdparty"))

PYPI_SERVERS = {
    # name: (pinned pip requirement, console script)
    "time": ("mcp-server-time==2026.10.19", "mcp-server-time"),
    "git": ("mcp-server-git==2026.10.19", "mcp-server-git"),
    "fetch": ("mcp-server-fetch==2026.10.24", "mcp-server-fetch"),
    "fastmcp": ("fastmcp==4.2.3", None),
    # Not a server: the peer linter the audit benchmark compares against (benchmarks/bench_audit.py).
    "mcp-quality": ("mcp-quality==0.7.0", "mcp-quality"),
}
NPM_SERVERS = {
    # name: (pinned package, entry below node_modules/<package>/, arguments)
    "everything": (
        "@modelcontextprotocol/server-everything@2026.8.31",
        "dist/index.js",
        ("stdio",),
    ),
    "filesystem": ("@modelcontextprotocol/server-filesystem@2026.8.31", "dist/index.js", ()),
    "memory": ("@modelcontextprotocol/server-memory@2026.8.31", "dist/index.js", ()),
    "sequential-thinking": (
        "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
        "dist/index.js",
        (),
    ),
}


def _run(cmd: list[str], timeout: float = 600) -> None:
    subprocess.run(cmd, check=True, timeout=timeout, capture_output=True)


def python_server(name: str) -> Path:
    """The venv directory holding the named PyPI server, installed on first use."""
    requirement, _ = PYPI_SERVERS[name]
    venv = CACHE / f"py-{name}"
    stamp = venv / ".installed"
    with install_lock(venv):
        if stamp.exists() and stamp.read_text().strip() == requirement:
            return venv
        build_venv(venv, [requirement])
        stamp.write_text(requirement + "\n")
    return venv


def python_server_command(name: str) -> list[str]:
    venv = python_server(name)
    _, script = PYPI_SERVERS[name]
    assert script is not None
    return [str(venv / "bin" / script)]


def npm_server_command(name: str) -> list[str]:
    """The command that starts the named npm server over stdio, installed on first use."""
    package, entry, args = NPM_SERVERS[name]
    prefix = CACHE / f"npm-{name}"
    stamp = prefix / ".installed"
    bare = package.rsplit("@", 1)[0]
    with install_lock(prefix):
        if not (stamp.exists() and stamp.read_text().strip() == package):
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
                    package,
                ]
            )
            stamp.write_text(package + "\n")
    return ["node", str(prefix / "node_modules" / bare / entry), *args]


def npm_everything() -> list[str]:
    return npm_server_command("everything")


def warm() -> None:
    for name in PYPI_SERVERS:
        print(f"python server {name}: {python_server(name)}", flush=True)
    for name in NPM_SERVERS:
        print(f"npm server {name}: {npm_server_command(name)}", flush=True)


if __name__ == "__main__":
    warm()
