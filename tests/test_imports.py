"""Arrows one way: no import cycle among the modules of src/drivable.

What counts as an arrow A -> B: a statement in A that imports B and runs, at import time or when a
function of A is called. A function-local import runs too: deferring an import moves the cycle from
import time to call time, it does not take the arrow away. Imports under `if TYPE_CHECKING:` never
run and do not count (their `else:` does).

`from P import n` is an arrow to P.n when P.n is a module and to P (its __init__) otherwise.
The parent packages of an imported module are not arrows: Python runs a package's __init__ before
any of its modules, however the import is spelled, so counting it would make every __init__ that
re-exports its own modules a cycle with them, and would tell spellings apart that run the same
code (`from drivable.kinds import absence` and `import drivable.kinds.absence`). Imports by name
at run time (`importlib.import_module`) are not seen.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "drivable"

Arrows = dict[str, dict[str, list[int]]]


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = ["drivable", *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def _statements_that_run(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for branch in child.orelse:
                yield branch
                yield from _statements_that_run(branch)
            continue
        yield child
        yield from _statements_that_run(child)


def imported(
    tree: ast.Module, here: str, is_package: bool, modules: set[str]
) -> Iterator[tuple[str, int]]:
    """(module, line) for every import in `tree` that runs, resolved to the module it needs."""
    for node in _statements_that_run(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: None if is_package else -1]
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield (submodule if submodule in modules else source), node.lineno


def arrows(package: Path = PACKAGE) -> Arrows:
    files = {module_name(path, package): path for path in sorted(package.rglob("*.py"))}
    graph: Arrows = {name: {} for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target, line in imported(tree, name, path.name == "__init__.py", set(files)):
            if target in files and target != name:
                graph[name].setdefault(target, []).append(line)
    return graph


def cycles(graph: Arrows) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(graph: Arrows, component: list[str]) -> str:
    inside = set(component)
    return "\n".join(
        f"  {source} -> {target} (line {', '.join(map(str, sorted(set(lines))))})"
        for source in component
        for target, lines in sorted(graph[source].items())
        if target in inside
    )


def test_no_import_cycle_in_src_drivable() -> None:
    graph = arrows()
    assert len(graph) > 200, "the walk found too few modules: PACKAGE is wrong"
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n\n".join(describe(graph, c) for c in found)


def _graph_of(sources: dict[str, str]) -> Arrows:
    modules = set(sources)
    graph: Arrows = {name: {} for name in sources}
    for name, source in sources.items():
        is_package = name in {m.rsplit(".", 1)[0] for m in modules if "." in m}
        for target, line in imported(ast.parse(source), name, is_package, modules):
            if target in modules and target != name:
                graph[name].setdefault(target, []).append(line)
    return graph


def test_the_walk_sees_what_runs_and_nothing_else() -> None:
    deferred = {
        "p": "",
        "p.a": "def f():\n    from p.b import x",
        "p.b": "from p import a",
    }
    assert cycles(_graph_of(deferred)) == [["p.a", "p.b"]]
    typing_only = {
        "p": "",
        "p.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import x",
        "p.b": "from p.a import y",
    }
    assert cycles(_graph_of(typing_only)) == []
    relative = {"p": "from .a import f", "p.a": "from . import b", "p.b": ""}
    assert _graph_of(relative)["p.a"] == {"p.b": [1]}
    facade = {"p": "from p.a import A", "p.a": "from p.b import B", "p.b": "from p import A"}
    assert cycles(_graph_of(facade)) == [["p", "p.a", "p.b"]]
    submodule = {"p": "from p.a import A", "p.a": "from p import b", "p.b": ""}
    assert cycles(_graph_of(submodule)) == []
