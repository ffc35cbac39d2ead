"""`drivable eval` exits 2 when its target never answers, and says why with the server's stderr:
real processes that exit, crash, or print what no client reads, and an address nobody serves."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drivable.cli import app

FLOW = Path(__file__).resolve().parents[2] / "src/drivable/eval/workflows/example/tune"
QUICK = ["--persona", "literal", "--trials", "1", "--workflow", str(FLOW / "01_cold_start.yaml")]

# behaviour -> (the server's code, a line it writes to stderr, whether it stays up saying nothing)
SERVERS = {
    "exits": (
        "import sys; print('no database configured', file=sys.stderr); sys.exit(3)",
        "no database configured",
        False,
    ),
    "crashes": ("raise RuntimeError('the store is locked')", "the store is locked", False),
    "prints garbage and exits": ("print('hello, not JSON-RPC')", None, False),
    "prints garbage and stays": (
        "import time; print('ready!', flush=True); time.sleep(60)",
        None,
        True,
    ),
    "answers nothing": ("import time; time.sleep(60)", None, True),
}


def _eval(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["eval", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("behaviour", sorted(SERVERS))
def test_a_server_that_never_answers_exits_2_with_its_stderr(behaviour: str) -> None:
    code, stderr_line, stays = SERVERS[behaviour]
    wait = ["--connect-timeout", "3"] if stays else []  # a silent server: no need for 45 s
    exit_code, out = _eval(*QUICK, *wait, "--", sys.executable, "-c", code)
    assert exit_code == 2, out
    assert "never answered" in out and "completed" not in out
    if stderr_line is not None:
        assert "server stderr (last lines)" in out and stderr_line in out


def test_an_address_nobody_serves_exits_2() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    exit_code, out = _eval(*QUICK, "--url", f"http://127.0.0.1:{port}/mcp")
    assert exit_code == 2 and "never answered" in out, out


def test_a_server_that_answers_runs() -> None:
    naive = Path(__file__).parent / "naive_notes_server.py"
    exit_code, out = _eval(*QUICK, "--", sys.executable, str(naive))
    assert exit_code == 0 and "completed" in out, out
