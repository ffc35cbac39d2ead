"""Helpers for the surface tests: snapshot real servers over stdio with the official SDK client."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from drivable.surface import snapshot
from drivable.target import Mode, Target

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
PY = sys.executable


def server_cmd(name: str, *args: str) -> list[str]:
    return [PY, str(SERVERS / name), *args]


def take(
    command: Sequence[str], env: Mapping[str, str] | None = None, mode: Mode = "auto"
) -> dict[str, Any]:
    target = Target(command=tuple(command), env=dict(env or {}), mode=mode)

    async def run() -> dict[str, Any]:
        with open("/dev/null", "w") as devnull:
            return await snapshot.take(target, errlog=devnull)

    return anyio.run(run)


def write_spec(tmp: Path, name: str, spec: dict[str, Any]) -> Path:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@pytest.fixture
def spec_cmd(tmp_path: Path) -> Callable[[dict[str, Any]], list[str]]:
    """`spec_cmd(spec)` -> the command that serves that spec over stdio."""
    counter = iter(range(1000))

    def make(spec: dict[str, Any]) -> list[str]:
        path = write_spec(tmp_path, f"spec{next(counter)}", spec)
        return server_cmd("spec_server.py", str(path))

    return make
