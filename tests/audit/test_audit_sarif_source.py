"""SARIF at the source: a Python server's tool results point at the tool's `def` in the checkout;
every other result keeps the surface file, and every result has a physical location."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from drivable.audit.report.source import tool_definitions
from tests.audit.test_audit_reports import ROOT, _code_scanning_ready, _drivable

FASTMCP_PYTHON = ROOT / "var" / "thirdparty" / "py-fastmcp" / "bin" / "python"
TARGETS = {
    "bookmarks_drivable": [
        sys.executable,
        "-c",
        "from drivable.cli import main; main()",
        "serve",
        "examples/bookmarks_drivable.py:contract",
    ],
    "bookmarks_fastmcp": [str(FASTMCP_PYTHON), "examples/bookmarks_fastmcp.py"],
}
DEF = re.compile(r"^\s*(async\s+)?def\s+(\w+)\s*\(")


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_tool_results_point_at_the_tools_def(name: str, tmp_path: Path) -> None:
    if name == "bookmarks_fastmcp" and not FASTMCP_PYTHON.exists():
        pytest.skip("FastMCP is installed by the thirdparty tests (var/thirdparty/py-fastmcp)")
    out = tmp_path / "audit.sarif"
    run = _drivable(
        ROOT,
        "audit",
        "--no-probes",
        "--format",
        "sarif",
        "--output",
        str(out),
        "--env",
        f"BOOKMARKS_DB={tmp_path / 'b.sqlite'}",
        "--",
        *TARGETS[name],
    )
    assert run.code in (0, 1), run.stderr[-2000:]
    sarif = json.loads(out.read_text())
    _code_scanning_ready(sarif)
    results = sarif["runs"][0]["results"]
    on_tools = [r for r in results if r["properties"]["subject"].startswith("tool:")]
    assert on_tools, "no result on a tool to place"
    for result in results:
        physical = result["locations"][0]["physicalLocation"]
        uri, line = physical["artifactLocation"]["uri"], physical["region"]["startLine"]
        subject = result["properties"]["subject"]
        if not subject.startswith("tool:"):
            assert uri.endswith(".surface.json"), (subject, uri)
            continue
        assert uri.endswith(".py") and (ROOT / uri).is_file(), (subject, uri)
        m = DEF.match((ROOT / uri).read_text().splitlines()[line - 1])
        assert m, (subject, uri, line)
        assert m.group(2) == subject.split(":", 1)[1]


def test_a_package_run_with_dash_m_is_read_without_importing_it() -> None:
    """caselaw names its tools with `name=`; its functions are named otherwise."""
    found = tool_definitions([sys.executable, "-m", "drivable.servers.caselaw"])
    assert {"search_decisions", "get_decision", "list_courts"} <= set(found)
    for path, line in found.values():
        assert path.is_relative_to(ROOT / "src" / "drivable" / "servers" / "caselaw")
        assert DEF.match(path.read_text().splitlines()[line - 1])
