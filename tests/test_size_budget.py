"""The size budget: no module of src/drivable over `module_lines`, no class over `class_lines`.

The limits are read from pyproject.toml (`[tool.drivable.budget]`), so the number is written once.
There is no exemption, by comment or by list: a module over the budget is split along its seams.
A module's size is its line count (`wc -l`); a class's is from its first decorator to its last line.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "drivable"


def budget() -> tuple[int, int]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        limits = tomllib.load(handle)["tool"]["drivable"]["budget"]
    return int(limits["module_lines"]), int(limits["class_lines"])


def classes(tree: ast.AST) -> Iterator[tuple[str, int, int]]:
    """(qualified name, first line, line count) of every class in `tree`, nested ones included."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                name = f"{prefix}{child.name}"
                yield name, first, (child.end_lineno or child.lineno) - first + 1
                name += "."
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}.<locals>."
            yield from walk(child, name)

    yield from walk(tree, "")


def over_budget(package: Path, module_lines: int, class_lines: int) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(package.parent).as_posix()
        lines = len(source.splitlines())
        if lines > module_lines:
            found.append(f"{where}: module of {lines} lines (budget {module_lines})")
        for name, first, size in classes(ast.parse(source)):
            if size > class_lines:
                found.append(
                    f"{where}:{first}: class {name} of {size} lines (budget {class_lines})"
                )
    return found


def test_no_module_or_class_over_the_budget() -> None:
    module_lines, class_lines = budget()
    assert len(list(PACKAGE.rglob("*.py"))) > 200, (
        "the walk found too few modules: PACKAGE is wrong"
    )
    found = over_budget(PACKAGE, module_lines, class_lines)
    assert not found, "over the size budget (split along the seams):\n" + "\n".join(found)


def test_the_walk_measures_modules_and_classes_nested_or_decorated(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "small.py").write_text("x = 1\n" * 4)
    (package / "sub" / "big.py").write_text("x = 1\n" * 6)
    (package / "classes.py").write_text(
        "@decorator\n"
        "class Wide:\n"
        "    a = 1\n"
        "    b = 2\n"
        "class Narrow:\n"
        "    a = 1\n"
        "def f():\n"
        "    class Inner:\n"
        "        a = 1\n"
        "        b = 2\n"
        "        c = 3\n"
    )
    found = over_budget(package, module_lines=5, class_lines=3)
    assert found == [
        "pkg/classes.py: module of 11 lines (budget 5)",
        "pkg/classes.py:1: class Wide of 4 lines (budget 3)",
        "pkg/classes.py:8: class f.<locals>.Inner of 4 lines (budget 3)",
        "pkg/sub/big.py: module of 6 lines (budget 5)",
    ]
    assert over_budget(package, module_lines=11, class_lines=4) == []
