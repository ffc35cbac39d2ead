"""Where a Python server declares its tools: the `def` under each `@<x>.tool` decorator.

Read from the source with `ast`, never imported: the files are the `.py` on the server's command
line (`path.py`, `path.py:contract`) and the package or module a `-m` names, found on the paths
without running any of its code. A tool is named by the decorator's `name=` or the function's name.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_FILES = 200


def _module_files(module: str) -> list[Path]:
    parts = module.split(".")
    for entry in (Path.cwd(), *(Path(p) for p in sys.path if p)):
        base = entry.joinpath(*parts)
        if (base / "__init__.py").is_file():
            return sorted(base.rglob("*.py"))[:MAX_FILES]
        if base.with_suffix(".py").is_file():
            return [base.with_suffix(".py")]
    return []


def source_files(command: list[str]) -> list[Path]:
    files: list[Path] = []
    for i, arg in enumerate(command):
        if i > 0 and command[i - 1] == "-m":
            files += _module_files(arg)
            continue
        head = arg.split(":", 1)[0] if ".py:" in arg else arg
        if head.endswith(".py") and Path(head).is_file():
            files.append(Path(head))
    return files


def _tool_name(decorator: ast.expr, function: str) -> str | None:
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    named = (isinstance(target, ast.Attribute) and target.attr == "tool") or (
        isinstance(target, ast.Name) and target.id == "tool"
    )
    if not named:
        return None
    for kw in call.keywords if call else []:
        if (
            kw.arg == "name"
            and isinstance(kw.value, ast.Constant)
            and isinstance(kw.value.value, str)
        ):
            return kw.value.value
    return function


def tool_definitions(command: list[str]) -> dict[str, tuple[Path, int]]:
    """tool name -> (file, line of its `def`), first declaration wins."""
    found: dict[str, tuple[Path, int]] = {}
    for path in source_files(command):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    name = _tool_name(decorator, node.name)
                    if name is not None:
                        found.setdefault(name, (path.resolve(), node.lineno))
    return found
