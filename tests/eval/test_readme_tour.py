"""Every `drivable ...` line of the README's tour runs as written, in order, in one folder.

The two `serve` lines are stdio servers: a real MCP client starts each and lists its tools. The
billing one needs the PostgreSQL `scripts/ensure-postgres.sh` starts, at the DSN it prints; the
HTTP audit needs the server the caselaw line's comment starts with `--http --port 8000`, here on
a free port. `diff` compares two snapshots: the one the tour's `snapshot` line wrote, twice. The
tests below check that each of those reasons is still what the README says."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from drivable.target import Target, connect

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def tour() -> list[list[str]]:
    """The tour block's `drivable` lines, split as a shell splits them (comments dropped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## A tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [
        shlex.split(line, comments=True)
        for line in block.splitlines()
        if line.startswith("drivable ")
    ]


def _line(*head: str) -> list[str]:
    return next(argv for argv in tour() if argv[: len(head)] == list(head))


def _env() -> dict[str, str]:
    # `python` and `drivable` in the README are this environment's
    return {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def caselaw_http() -> Iterator[int]:
    """`drivable serve caselaw --http --port P`, as the tour's comment says, on a free port."""
    port = _free_port()
    process = subprocess.Popen(
        [str(BIN / "drivable"), "serve", "caselaw", "--http", "--port", str(port)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "drivable serve caselaw --http exited"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _pg_dsn() -> str:
    if os.environ.get("DRIVABLE_PG") == "skip":
        pytest.skip("DRIVABLE_PG=skip: the tour's billing line needs PostgreSQL")
    from tests.effects.effects_pg import ensure_postgres

    return ensure_postgres()


async def _serves(argv: list[str]) -> list[str]:
    target = Target(command=(str(BIN / "drivable"), *argv[1:]), env=dict(_env()))
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with connect(target, errlog=errlog) as client:
            return [t.name for t in (await client.list_tools()).tools]


def test_the_tours_fixtures_are_what_the_readme_says() -> None:
    serve = (ROOT / "README.md").read_text(encoding="utf-8").split("drivable serve caselaw", 1)[1]
    assert "--http --port 8000" in serve.splitlines()[0]
    assert any("127.0.0.1:8000" in arg for arg in _line("drivable", "audit", "--url"))
    assert (
        _line("drivable", "serve", "billing")[-1]
        == "postgresql://postgres@127.0.0.1:55432/drivable_test"
    )
    assert _line("drivable", "snapshot")[3] == "surface.json"
    # drivable's own options come before `--`: after it is the server's command, word for word
    ours = {"--out", "-o", "--trace", "--persona", "--trials", "--baseline", "--gate", "--split"}
    for argv in tour():
        if "--" in argv:
            assert not ours & set(argv[argv.index("--") :]), argv


def test_every_line_of_the_readme_tour_runs_as_written(tmp_path: Path, caselaw_http: int) -> None:
    lines = tour()
    assert len(lines) >= 10
    failed: list[str] = []
    for argv in lines:
        said = shlex.join(argv)
        if argv[1] == "serve":
            if argv[2] == "billing":
                assert _pg_dsn() == argv[-1]
            tools = anyio.run(_serves, argv)
            if not tools:
                failed.append(f"{said}: listed no tools")
            continue
        run = [str(BIN / "drivable"), *argv[1:]]
        if argv[1] == "audit" and "--url" in argv:
            run = [a.replace("127.0.0.1:8000", f"127.0.0.1:{caselaw_http}") for a in run]
        if argv[1] == "diff":
            for name in argv[2:4]:
                shutil.copy(tmp_path / "surface.json", tmp_path / name)
        done = subprocess.run(
            run, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600, check=False
        )
        if done.returncode != 0:
            failed.append(f"{said}: exit {done.returncode}\n{(done.stdout + done.stderr)[-2000:]}")
    assert not failed, "\n\n".join(failed)
    assert (tmp_path / "run.json").is_file() and (tmp_path / "audit.sarif").is_file()
