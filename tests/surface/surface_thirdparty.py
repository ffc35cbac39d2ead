"""Install the third-party tools the surface tests compare against, once, into a gitignored cache.

Each gets its own throwaway venv under `var/thirdparty/surface-*` (older servers pin `mcp<2`, the
version they were released against); a stamp file holding the requirements marks a finished install,
so later runs reuse it. `python tests/surface/surface_thirdparty.py` warms the cache.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.install_lock import install_lock
from tests.venvs import VenvFailed, build_venv

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("DRIVABLE_THIRDPARTY_CACHE", ROOT / "var" / "thirdparty"))

# name: (requirements, console script)
INSTALLS: dict[str, tuple[tuple[str, ...], str]] = {
    "mcp-contract": (("mcp-contract==0.6.0",), "mcp-contract"),
    "time-0.6.2": (("mcp-server-time==0.6.2", "mcp<2"), "mcp-server-time"),
    "time-2026.10.19": (("mcp-server-time==2026.10.19",), "mcp-server-time"),
    "fetch-0.6.2": (("mcp-server-fetch==0.6.2", "mcp<2"), "mcp-server-fetch"),
    "fetch-2026.10.24": (("mcp-server-fetch==2026.10.24",), "mcp-server-fetch"),
}


def _venv(name: str) -> Path:
    return CACHE / f"surface-{name}"


def _stamp_text(name: str) -> str:
    return "\n".join(INSTALLS[name][0]) + "\n"


def _ready(name: str) -> bool:
    stamp = _venv(name) / ".installed"
    return stamp.exists() and stamp.read_text() == _stamp_text(name)


def ensure(*names: str) -> dict[str, list[str]]:
    """The command of each named tool, installing the missing ones in parallel first."""
    wanted = names or tuple(INSTALLS)
    with install_lock(CACHE / "surface"):
        _install([n for n in wanted if not _ready(n)])
    return {n: [str(_venv(n) / "bin" / INSTALLS[n][1])] for n in wanted}


def _install(missing: list[str]) -> None:
    def one(name: str) -> str | None:
        try:
            build_venv(_venv(name), INSTALLS[name][0])
        except VenvFailed as error:
            return f"{name}: {error}"
        (_venv(name) / ".installed").write_text(_stamp_text(name))
        return None

    with ThreadPoolExecutor(max_workers=max(1, len(missing))) as pool:
        failures = [f for f in pool.map(one, missing) if f]
    if failures:
        raise RuntimeError("could not install: " + "; ".join(failures))


if __name__ == "__main__":
    for name, command in ensure().items():
        print(name, *command)
