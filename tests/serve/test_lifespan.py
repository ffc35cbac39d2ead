"""A contract's lifespan (`drivable.contract.lifespan`): opened once per server start (stdio; each
HTTP worker), shared by every session and call, closed on shutdown; a failure to open is a
startup error in one line, and the handlers take the resource by its annotated type."""

from __future__ import annotations

import contextlib
import copy
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from drivable import Contract, Summary
from drivable.contract.lifespan import LifespanError
from drivable.contract.tool import ContractError
from drivable.serve.mount import build_server
from drivable.target import Target, connect
from tests.serve import lifespan_app
from tests.serve.conftest import HERE, HttpServer, _wait_listening, free_port, stop_http

BOUND = 60.0
SERVE = (sys.executable, "-c", "from drivable.serve.command import main; main()")


def events(log: Path) -> list[tuple[str, int]]:
    lines = log.read_text().split() if log.exists() else []
    return [(lines[i], int(lines[i + 1])) for i in range(0, len(lines), 2)]


def env_with(**values: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("LIFESPAN_FAIL", None)
    env.update(values)
    return env


# -- in process ----------------------------------------------------------------------------------


async def test_entries_share_one_opening_and_the_last_one_out_closes_it(tmp_path: Path) -> None:
    log = tmp_path / "events"
    contract = copy.copy(lifespan_app.contract)
    async with contract.started(log=log):
        async with contract.started(), contract.started():  # sessions, the fingerprint
            first = await contract.call("count_call", {})
        async with connect(Target(server=build_server(contract))) as client:
            second = await client.call_tool("count_call", {})
            body = await client.read_resource("counter://calls")
        assert events(log) == [("open", os.getpid())]
    assert events(log) == [("open", os.getpid()), ("close", os.getpid())]
    assert first.structured["calls"] == 1
    assert second.structured_content is not None and second.structured_content["calls"] == 2
    assert '"calls": 2' in body.contents[0].text  # type: ignore[union-attr]


async def test_a_call_outside_the_lifespan_is_an_internal_error_not_a_trace() -> None:
    out = await copy.copy(lifespan_app.contract).call("count_call", {})
    assert out.is_error and out.structured["code"] == "internal_error"
    assert "lifespan" not in str(out.structured) and "Traceback" not in str(out.structured)


async def test_a_copy_opens_its_own_and_arguments_go_to_an_opening_only(tmp_path: Path) -> None:
    one, two = copy.copy(lifespan_app.contract), copy.copy(lifespan_app.contract)
    async with one.started(log=tmp_path / "one"), two.started(log=tmp_path / "two"):
        assert one.provided() is not two.provided()
        with pytest.raises(ContractError, match="open already"):
            async with one.started(log=tmp_path / "three"):
                pass
    assert [e for e, _ in events(tmp_path / "one")] == ["open", "close"]


def test_the_resource_type_is_the_lifespans_annotation() -> None:
    assert lifespan_app.contract.resource_type is lifespan_app.Counter
    # the resource parameter is no property of the input
    assert lifespan_app.contract.tools["count_call"].input_schema["properties"] == {}

    @asynccontextmanager
    async def unannotated(contract):  # type: ignore[no-untyped-def]
        yield 1

    with pytest.raises(ContractError, match="AsyncIterator"):
        Contract("x", version="1", summary=SUMMARY, lifespan=unannotated)


SUMMARY = Summary("Nothing.", does=["nothing"], does_not=["anything"])


async def test_a_lifespan_that_yields_another_type_fails_to_open() -> None:
    @asynccontextmanager
    async def lies(contract: Contract) -> AsyncIterator[int]:
        yield "not a number"  # type: ignore[misc]

    contract = Contract("liar", version="1", summary=SUMMARY, lifespan=lies)

    with pytest.raises(LifespanError, match="yielded a str, not the int"):
        async with contract.started():
            pass


# -- served ------------------------------------------------------------------------------------


async def test_stdio_opens_once_per_start_and_closes_on_shutdown(tmp_path: Path) -> None:
    log = tmp_path / "events"
    env = env_with(LIFESPAN_LOG=str(log))
    command = (*SERVE, "lifespan_app:contract")
    with anyio.fail_after(BOUND), open(os.devnull, "w") as errlog:
        target = Target(command=command, cwd=str(HERE), env=env)
        async with connect(target, errlog=errlog) as client:
            for n in range(1, 4):
                result = await client.call_tool("count_call", {})
                assert result.structured_content is not None
                assert result.structured_content["calls"] == n
            pid = result.structured_content["pid"]
    for _ in range(100):  # the process closes it as the client goes
        if len(events(log)) == 2:
            break
        time.sleep(0.1)
    assert events(log) == [("open", pid), ("close", pid)]


def test_http_workers_each_open_once_and_close_on_shutdown(tmp_path: Path) -> None:
    log = tmp_path / "events"
    port = free_port()
    output = tmp_path / "serve.log"
    command = [*SERVE, "lifespan_app:contract", "--http", "--port", str(port), "--workers", "2"]
    with output.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=HERE, env=env_with(LIFESPAN_LOG=str(log)), stdout=sink, stderr=sink
        )
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", port, process, output)
    try:
        _wait_listening(port, process, output)

        async def calls() -> set[int]:
            pids = set()
            for _ in range(8):  # stateless: each call a session of its own
                async with connect(Target(url=server.url)) as client:
                    result = await client.call_tool("count_call", {})
                    assert result.structured_content is not None
                    pids.add(result.structured_content["pid"])
            return pids

        anyio.run(calls)
        for _ in range(100):  # both workers started (one may not have served a call)
            if len(events(log)) >= 2:
                break
            time.sleep(0.1)
    finally:
        stop_http(server)
    opened = [pid for event, pid in events(log) if event == "open"]
    closed = [pid for event, pid in events(log) if event == "close"]
    assert len(opened) == 2 and len(set(opened)) == 2, events(log)
    assert sorted(closed) == sorted(opened), (events(log), output.read_text()[-2000:])


@pytest.mark.parametrize("http", [False, True])
def test_a_lifespan_that_fails_to_open_is_a_startup_error_in_one_line(
    tmp_path: Path, http: bool
) -> None:
    command = [*SERVE, "lifespan_app:contract"]
    if http:
        command += ["--http", "--port", str(free_port())]
    with contextlib.ExitStack():
        done = subprocess.run(
            command,
            cwd=HERE,
            env=env_with(LIFESPAN_FAIL="1"),
            capture_output=True,
            text=True,
            timeout=BOUND,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert (
        "counter: its lifespan open_counter failed to open: ConnectionRefusedError: the "
        "counter's database refused the connection" in said
    ), said
    assert "Traceback" not in said, said
