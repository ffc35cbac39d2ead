"""drivable.serve: run a contract over stdio or streamable HTTP, in both protocol eras.

The names below load on first use, so `drivable serve -h` does not import the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivable.serve.mount import build_server, compute_fingerprint
    from drivable.serve.stdio import run_stdio

__all__ = ["build_server", "compute_fingerprint", "run_stdio"]

_HOMES = {
    "build_server": "drivable.serve.mount",
    "compute_fingerprint": "drivable.serve.mount",
    "run_stdio": "drivable.serve.stdio",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'drivable.serve' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
