"""Local `$ref` resolution (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root), and
`allOf` folded into one node."""

from __future__ import annotations

from collections.abc import Mapping
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
        if isinstance(target, Mapping) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return None
    return target


def follow(root: Any, node: Any, seen: tuple[str, ...] = ()) -> tuple[Any, tuple[str, ...]]:
    """Follow local `$ref`s from `node` until a node without one, and say which refs were followed.

    A ref already in `seen` is not followed again: a walk that passes its `seen` down stops where a
    recursive type refers to itself. Sibling keywords win over the target's (2020-12 allows
    siblings beside `$ref`); a `true` target is the empty schema. Remote or broken refs leave the
    node as it is, and so does anything that is not an object (a boolean schema comes back as is).
    """
    current = node
    for _ in range(MAX_HOPS):
        if not isinstance(current, Mapping):
            return current, seen
        ref = current.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#") or ref in seen:
            return current, seen
        target = resolve_pointer(root, ref)
        if target is True:
            target = {}
        if not isinstance(target, Mapping):
            return current, seen
        seen = (*seen, ref)
        current = {**target, **{k: v for k, v in current.items() if k != "$ref"}}
    return current, seen


def resolve(root: Any, node: Any) -> dict[str, Any]:
    """The node behind `node`'s local `$ref`s (see `follow`); `{}` for anything not an object."""
    resolved, _ = follow(root, node)
    if isinstance(resolved, dict):
        return resolved
    return dict(resolved) if isinstance(resolved, Mapping) else {}


def merge_all_of(root: Any, node: Mapping[str, Any]) -> dict[str, Any]:
    """`node` with its `allOf` members folded in (nested `allOf`s too): `properties` and `required`
    are unioned, any other keyword keeps the first value met, the node's own before its members'."""
    out = {k: v for k, v in node.items() if k != "allOf"}
    members = node.get("allOf")
    for member in members if isinstance(members, list) else ():
        member = resolve(root, member)
        if "allOf" in member:
            member = merge_all_of(root, member)
        for key, value in member.items():
            if key == "properties" and isinstance(value, Mapping):
                out["properties"] = {**value, **(out.get("properties") or {})}
            elif key == "required" and isinstance(value, list):
                out["required"] = sorted(set(out.get("required") or []) | set(value))
            else:
                out.setdefault(key, value)
    return out
