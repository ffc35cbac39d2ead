"""`drivable snapshot` and `drivable diff` as a user runs them: real processes, real exit codes."""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from drivable.surface import snapshot
from drivable.surface.diff import diff, to_json
from tests.cli import CLI
from tests.surface.surface_cases import collected_from_spec, specs
from tests.surface.surface_helpers import server_cmd


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def write(tmp: Path, name: str, spec: dict[str, Any]) -> str:
    path = tmp / name
    path.write_text(snapshot.dumps(snapshot.canonical(collected_from_spec(spec))), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    v1, v2 = specs()
    return write(tmp_path, "old.json", v1), write(tmp_path, "new.json", v2)


def test_json_is_the_pinned_shape_and_breaking_exits_1(files: tuple[str, str]) -> None:
    proc = cli("diff", *files, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["changes"]
    for change in data["changes"]:
        assert list(change) == ["class", "subject", "path", "summary"]
        assert change["class"] in ("breaking", "routing", "additive", "cosmetic")
        assert change["subject"] == "server" or change["subject"].split(":", 1)[0] in (
            "tool",
            "resource",
            "prompt",
        )
    old, new = (snapshot.load(f) for f in files)
    assert data == to_json(diff(old, new))
    classes = [c["class"] for c in data["changes"]]
    rank = ["breaking", "routing", "additive", "cosmetic"]
    assert classes == sorted(classes, key=rank.index)  # deterministic order, worst first


def test_same_output_every_run(files: tuple[str, str]) -> None:
    runs = {cli("diff", *files, "-f", "json").stdout for _ in range(2)}
    assert len(runs) == 1


def test_text_and_markdown(files: tuple[str, str]) -> None:
    text = cli("diff", *files).stdout
    assert "Breaking:" in text and "tool:gone  tool removed" in text
    assert text.splitlines()[0].startswith("old cases@1.0.0+")
    md = cli("diff", *files, "-f", "md").stdout
    assert md.startswith("### MCP surface diff: breaks agents")
    assert "| `tool:gone` | tool removed | `tools.gone` |" in md


def test_no_change_exits_0(files: tuple[str, str]) -> None:
    proc = cli("diff", files[0], files[0])
    assert proc.returncode == 0
    assert "no change an agent can see" in proc.stdout


def test_strict_fails_on_routing_only(tmp_path: Path) -> None:
    v1, _ = specs()
    v2 = copy.deepcopy(v1)
    v2["tools"][0]["description"] = "Something else entirely."
    old, new = write(tmp_path, "a.json", v1), write(tmp_path, "b.json", v2)
    assert cli("diff", old, new).returncode == 0
    assert cli("diff", old, new, "--strict").returncode == 1


def test_unreadable_side_exits_2(tmp_path: Path, files: tuple[str, str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli("diff", str(bad), files[1]).returncode == 2
    assert cli("diff", files[0], f"{sys.executable} -c 'raise SystemExit(3)'").returncode == 2
    assert cli("diff", files[0], files[1], "-f", "yaml").returncode == 2


def test_offline_dumps_are_accepted(tmp_path: Path, files: tuple[str, str]) -> None:
    """A bare tools/list result diffs against a snapshot file."""
    v1, _ = specs()
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": v1["tools"]}))
    proc = cli("diff", str(tools), files[0], "-f", "json")
    # only what a tools/list cannot hold differs: no tool-level change at all
    subjects = {c["subject"] for c in json.loads(proc.stdout)["changes"]}
    assert not any(s.startswith("tool:") for s in subjects)


def test_server_env_is_passed_explicitly_and_said() -> None:
    """The SDK passes a small safe environment: a variable meant for the server must be named."""
    cmd = shlex.join(server_cmd("refunds_server.py"))
    silently_v1 = cli("diff", cmd, cmd, env={"REFUNDS_VERSION": "2"})
    assert silently_v1.returncode == 0  # the variable never reached the server
    assert "server env passed: none" in silently_v1.stderr
    v2 = cli("diff", cmd, cmd, "--new-env", "REFUNDS_VERSION=2", "-f", "json")
    assert v2.returncode == 1
    assert "new: stdio" in v2.stderr and "server env passed: REFUNDS_VERSION" in v2.stderr


def test_snapshot_to_stdout_and_url_errors(tmp_path: Path) -> None:
    proc = cli("snapshot", "--", *server_cmd("notes_server.py"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["fingerprint"]["value"].startswith("notes@1.0.0+")
    assert [t["name"] for t in data["tools"]] == [
        "add_note",
        "delete_note",
        "read_file",
        "search_notes",
    ]
    assert cli("snapshot").returncode == 2  # neither a command nor a URL
    assert cli("snapshot", "--url", "http://127.0.0.1:9/mcp").returncode == 2


def test_a_list_the_server_fails_is_unreadable_not_empty(tmp_path: Path) -> None:
    spec = tmp_path / "broken.json"
    spec.write_text(json.dumps({"name": "broken", "tools": [], "fail_tools": True}))
    proc = cli("snapshot", "--", *server_cmd("spec_server.py", str(spec)))
    assert proc.returncode == 2
    assert "tools: tools/list failed" in proc.stderr
