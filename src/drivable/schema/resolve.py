"""Local `$ref` resolution (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root)."""

from __future__ import annotations

from typing import Any

MAX_HOPS = 32  # a chain of refs longer than this is a cycle: stop and keep the last node


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def resolve_pointer(root: Any, pointer: str) -> Any:
    """The value at a JSON pointer (`#/a/b` or `/a/b`), or None when it does not exist."""
    path = pointer[1:] if pointer.startswith("#") else pointer
    target: Any = root
    if path in ("", "/"):
        return root
    for raw in path.lstrip("/").split("/"):
        token = _unescape(raw)
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return None
    return target


def resolve(root: dict[str, Any], node: Any) -> dict[str, Any]:
    """Follow local `$ref`s from `node` until a node without one; sibling keywords win over the
    target's (2020-12 allows siblings beside `$ref`). Remote or broken refs leave the node as is."""
    if not isinstance(node, dict):
        return {}
    current = node
    seen: set[str] = set()
    for _ in range(MAX_HOPS):
        ref = current.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#") or ref in seen:
            return current
        seen.add(ref)
        target = resolve_pointer(root, ref)
        if not isinstance(target, dict):
            return current
        siblings = {k: v for k, v in current.items() if k != "$ref"}
        current = {**target, **siblings}
    return current
