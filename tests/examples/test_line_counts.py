"""The examples' sizes, by the rule docs/runtime.md states: a server on drivable takes fewer lines
than the same server on FastMCP, and the docs say by how many.

The rule: after `ruff format` (line length 100), count the lines that hold code. Blank lines,
comment lines and the module docstring are not counted; every other line is, tool docstrings
included (they are the tools' descriptions).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PAIRS = [
    ("bookings_drivable.py", "bookings_fastmcp.py"),
    ("bookmarks_drivable.py", "bookmarks_fastmcp.py"),
]
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def lines_of_code(source: str) -> int:
    """The lines holding a token of code, the module docstring left out."""
    lines: set[int] = set()
    first = True
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _NOT_CODE:
            continue
        if first and token.type == tokenize.STRING:
            first = False
            continue  # the module docstring says what the file is, not what the server does
        first = False
        lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines)


def test_the_rule_counts_code_lines_only() -> None:
    source = '"""Module\n\ndocstring."""\n\n# a comment\nimport os\n\n\ndef f(\n    x: int,\n) -> str:\n    """Doc\n    string."""\n    return "ab"  # trailing\n'
    assert lines_of_code(source) == 7  # import, def (3 lines), docstring (2), return


def test_the_examples_are_formatted_as_counted() -> None:
    """Counted after ruff format, so no side saves lines by making them longer."""
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--diff", str(EXAMPLES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(("ours", "theirs"), PAIRS)
def test_the_server_on_drivable_takes_fewer_lines(ours: str, theirs: str) -> None:
    drivable = lines_of_code((EXAMPLES / ours).read_text())
    fastmcp = lines_of_code((EXAMPLES / theirs).read_text())
    assert drivable < fastmcp, (ours, drivable, theirs, fastmcp)


@pytest.mark.parametrize("name", [name for pair in PAIRS for name in pair])
def test_the_docs_state_each_count(name: str) -> None:
    """docs/runtime.md's table says each example's count as the rule computes it."""
    docs = (ROOT / "docs" / "runtime.md").read_text()
    said = re.search(rf"^\| `examples/{re.escape(name)}` \| (\d+) \|", docs, re.M)
    assert said is not None, f"docs/runtime.md has no row for examples/{name}"
    assert int(said.group(1)) == lines_of_code((EXAMPLES / name).read_text())
