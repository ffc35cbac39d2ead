"""SARIF GitHub code scanning accepts, from every server the tests run, pointing at the source.

Each server is audited for real (probes on) from the repository root. A Python server's results on a
tool, prompt or resource point at its `def` and a result on the server at the line creating it;
every other result at the surface snapshot, on its item's line. Fingerprints do not change from one
run to the next, even on a server that lists its tools in a new order each time.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from drivable.audit.report.source import declarations
from tests.audit.audit_thirdparty import python_server
from tests.audit.github_sarif import assert_github_accepts, fingerprints
from tests.audit.test_audit_reports import ROOT, _drivable

PY = sys.executable
SERVE = [PY, "-m", "drivable", "serve"]
SERVERS = "tests/audit/servers"
BUNDLED: dict[str, list[str]] = {
    "caselaw": [*SERVE, "caselaw"],
    "billing": [*SERVE, "billing"],
    "example-contract": [*SERVE, "tests.contract.example_server:contract"],
    "bookmarks-drivable": [*SERVE, "examples/bookmarks_drivable.py:contract"],
    "defects": [PY, f"{SERVERS}/defects.py"],
    "clean": [PY, f"{SERVERS}/clean.py"],
    "blindspots": [PY, f"{SERVERS}/blindspots.py"],
    "recorder": [PY, f"{SERVERS}/recorder.py", "{tmp}/calls.txt"],
}
# Servers on a framework nobody here wrote: FastMCP from PyPI, and a whole third-party server.
THIRDPARTY: dict[str, tuple[str, list[str]]] = {
    "fastmcp-notes": ("fastmcp", ["bin/python", f"{SERVERS}/fastmcp_notes.py"]),
    "bookmarks-fastmcp": ("fastmcp", ["bin/python", "examples/bookmarks_fastmcp.py"]),
    "mcp-server-time": ("time", ["bin/mcp-server-time"]),
}
AT_SOURCE = {"caselaw", "billing", "example-contract", "bookmarks-drivable"} | {
    "fastmcp-notes",
    "bookmarks-fastmcp",
}
# caselaw has no finding left at any severity since its listing is compact (decision 0033)
WITHOUT_FINDINGS = {"caselaw"}
DEF = re.compile(r"^\s*(async\s+)?def\s+(\w+)\s*\(")
ASSIGNED = re.compile(r"^\s*\w+\s*(:[^=]+)?=\s*[\w.]+\(")


def _command(name: str, tmp: Path) -> list[str]:
    if name in BUNDLED:
        return [arg.format(tmp=tmp) for arg in BUNDLED[name]]
    package, (inside, *args) = THIRDPARTY[name]
    return [str(python_server(package) / inside), *args]


def _audit(name: str, tmp: Path) -> tuple[dict[str, Any], list[str], Path]:
    out, snapshot = tmp / "audit.sarif", tmp / "audit.surface.json"
    command = _command(name, tmp)
    run = _drivable(
        ROOT,
        *("audit", "--timeout", "3", "--format", "sarif", "--output", str(out)),
        *("--snapshot", str(snapshot), "--env", f"BOOKMARKS_DB={tmp / 'b.sqlite'}"),
        *("--", *command),
    )
    assert run.code in (0, 1), run.stderr[-2000:]
    return json.loads(out.read_text()), command, snapshot


def _declared_here(lines: list[str], line: int, subject: str) -> bool:
    """The `def` at `line` declares `subject`: by its name, or by a string in its decorators."""
    m = DEF.match(lines[line - 1])
    if m is None:
        return False
    name = subject.split(":", 1)[1]
    decorators = "\n".join(lines[max(0, line - 12) : line - 1]).rsplit("\n\n", 1)[-1]
    return m.group(2) == name or f'"{name}"' in decorators


SERVER_NAMES = [
    *BUNDLED,
    *(pytest.param(name, marks=pytest.mark.thirdparty) for name in THIRDPARTY),
]


@pytest.mark.parametrize("name", SERVER_NAMES)
def test_every_server_gives_sarif_github_accepts_at_the_source(name: str, tmp_path: Path) -> None:
    sarif, command, snapshot = _audit(name, tmp_path)
    assert_github_accepts(sarif, ROOT, outside={snapshot.name})
    results = sarif["runs"][0]["results"]
    if name in WITHOUT_FINDINGS:  # GitHub accepts its empty run; the others place results
        assert results == [], results
        return
    assert results, "a server without findings proves nothing here"
    surface = snapshot.read_text().splitlines()
    declared = declarations(command)
    for result in results:
        subject = result["properties"]["subject"]
        physical = result["locations"][0]["physicalLocation"]
        uri, line = physical["artifactLocation"]["uri"], physical["region"]["startLine"]
        if uri == snapshot.name:
            assert name not in AT_SOURCE or subject not in declared, (subject, uri)
            item = subject.split(":", 1)[-1]
            assert subject == "server" or f'"{item}"' in surface[line - 1], (subject, line)
            continue
        assert name in AT_SOURCE and uri.endswith(".py"), (subject, uri)
        source = (ROOT / uri).read_text().splitlines()
        if subject == "server":
            assert ASSIGNED.match(source[line - 1]), (uri, line, source[line - 1])
        else:
            assert _declared_here(source, line, subject), (subject, uri, line)
    if name in AT_SOURCE:  # every tool and prompt such a server has is declared in its source
        placed = {r["properties"]["subject"] for r in results if r["locations"]}
        on_items = {s for s in placed if s.split(":", 1)[0] in ("tool", "prompt", "server")}
        assert on_items <= set(declared), on_items - set(declared)


def test_fingerprints_do_not_change_from_run_to_run(tmp_path: Path) -> None:
    """defects.py lists its tools in a new order each time: lines move, alerts stay."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, _, _ = _audit("defects", tmp_path / "a")
    second, _, _ = _audit("defects", tmp_path / "b")
    assert fingerprints(first) == fingerprints(second)
    assert len(fingerprints(first)) > 20


