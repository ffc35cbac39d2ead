"""The API reference, generated from docstrings (docs/api.md is this output; a test keeps them in step).

    python -m drivable.apiref > docs/api.md

Every name a user imports gets one section: where it is defined, its signature as the source
writes it, the first paragraph of its docstring, and its members where they matter (a model's
fields, an enum's values, a class's public methods). The `drivable` namespace is grouped by the
module that owns each name, as `drivable._OWNERS` groups it. Signatures come from the source
(`ast`), not from the objects, so the page reads the same on every Python the project supports.
A constant or a type alias is documented by the string literal after its assignment, the
attribute-docstring convention the source already uses.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

# The entry points besides the flat namespace: the module, and the names of it a user imports
# (None: its `__all__`). drivable.kinds exports its machinery too; an author uses these to write a kind.
ENTRY_POINTS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("drivable.serve", None),
    ("drivable.serve.http", ("run_http",)),
    ("drivable.testing", None),
    ("drivable.kinds", ("kind", "read", "Reading", "Options", "Intent", "validate", "Validated")),
)

Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign | ast.AnnAssign


@dataclass(frozen=True)
class Entry:
    """One documented name: what a user imports it as, and where and how its source declares it."""

    name: str
    module: str  # the module that defines it
    node: Definition
    doc: str | None


@cache
def _tree(module: str) -> tuple[ast.Module, str]:
    path = inspect.getsourcefile(importlib.import_module(module))
    if path is None:
        raise LookupError(f"{module} has no source file")
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return ast.parse(source), source


def _statements(body: list[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.stmt | None]]:
    """Each statement with the one after it, through `if` blocks (`if TYPE_CHECKING:` imports)."""
    for index, statement in enumerate(body):
        yield statement, body[index + 1] if index + 1 < len(body) else None
        if isinstance(statement, ast.If):
            yield from _statements(statement.body)
            yield from _statements(statement.orelse)


def _assigned(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        return [t.id for t in statement.targets if isinstance(t, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


def _attribute_doc(following: ast.stmt | None) -> str | None:
    if (
        isinstance(following, ast.Expr)
        and isinstance(following.value, ast.Constant)
        and isinstance(following.value.value, str)
    ):
        return inspect.cleandoc(following.value.value)
    return None


def find(module: str, name: str) -> Entry:
    """Where `module` defines `name`, following `from ... import name` to the defining module."""
    tree, _ = _tree(module)
    for statement, following in _statements(tree.body):
        if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name == name:
                return Entry(name, module, statement, ast.get_docstring(statement))
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and name in _assigned(statement):
            return Entry(name, module, statement, _attribute_doc(following))
    for statement, _ in _statements(tree.body):
        if isinstance(statement, ast.ImportFrom) and statement.module:
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    origin = importlib.util.resolve_name(
                        "." * statement.level + statement.module, module.rpartition(".")[0]
                    )
                    return find(origin, alias.name)
    # a lazy export (`__getattr__` with a table of homes): the object knows its module
    home = getattr(getattr(importlib.import_module(module), name), "__module__", None)
    if isinstance(home, str) and home != module and home.startswith("drivable"):
        return find(home, name)
    raise LookupError(f"{module}.{name} has no definition in the source")


def first_paragraph(doc: str | None) -> str:
    lines: list[str] = []
    for line in (doc or "").strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return "\n".join(lines)


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool = False) -> str:
    args = node.args
    if method and (args.posonlyargs or args.args):  # `self` / `cls` is not the caller's to pass
        args = ast.arguments(
            posonlyargs=args.posonlyargs[1:],
            args=args.args[1:] if not args.posonlyargs else args.args,
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=args.kw_defaults,
            kwarg=args.kwarg,
            defaults=args.defaults,
        )
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    decorators = "".join(f"@{ast.unparse(d)}\n" for d in node.decorator_list)
    return f"{decorators}{keyword} {node.name}({ast.unparse(args)}){returns}"


def signature(entry: Entry) -> str:
    node = entry.node
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        decorators = "".join(f"@{ast.unparse(d)}\n" for d in node.decorator_list)
        head = f"{decorators}class {node.name}" + (f"({', '.join(bases)})" if bases else "")
        init = next((m for m in _methods(node) if m.name == "__init__"), None)
        return head + (f"\n    {_function(init, method=True)}" if init else "")
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return _function(node)
    return ast.unparse(node)


def _methods(node: ast.ClassDef) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            yield statement


def _own_members(node: ast.ClassDef, seen: set[str]) -> Iterator[str]:
    for statement, following in _statements(node.body):
        names = [n for n in _assigned(statement) if not n.startswith("_") and n not in seen]
        if names and names != ["model_config"]:
            seen.update(names)
            doc = first_paragraph(_attribute_doc(following)).replace("\n", " ")
            yield f"- `{ast.unparse(statement)}`" + (f": {doc}" if doc else "")
    for method in _methods(node):
        overload = any(ast.unparse(d).endswith("overload") for d in method.decorator_list)
        if method.name.startswith("_") or method.name in seen or overload:
            continue
        seen.add(method.name)
        doc = first_paragraph(ast.get_docstring(method)).replace("\n", " ")
        shown = _function(method, method=True).replace("\n", " ")
        yield f"- `{shown}`" + (f": {doc}" if doc else "")


def members(entry: Entry) -> list[str]:
    """A class's fields and values (with their attribute docstrings) and its public methods, its
    own first, then those of each drivable base it inherits (`Contract` declares tools through
    `Declaration`'s decorators)."""
    if not isinstance(entry.node, ast.ClassDef):
        return []
    cls = getattr(importlib.import_module(entry.module), entry.name)
    seen: set[str] = set()
    out: list[str] = []
    for base in inspect.getmro(cls):
        foreign = not base.__module__.startswith("drivable") or base.__name__.startswith("_")
        if base is not cls and foreign:
            continue
        node = entry.node if base is cls else find(base.__module__, base.__name__).node
        if isinstance(node, ast.ClassDef):
            shown = list(_own_members(node, seen))
            if shown and base is not cls:
                shown = ["", f"Inherited from `{base.__name__}`:", "", *shown]
            out += shown
    return out


def _section(entry: Entry, level: str, group: str) -> list[str]:
    lines = [f"{level} `{entry.name}`", ""]
    if entry.module != group:
        lines += [f"Defined in `{entry.module}`.", ""]
    lines += ["```python", signature(entry), "```", ""]
    paragraph = first_paragraph(entry.doc)
    if paragraph:
        lines += [paragraph, ""]
    shown = members(entry)
    if shown:
        lines += ["Members:", "", *shown, ""]
    return lines


def _module_line(module: str) -> str:
    doc = importlib.import_module(module).__doc__
    return first_paragraph(doc).replace("\n", " ")


def entries() -> list[tuple[str, list[Entry]]]:
    """Every documented name, grouped: the namespace by owner module, then each entry point."""
    import drivable

    groups: dict[str, list[Entry]] = {}
    for name, owner in drivable._OWNERS.items():
        groups.setdefault(owner, []).append(find(owner, name))
    out = list(groups.items())
    for module, names in ENTRY_POINTS:
        exported = names or tuple(importlib.import_module(module).__all__)
        out.append((module, [find(module, name) for name in exported]))
    return out


def undocumented() -> list[str]:
    """The public names whose source gives them no docstring (a test keeps this empty)."""
    return [f"{e.module}.{e.name}" for _, group in entries() for e in group if not e.doc]


def markdown() -> str:
    import drivable

    lines = [
        "# API reference",
        "",
        "Generated from the docstrings and signatures of the source by "
        "`python -m drivable.apiref > docs/api.md`; do not edit by hand (a test fails when this "
        "page is stale). docs/runtime.md is the guide; this page is every name a user imports.",
        "",
        "## `from drivable import ...`",
        "",
        first_paragraph(drivable.__doc__),
        "",
    ]
    namespace = len(set(drivable._OWNERS.values()))
    for index, (module, group) in enumerate(entries()):
        # the namespace's groups are subsections of its section; each entry point is a section
        level = "###" if index < namespace else "##"
        title = f"From `{module}`" if index < namespace else f"`{module}`"
        lines += [f"{level} {title}", "", _module_line(module), ""]
        for entry in group:
            lines += _section(entry, level + "#", module)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
