"""A throwaway venv holding pinned requirements: how every real counterpart from PyPI is installed.

The third-party servers, the surface peers and the Python SDK 1.x each get their own venv (they pin
other `mcp` versions). uv, a dev dependency, builds one in about a second of CPU where `venv` and
`pip` took twenty (measured for mcp-server-time 2026.10.19 from an empty cache: 1.2 s of CPU
against 23.4 s), and CI builds eleven of them beside the tests. Without uv (a checkout whose venv
predates it) `venv` and `pip` build the same thing.

Callers hold their own `install_lock` and stamp; this only builds.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


class VenvFailed(RuntimeError):
    """A venv could not be built; the message ends with the installer's last output."""


def uv_binary() -> str | None:
    """The uv beside this interpreter (the project venv's), else on PATH, else None."""
    beside = Path(sys.executable).parent / "uv"
    if beside.is_file():
        return str(beside)
    return shutil.which("uv")


def build_commands(venv: Path, requirements: Sequence[str]) -> list[list[str]]:
    """The commands that replace `venv` with a fresh one holding `requirements`."""
    python = venv / "bin" / "python"
    uv = uv_binary()
    if uv:
        return [
            [uv, "venv", "--quiet", "--clear", "--python", sys.executable, str(venv)],
            [uv, "pip", "install", "--quiet", "--python", str(python), *requirements],
        ]
    return [
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         *requirements],
    ]  # fmt: skip


def build_venv(venv: Path, requirements: Sequence[str], *, timeout: float = 900) -> Path:
    """Build `venv` holding `requirements` and return its interpreter; VenvFailed if it cannot."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    for command in build_commands(venv, requirements):
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise VenvFailed(f"{' '.join(command[:3])} took over {timeout:.0f} s") from error
        if done.returncode != 0:
            tail = (done.stderr or done.stdout)[-2000:]
            raise VenvFailed(f"{' '.join(command[:3])} exited {done.returncode}: {tail}")
    return venv / "bin" / "python"
