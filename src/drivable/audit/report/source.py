"""Where a Python server declares what it serves: tools, prompts, resources and the server itself.

Read from the source with `ast`, never imported. The files are the server's own: a `.py` on the
command line (`path.py`, `path.py:contract`), a `MODULE:ATTR` import path (`drivable serve
pkg.server:contract`, `uvicorn app:app`), or a reference server's name after `serve`; each file
first, then the modules under its folder that it imports. Only when the command names none of those are they
the package or module a `-m` names, since a `-m` before a target is the runner (`python -m
drivable serve ...`), not the server. Found on the paths without running any of the code.

A tool, prompt or resource is the `def` under its `@<x>.tool` / `.prompt` / `.resource` /
`.resource_template` decorator, named by the decorator's `name=` (a resource by its URI) or the
function's name; the server is the assignment that creates the `<x>` the first tool decorator
names (`contract = Contract(...)`, `mcp = FastMCP(...)`). First declaration wins.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

MAX_FILES = 200
IMPORT_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
NAMED = {"tool": "tool", "prompt": "prompt"}
BY_URI = {"resource": "uri", "resource_template": "uri_template"}


def _module_files(module: str) -> list[Path]:
    parts = module.split(".")
    for entry in (Path.cwd(), *(Path(p) for p in sys.path if p)):
        base = entry.joinpath(*parts)
        if (base / "__init__.py").is_file():
            return sorted(base.rglob("*.py"))[:MAX_FILES]
        if base.with_suffix(".py").is_file():
            return [base.with_suffix(".py")]
    return []


def _package(file: Path) -> tuple[Path, list[str]]:
    """The folder the file's top package sits in, and the dotted parts of the file's package."""
    folder, package = file.parent, list[str]()
    while (folder / "__init__.py").is_file():
        package.insert(0, folder.name)
        folder = folder.parent
    return folder, package


def _own_imports(file: Path, tree: ast.Module) -> list[Path]:
    """The modules under the file's folder that it imports (where a tool may be declared too)."""
    root, package = _package(file)
    names: list[list[str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = [*base, *(node.module.split(".") if node.module else [])]
            names += [module, *([*module, alias.name] for alias in node.names)]
    out: list[Path] = []
    for dotted in filter(None, names):
        named = root.joinpath(*dotted)
        for path in (named.with_suffix(".py"), named / "__init__.py"):
            if path.is_file() and path.parent.is_relative_to(file.parent) and path != file:
                out.append(path)
    return out


def _with_imports(file: Path, *, package: bool = False) -> list[Path]:
    """The file, then what it imports from under its folder, transitively. A module imported by
    its dotted name (`package`) runs its package's `__init__.py` first, and what that imports:
    a package that declares its tools across modules (`caselaw/__init__.py` imports `analysis`)."""
    seen = [file]
    init = file.parent / "__init__.py"
    if package and file != init and init.is_file():
        seen.append(init)
    for path in seen:
        if len(seen) >= MAX_FILES:
            break
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        seen += [p for p in dict.fromkeys(_own_imports(path, tree)) if p not in seen]
    return seen


def _reference_server(name: str) -> str | None:
    from drivable.servers import REFERENCE_SERVERS  # a table of names, not the runtime

    return REFERENCE_SERVERS.get(name.strip().casefold())


def source_files(command: list[str]) -> list[Path]:
    named: list[Path] = []
    runner: list[Path] = []
    for i, arg in enumerate(command):
        before = command[i - 1] if i > 0 else ""
        if before == "-m":
            runner += _module_files(arg)
            continue
        spelled = _reference_server(arg) if before == "serve" else None
        head = arg.split(":", 1)[0] if ".py:" in arg else arg
        if head.endswith(".py") and Path(head).is_file():
            named += _with_imports(Path(head))
        elif spelled or IMPORT_PATH.match(arg):
            found = _module_files((spelled or arg).split(":", 1)[0])
            named += _with_imports(found[0], package=True) if len(found) == 1 else found
    return list(dict.fromkeys(named or runner))[:MAX_FILES]


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _declared(decorator: ast.expr, function: str) -> tuple[str, str | None] | None:
    """(subject, receiver name) of a declaring decorator, None for any other decorator."""
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    if isinstance(target, ast.Attribute):
        verb = target.attr
        receiver = target.value.id if isinstance(target.value, ast.Name) else None
    elif isinstance(target, ast.Name) and target.id == "tool":
        verb, receiver = "tool", None
    else:
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg} if call else {}
    first = _string(call.args[0]) if call and call.args else None
    if verb in NAMED:
        return f"{NAMED[verb]}:{_string(keywords.get('name')) or first or function}", receiver
    if verb in BY_URI:
        uri = _string(keywords.get(BY_URI[verb])) or first
        return (f"resource:{uri}", receiver) if uri else None
    return None


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _in_scope(node: ast.AST) -> list[ast.AST]:
    """The nodes of `node`'s own scope, in source order: nested functions and classes are listed,
    their bodies are not."""
    out: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        out.append(child)
        if not isinstance(child, SCOPES):
            out += _in_scope(child)
    return out


def _assigned(nodes: list[ast.AST]) -> dict[str, int]:
    """name -> line of its first assignment from a call (`mcp = FastMCP(...)`) in one scope."""
    found: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Call):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                found.setdefault(target.id, node.lineno)
    return found


def _walk(
    scope: ast.AST, outer: list[dict[str, int]], path: Path, found: dict[str, tuple[Path, int]]
) -> None:
    nodes = _in_scope(scope)
    scopes = [_assigned(nodes), *outer]  # a name is looked up in its own scope first
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                declared = _declared(decorator, node.name)
                if declared is None:
                    continue
                subject, receiver = declared
                found.setdefault(subject, (path, node.lineno))
                lines = [s[receiver] for s in scopes if receiver in s]
                if subject.startswith("tool:") and lines:
                    found.setdefault("server", (path, lines[0]))
        if isinstance(node, SCOPES):
            _walk(node, scopes, path, found)


def declarations(command: list[str]) -> dict[str, tuple[Path, int]]:
    """subject ("tool:<name>", "prompt:<name>", "resource:<uri>", "server") -> (file, line)."""
    found: dict[str, tuple[Path, int]] = {}
    for path in source_files(command):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            continue
        _walk(tree, [], path.resolve(), found)
    return found
