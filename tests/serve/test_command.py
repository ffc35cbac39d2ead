"""`drivable serve MODULE:ATTR` over stdio (HTTP is what the other tests start it with)."""

from __future__ import annotations

import os
import sys

import anyio
import pytest

from drivable.serve.http import load_contract
from drivable.target import Target, connect
from tests.serve.conftest import HERE

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
