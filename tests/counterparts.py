"""Install every real counterpart the tests use, side by side, before the tests ask for one.

`make test` starts this detached (`--detach`) before lint and types, so the downloads of Node 22
and the npm clients, the Python SDK 1.x, the pinned third-party servers, the surface peers,
PostgreSQL and Debian's chromium (the HTML reports' tests) overlap with the checks that need none of them. It is only a head start: every
installer takes its own lock and stamp, so a test that gets there first installs it itself, and
one that comes later waits for the lock and finds the stamp. A failure here changes nothing (the
test that needs the counterpart reports it); the log is var/counterparts.log.

    python -m tests.counterparts            # install, print each one's seconds, exit 1 on a failure
    python -m tests.counterparts --detach   # the same in the background; returns at once
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "var" / "counterparts.log"


def _installers() -> dict[str, Callable[[], Any]]:
    from tests.audit import audit_thirdparty as audit
    from tests.browser import ensure_chromium
    from tests.effects.effects_pg import ensure_postgres
    from tests.interop.interop import ensure_mcp1, ensure_node
    from tests.surface import surface_thirdparty as surface

    def node_then_npm_servers() -> None:
        ensure_node()  # on a machine without npm, this installs it
        for name in audit.NPM_SERVERS:
            audit.npm_server_command(name)

    found: dict[str, Callable[[], Any]] = {
        # the longest first: the pool starts them in this order
        "node and the npm servers": node_then_npm_servers,
        "surface peers": surface.ensure,
        "python sdk 1.x": ensure_mcp1,
        "postgres": ensure_postgres,
        "chromium": ensure_chromium,
    }
    for name in audit.PYPI_SERVERS:
        found[f"py-{name}"] = partial(audit.python_server, name)
    return found


def install_all(workers: int = 4) -> int:
    """Run every installer (at most `workers` at once); 1 when any failed."""
    failed = 0

    def one(item: tuple[str, Callable[[], Any]]) -> None:
        nonlocal failed
        name, install = item
        started = time.monotonic()
        try:
            install()
        except Exception as error:  # reported, never raised: the tests report it again
            failed += 1
            print(f"{name}: FAILED after {time.monotonic() - started:.0f} s: {error}", flush=True)
            return
        print(f"{name}: ready in {time.monotonic() - started:.0f} s", flush=True)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, _installers().items()))
    return 1 if failed else 0


def detach() -> None:
    """Start `python -m tests.counterparts` in its own session, writing LOG, and return."""
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with LOG.open("w") as log:
        subprocess.Popen(
            [sys.executable, "-m", "tests.counterparts"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )


if __name__ == "__main__":
    if "--detach" in sys.argv[1:]:
        detach()
        raise SystemExit(0)
    raise SystemExit(install_all())
