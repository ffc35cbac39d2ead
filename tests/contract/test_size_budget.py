"""The size budget of the runtime's package: no module over 500 lines, no class over 300, and no
exemption by comment. A module that outgrows it has more than one job; split it by job."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "drivable" / "contract"
MODULE_LINES = 500
CLASS_LINES = 300


def test_no_module_of_the_contract_package_is_over_500_lines() -> None:
    over = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert over == {}, f"split these by job: {over}"


def test_no_class_of_the_contract_package_is_over_300_lines() -> None:
    over = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > CLASS_LINES:
                    over[f"{path.relative_to(PACKAGE)}:{node.name}"] = lines
    assert over == {}, f"split these by job: {over}"
