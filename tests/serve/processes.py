"""The worker processes of a tree served with `--http --workers N`, read from /proc: which listen,
which holds a connection, and one paused so that another takes the next connection."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path


def listening_workers(pid: int, bound: float) -> list[int]:
    """The serving worker processes under `pid` (its children that listen), once two are up or
    `bound` seconds have passed."""
    deadline = time.monotonic() + bound
    while True:
        children = [
            int(child)
            for task in os.listdir(f"/proc/{pid}/task")
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        ]
        listening = [c for c in children if _sockets(c) & _tcp_inodes(state="0A")]
        if len(listening) >= 2 or time.monotonic() > deadline:
            return listening
        time.sleep(0.2)


def _sockets(pid: int) -> set[str]:
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                found.add(link[len("socket:[") : -1])
    return found


def _tcp_inodes(*, state: str, port: int | None = None) -> set[str]:
    """Inodes of the IPv4 TCP sockets in `state` (01 established, 0A listening), on `port`."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        if fields[3] == state and (port is None or local_port == port):
            found.add(fields[9])
    return found


@contextlib.contextmanager
def paused(worker: int) -> Iterator[None]:
    """`worker` stopped (SIGSTOP) while the block runs: the workers share one listening socket, so
    every connection made meanwhile is accepted by another worker."""
    os.kill(worker, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(worker, signal.SIGCONT)


def serving(workers: list[int], port: int) -> list[int]:
    """The workers holding an established connection on `port` (one: the test's own)."""
    established = _tcp_inodes(state="01", port=port)
    return [w for w in workers if _sockets(w) & established]
