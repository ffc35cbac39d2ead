"""The caselaw server over real transports: `drivable serve caselaw` on stdio and on HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from drivable.contract import envelope_of
from drivable.target import Target, connect
from tests.cli import CLI


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_url(caselaw_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`drivable serve caselaw --http --port N --workers 2` in a subprocess."""
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "serve.log"
    env = dict(os.environ, DRIVABLE_CASELAW_DB=str(caselaw_db))
    command = [*CLI, "serve", "caselaw", "--http", "--port", str(port), "--workers", "2"]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()[-2000:]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


async def drive(target: Target, mode: str) -> None:
    with open(os.devnull, "w") as errlog:
        async with connect(target, mode=mode, errlog=errlog, read_timeout_seconds=30) as client:  # type: ignore[arg-type]
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {
                "search_decisions",
                "get_decision",
                "list_courts",
                "summarize_decisions",
            }
            assert all(t.output_schema and t.annotations.read_only_hint for t in tools.values())  # type: ignore[union-attr]

            async def call(name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
                result = await client.call_tool(name, arguments)
                data = envelope_of(result) or result.structured_content or {}
                assert json.loads(result.content[0].text) == data  # type: ignore[union-attr]
                if not result.is_error:
                    jsonschema.validate(data, tools[name].output_schema)
                return bool(result.is_error), data

            error, page = await call(
                "search_decisions",
                {
                    "query": "nahrada skody",
                    "court": "Nejvyssi soud",
                    "date_from": "2020",
                    "date_to": "1. 10. 2026",
                    "limit": "4 000",
                    "cursor": "0",
                },
            )
            assert not error and page["results"]
            assert "date_to: Read '1. 10. 2026' as 2026-10-01." in page["notes"]
            error, dropped = await call("search_decisions", {"court": "Krajský soud v Plzni"})
            assert dropped["warnings"][0]["code"] == "filter_value_dropped"
            error, asked = await call("search_decisions", {"date_from": "01/02/2026"})
            assert error and asked["issues"][0]["readings"] == ["2026-02-01", "2026-01-02"]
            error, placeholder = await call("get_decision", {"decision_id": "dec_xxx"})
            assert error and placeholder["code"] == "invalid_arguments"
            assert "search_decisions" in placeholder["hint"]
            error, envelope = await call("get_decision", {"decision_id": "dec_nosuchthing"})
            assert error and envelope["code"] == "not_found"
            assert envelope["repair"]["tool"] == "search_decisions"
            row = page["results"][0]
            error, got = await call("get_decision", {"case_number": row["case_number"].upper()})
            assert not error and got["decision"]["decision_id"] == row["decision_id"]
            if page[
                "has_more"
            ]:  # the cursor is good on the next request, whichever worker serves it
                for _ in range(3):
                    error, more = await call(
                        "search_decisions",
                        {
                            "query": "nahrada skody",
                            "court": "Nejvyšší soud",
                            "date_from": "2020-01-01",
                            "date_to": "2026-10-01",
                            "cursor": page["next_cursor"],
                        },
                    )
                    assert not error, more
            resource = await client.read_resource(row["uri"])
            assert json.loads(resource.contents[0].text)["chunks"]  # type: ignore[union-attr]


async def test_drivable_serve_caselaw_over_stdio(caselaw_db: Path) -> None:
    target = Target(
        command=(*CLI, "serve", "caselaw"), env={"DRIVABLE_CASELAW_DB": str(caselaw_db)}
    )
    await drive(target, "auto")


async def test_python_m_serves_the_same_over_stdio_in_the_handshake_era(caselaw_db: Path) -> None:
    target = Target(
        command=(sys.executable, "-m", "drivable.servers.caselaw"),
        env={"DRIVABLE_CASELAW_DB": str(caselaw_db)},
    )
    await drive(target, "legacy")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_drivable_serve_caselaw_over_http_with_two_workers(http_url: str, mode: str) -> None:
    await drive(Target(url=http_url), mode)
