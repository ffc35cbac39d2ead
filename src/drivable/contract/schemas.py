"""The JSON Schema a tool declares, made from its pydantic models: generated titles dropped, a
null default listed only where another server states it, and the models nested in a model.

`drivable.contract.tool` builds a tool's input and output schemas with these and checks them;
how tools/list then abridges them is `drivable.contract.listing`'s.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel


def nested_models(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (`list[Item] | None` holds `Item`)."""
    out: list[type[BaseModel]] = []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        out.append(annotation)
    for arg in typing.get_args(annotation):
        out.extend(nested_models(arg))
    return out


def strip_titles(node: Any) -> Any:
    """Titles repeat property names and cost tokens on every tools/list ([2.compact-baseline]);
    a null default only restates that an optional property may be omitted."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default" and value is None:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {k: strip_titles(v) for k, v in value.items()}
            else:
                out[key] = strip_titles(value)
        return out
    if isinstance(node, list):
        return [strip_titles(x) for x in node]
    return node


def null_defaults_as_stated(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """A model that names the properties whose null default another server states (a wrapped
    upstream's `null_defaults`) lists that default, which `strip_titles` drops for every other
    model (docs/decisions/0060-a-null-default-as-stated.md)."""
    defs = schema.get("$defs") or {}
    seen: set[type[BaseModel]] = set()
    todo: list[tuple[type[BaseModel], Any]] = [(model, schema)]
    while todo:
        current, node = todo.pop()
        if current in seen or not isinstance(node, dict):
            continue
        seen.add(current)
        properties = node.get("properties") or {}
        for name in getattr(current, "null_defaults", ()):
            if isinstance(properties.get(name), dict):
                properties[name] = {**_admitting_null(properties[name]), "default": None}
        for info in current.model_fields.values():
            for nested in nested_models(info.annotation):
                todo.append((nested, defs.get(nested.__name__)))


def _admitting_null(node: dict[str, Any]) -> dict[str, Any]:
    """`node` accepting null too, as the server does (it reads null as no value): a host that
    checks arguments against the listed schema must not refuse the default it lists."""
    if "anyOf" in node:
        variants = node["anyOf"]
        nullable = any(v == {"type": "null"} for v in variants)
        return node if nullable else {**node, "anyOf": [*variants, {"type": "null"}]}
    out = dict(node)
    if isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    elif isinstance(out.get("type"), list) and "null" not in out["type"]:
        out["type"] = [*out["type"], "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out
