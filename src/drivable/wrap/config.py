"""The wrapper's configuration: `[tool.drivable.wrap]` in pyproject.toml, or a TOML file.

    [tool.drivable.wrap]
    name = "memory"                 # the wrapped server's name (default: the upstream's)
    timeout_s = 30                  # seconds an upstream call may take

    [tool.drivable.wrap.tools.delete_entities]
    effects = "delete"              # read_only | create | update | delete, or a table of the hints
    description = "Delete entities by name ..."
    rename = "remove_entities"
    hidden_arguments = ["debug"]
    kinds = { since = "date" }

    [tool.drivable.wrap.tools.get-env]
    hidden = true

A file given with `--config` holds either that table under `[tool.drivable.wrap]` or the same
keys at its top. Unknown keys are refused, naming the ones there are.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_TOOL_KEYS = frozenset({"effects", "description", "rename", "hidden", "hidden_arguments", "kinds"})
_TOP_KEYS = frozenset({"name", "timeout_s", "tools"})
_HINTS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}
PRESETS: dict[str, dict[str, bool]] = {
    "read_only": {"read_only": True, "destructive": False, "idempotent": True},
    "create": {"read_only": False, "destructive": False, "idempotent": False},
    "update": {"read_only": False, "destructive": False, "idempotent": True},
    "delete": {"read_only": False, "destructive": True, "idempotent": True},
}


class ConfigError(ValueError):
    """A configuration the wrapper cannot use; the message names the key and the fix."""


@dataclass(frozen=True)
class ToolConfig:
    """What the config says of one upstream tool (by its upstream name)."""

    effects: Mapping[str, bool] | None = None  # annotation hints, by drivable's field names
    description: str | None = None
    rename: str | None = None
    hidden: bool = False
    hidden_arguments: frozenset[str] = frozenset()
    kinds: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WrapConfig:
    name: str | None = None
    timeout_s: float = 30.0
    tools: Mapping[str, ToolConfig] = field(default_factory=dict)
    source: str | None = None  # the file it was read from

    def tool(self, name: str) -> ToolConfig:
        return self.tools.get(name, ToolConfig())


def load(path: Path | None = None, start: Path | None = None) -> WrapConfig:
    """The config from `path`, else from the nearest pyproject.toml's `[tool.drivable.wrap]`."""
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{path}: cannot read it as TOML ({error})") from None
        table = data.get("tool", {}).get("drivable", {}).get("wrap", data)
        return parse(table, str(path))
    from drivable.settings import find_pyproject

    pyproject = find_pyproject(start)
    if pyproject is None:
        return WrapConfig()
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    table = data["tool"]["drivable"].get("wrap")
    return parse(table, str(pyproject)) if table is not None else WrapConfig()


def parse(table: Any, source: str = "the config") -> WrapConfig:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: the wrap config is a table")
    _only(table, _TOP_KEYS, source)
    tools: dict[str, ToolConfig] = {}
    for name, entry in (table.get("tools") or {}).items():
        where = f"{source}: tools.{name}"
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where} is a table")
        _only(entry, _TOOL_KEYS, where)
        kinds = entry.get("kinds") or {}
        if not isinstance(kinds, Mapping) or not all(isinstance(v, str) for v in kinds.values()):
            raise ConfigError(f"{where}.kinds maps a property to a kind name")
        hidden_arguments = entry.get("hidden_arguments") or []
        if not isinstance(hidden_arguments, list):
            raise ConfigError(f"{where}.hidden_arguments is a list of property names")
        tools[name] = ToolConfig(
            effects=_effects(entry.get("effects"), where),
            description=_text(entry.get("description"), f"{where}.description"),
            rename=_text(entry.get("rename"), f"{where}.rename"),
            hidden=bool(entry.get("hidden", False)),
            hidden_arguments=frozenset(str(a) for a in hidden_arguments),
            kinds=dict(kinds),
        )
    timeout = table.get("timeout_s", 30.0)
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{source}: timeout_s is a positive number of seconds")
    return WrapConfig(_text(table.get("name"), "name"), float(timeout), tools, source)


def _effects(value: Any, where: str) -> Mapping[str, bool] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value not in PRESETS:
            raise ConfigError(f"{where}.effects is one of {', '.join(PRESETS)}, or a table")
        return PRESETS[value]
    if isinstance(value, Mapping):
        _only(value, frozenset(_HINTS), f"{where}.effects")
        if not all(isinstance(v, bool) for v in value.values()):
            raise ConfigError(f"{where}.effects: each hint is true or false")
        return dict(value)
    raise ConfigError(f"{where}.effects is one of {', '.join(PRESETS)}, or a table")


def _text(value: Any, where: str) -> str | None:
    if value is None or (isinstance(value, str) and value.strip()):
        return value.strip() if isinstance(value, str) else None
    raise ConfigError(f"{where} is a non-empty string")


def _only(table: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}; the keys are {', '.join(sorted(allowed))}"
        )