def test_a_runner_before_the_target_is_not_read_as_the_server() -> None:
    """`python -m drivable serve X`: the tools are X's, not those of drivable's own modules that
    declare tools of the same names (the eval's naive twins)."""
    for target in ("tests.contract.example_server:contract", "tests/contract/example_server.py"):
        found = declarations([*SERVE, target])
        assert {path for path, _ in found.values()} == {
            ROOT / "tests" / "contract" / "example_server.py"
        }, target
    found = declarations([*SERVE, "caselaw"])  # a reference server's name
    assert {"tool:search_decisions", "tool:summarize_decisions", "server"} <= set(found)
    assert all(p.parent == ROOT / "src/drivable/servers/caselaw" for p, _ in found.values())


def test_a_server_reads_what_it_imports_and_not_its_neighbours() -> None:
    """billing declares its resources in a module it imports; defects.py shares a folder with
    fastmcp_notes.py, which declares tools of the same names, and imports nothing of it."""
    billing = declarations([*SERVE, "billing"])
    assert billing["resource:billing://summary"][0].name == "resources.py"
    assert billing["prompt:refund_an_invoice"][0].name == "resources.py"
    assert declarations([PY, f"{SERVERS}/defects.py"]) == {}


def test_a_package_run_with_dash_m_is_read_without_importing_it() -> None:
    """caselaw names its tools with `name=`; its functions are named otherwise."""
    found = declarations([sys.executable, "-m", "drivable.servers.caselaw"])
    assert {"tool:search_decisions", "tool:get_decision", "tool:list_courts"} <= set(found)
    for path, line in found.values():
        assert path.is_relative_to(ROOT / "src" / "drivable" / "servers" / "caselaw")
        text = path.read_text().splitlines()[line - 1]
        assert DEF.match(text) or ASSIGNED.match(text)
