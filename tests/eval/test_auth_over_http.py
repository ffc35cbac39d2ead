"""The auth-failure workflow over real streamable HTTP: caselaw behind a bearer-token verifier."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivable.eval.agents.simulated import SimulatedAgent
from drivable.eval.solver import EvalTarget, run_trial
from drivable.eval.workflow import Workflow, bundled
from drivable.target import Target
from tests.cli import CLI

ROOT = Path(__file__).resolve().parents[2]
SERVE_TESTS = ROOT / "tests" / "serve"
READER_TOKEN = "reader-token-0123456789"  # tests/serve/serve_app.py's static verifier


@pytest.fixture(scope="module")
def caselaw_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SERVE_TESTS), *filter(None, [env.get("PYTHONPATH")])])
    log = tmp_path_factory.mktemp("caselaw-http") / "server.log"
    command = [
        *CLI,
        "serve",
        "caselaw",
        "--http",
        "--port",
        str(port),
        "--verifier",
        "serve_app:verifier",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=SERVE_TESTS, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(log.read_text()[-2000:])
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _auth_workflow() -> Workflow:
    return next(w for w in bundled("caselaw") if w.fixture == "auth-failure")


async def test_a_refused_token_is_a_result_that_says_what_the_user_must_do(
    caselaw_http: str,
) -> None:
    target = EvalTarget(Target(url=caselaw_http, bearer_token="not-a-token-of-this-server"))
    result = await run_trial(
        target, _auth_workflow(), SimulatedAgent("literal", 0), capabilities={"http-auth"}
    )
    v = result.verdict
    assert not v["completed"] and v["tool_calls"] == 0 and v["connect_error"]
    refusal = v["http_refusal"]
    assert refusal["status"] == 401 and refusal["www_authenticate"].startswith("Bearer")
    assert refusal["envelope"]["code"] == "invalid_credentials"
    assert refusal["envelope"]["hint"]


async def test_the_same_workflow_passes_with_a_token_the_server_accepts(caselaw_http: str) -> None:
    target = EvalTarget(Target(url=caselaw_http, bearer_token=READER_TOKEN))
    result = await run_trial(
        target, _auth_workflow(), SimulatedAgent("speller", 0), capabilities={"http-auth"}
    )
    assert result.verdict["completed"], result.verdict
    assert result.verdict["discovery"]["tokens"] > 0


async def test_a_long_running_tally_is_started_polled_and_read_over_http(caselaw_http: str) -> None:
    """The host's tasks/get carries Mcp-Name: <taskId> over streamable HTTP (SEP-2663)."""
    from drivable.serve.http import load_contract
    from drivable.servers import import_path

    flow = next(w for w in bundled("caselaw") if w.name == "long-running-task")
    # judged through the contract: the persona sends the day as the user wrote it ("1. 1. 2018",
    # decision 0038) and a task handle carries no notes saying how the server read it
    contract = load_contract(import_path("caselaw"))
    target = EvalTarget(Target(url=caselaw_http, bearer_token=READER_TOKEN), contract=contract)
    result = await run_trial(target, flow, SimulatedAgent("literal", 0))
    assert result.skipped is None and result.verdict["completed"], result.verdict
