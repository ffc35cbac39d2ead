"""`drivable serve MODULE:ATTR` over stdio (HTTP is what the other tests start it with)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import typer
from typer._click import Context

from drivable.contract.envelope import envelope_of
from drivable.serve.http import load_contract
from drivable.target import Target, connect
from tests.cli import CLI
from tests.serve.conftest import HERE, HttpServer, _wait_listening, free_port, stop_http
from tests.serve.processes import listening_workers, paused, serving

BOUND = 60.0


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_serve_command_speaks_stdio(mode: str) -> None:
    command = (
        sys.executable,
        "-c",
        "from drivable.serve.command import main; main()",
        "serve_app:contract",
    )
    with anyio.fail_after(BOUND), open(os.devnull, "w") as errlog:
        async with connect(Target(command=command, cwd=str(HERE)), mode=mode, errlog=errlog) as c:  # type: ignore[arg-type]
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"search_notes", "count_slowly", "archive_note"} <= names
            # stdio's caller is the local user, holding every scope.
            result = await c.call_tool("archive_note", {"note_id": "note_2"})
            assert not result.is_error


def test_load_contract_takes_an_object_or_a_factory() -> None:
    assert load_contract("tests.serve.serve_app:contract").name == "notes-serve"
    assert load_contract("tests.serve.serve_app:make_contract").name == "notes-serve"
    with pytest.raises(ValueError, match="MODULE:ATTR"):
        load_contract("tests.serve.serve_app")
    with pytest.raises(TypeError, match="not a drivable Contract"):
        load_contract("tests.serve.serve_app:verifier")


ROOT = HERE.parents[1]


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def test_a_target_that_does_not_import_is_one_line_and_exit_2() -> None:
    done = run_cli("serve", "nosuch:contract")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "cannot import 'nosuch'" in done.stderr and "Traceback" not in done.stderr


def test_usage_errors_are_one_line_naming_the_help() -> None:
    for args in (("serve",), ("read",), ("codes", "--bogus"), ("nosuch",)):
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip().count("\n") == 0, (args, done.stderr)
        assert "-h" in done.stderr or "--help" in done.stderr, (args, done.stderr)


def test_every_command_refuses_what_it_cannot_use_in_one_line_and_exit_2(tmp_path: Path) -> None:
    """A bad input to any command ends in one line naming the command, exit 2, no traceback (a
    server command that does not start may be preceded by the line saying what was started)."""
    missing = str(tmp_path / "missing")
    cases = (
        ("audit", "--from-file", f"{missing}.json"),
        ("rules", "nosuch.rule"),
        ("codes", "nosuch_code"),
        ("snapshot", "--", missing),
        ("diff", f"{missing}-old", f"{missing}-new"),
        ("import-decisions", f"{missing}.jsonl"),
        ("serve", "--http", "nosuch:contract"),
    )
    for args in cases:
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith(f"drivable {args[0]}:"), (args, done.stderr)
        assert "Traceback" not in done.stderr and "Error:" not in last, (args, done.stderr)


def test_version_and_short_help() -> None:
    from drivable import __version__

    assert run_cli("--version").stdout.strip() == f"drivable {__version__}"
    assert "Usage: drivable" in run_cli("-h").stdout
    assert "MODULE:ATTR" in run_cli("serve", "-h").stdout


def test_the_help_table_is_each_commands_own_first_line() -> None:
    from drivable import cli

    for command in cli.COMMANDS:
        group = typer.main.get_group(cli.typer_app([command.module]))
        found = group.get_command(Context(group), command.name)
        assert found is not None, command
        own = " ".join((found.help or "").split("\n\n")[0].split())
        assert own == command.help, (command.name, own)


def test_help_imports_no_command_module() -> None:
    probe = (
        "import sys\nfrom drivable.cli import run\nrun(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('drivable.', 'typer', 'pydantic'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "['drivable.cli']", done.stdout


BOOKMARKS = 12


async def test_two_workers_keep_receipts_in_the_store_and_accept_each_others_tokens(
    tmp_path: Path,
) -> None:
    """`serve FILE.py:contract --http --workers 2 --store sqlite:///...`: receipts in that file;
    confirm tokens and cursors issued by one worker are accepted by the other."""
    store = tmp_path / "store.sqlite"
    port = free_port()
    env = {
        **os.environ,
        "BOOKMARKS_DB": str(tmp_path / "bookmarks.sqlite"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("DRIVABLE_SECRET", None)
    command = [
        *CLI,
        "serve",
        "examples/bookmarks_drivable.py:contract",
        "--http",
        "--workers",
        "2",
        "--port",
        str(port),
        "--store",
        f"sqlite:///{store}",
        "--insecure",  # loopback, no verifier: the test calls the mutating tools anonymously
    ]
    log = tmp_path / "serve.log"
    with log.open("w") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", port, process, log)
    try:
        _wait_listening(port, process, log)
        assert f"bookmarks at http://127.0.0.1:{port}/mcp (2 workers" in log.read_text()
        target = Target(url=server.url)
        workers = listening_workers(process.pid, BOUND)

        async def call(tool: str, arguments: dict[str, object]) -> tuple[dict[str, Any], int]:
            """The result, and the worker that answered (the one holding the open connection)."""
            # A fresh connection per call, so that calls spread over both workers.
            with anyio.fail_after(BOUND):
                async with connect(target, mode="auto") as client:
                    result = await client.call_tool(tool, arguments)
                    (worker,) = serving(workers, port)
            assert not result.is_error, envelope_of(result)
            assert isinstance(result.structured_content, dict)
            return result.structured_content, worker

        created: list[str] = []
        replays: list[tuple[int, int]] = []
        for i in range(BOOKMARKS):
            args = {"url": f"https://example.org/{i}", "title": f"page {i}"}
            first, by = await call("create_bookmark", {**args, "idempotency_key": f"key-{i:08d}"})
            # every other replay is answered by the worker that did not create it
            with paused(by) if i % 2 else contextlib.nullcontext():
                again, by_again = await call(
                    "create_bookmark", {**args, "idempotency_key": f"key-{i:08d}"}
                )
            assert again["id"] == first["id"]  # replayed, whichever worker answered
            created.append(str(first["id"]))
            replays.append((by, by_again))
        seen: list[str] = []
        cursor = None
        while True:
            page, _ = await call(
                "list_bookmarks", {"limit": 2, **({"cursor": cursor} if cursor else {})}
            )
            seen += [str(row["id"]) for row in page["results"]]
            cursor = page.get("next_cursor")
            if not cursor:
                break
        assert sorted(seen) == sorted(created)
        tokens: list[tuple[int, int]] = []
        for i, bookmark_id in enumerate(created):
            preview, issuer = await call(
                "delete_bookmark", {"bookmark_id": bookmark_id, "dry_run": True}
            )
            # every other token is checked by the worker that did not issue it
            with paused(issuer) if i % 2 else contextlib.nullcontext():
                done, checker = await call(
                    "delete_bookmark",
                    {
                        "bookmark_id": bookmark_id,
                        "dry_run": False,
                        "confirm_token": preview["next_call"]["arguments"]["confirm_token"],
                    },
                )
            assert done["deleted"] is True
            tokens.append((issuer, checker))
        # Both workers answered, and every paused pair crossed from one worker to the other.
        assert {w for pair in tokens + replays for w in pair} == set(workers)
        assert all(a != b for a, b in tokens[1::2]), tokens
        assert all(a != b for a, b in replays[1::2]), replays
    finally:
        stop_http(server)
    with sqlite3.connect(store) as db:
        receipts = db.execute("SELECT count(*) FROM drivable_receipts").fetchone()[0]
        spent = db.execute("SELECT count(*) FROM drivable_token_uses").fetchone()[0]
    # one receipt per keyed create and one per confirmed delete (its token keys it, decision 0056)
    assert receipts == 2 * BOOKMARKS and spent == BOOKMARKS
    assert not (tmp_path / "cache" / "drivable").exists()  # nothing went to the default store


def test_a_restarted_worker_is_said_naming_the_setting() -> None:
    import logging

    from drivable.serve.notices import WorkerNotices, log_config

    log_config(45)
    notices = WorkerNotices()
    died = logging.LogRecord(
        "uvicorn.error", logging.INFO, "", 0, "Child process [%d] died", (4242,), None
    )
    assert notices.filter(died) and died.levelno == logging.WARNING
    said = died.getMessage()
    assert "worker 4242" in said and "45 s" in said and "DRIVABLE_WORKER_TIMEOUT" in said
    quiet = logging.LogRecord(
        "uvicorn.error", logging.INFO, "", 0, "Started server process", (), None
    )
    assert not notices.filter(quiet)
