"""`[tool.drivable.audit]` in pyproject.toml: which rules to report, a baseline, the failing level.

```toml
[tool.drivable.audit]
select = ["3", "6", "dv.substrate-leak"]   # rule ids or prefixes (a section, `dv`); default all
ignore = ["3.naming"]
fail-on = "major"
baseline = "audit-baseline.json"
```

The command line wins over the file. A prefix matches a whole id or the ids below it
(`3` matches `3.naming`, `3.closed` matches nothing).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivable.audit.model import SEVERITIES, Finding


class ConfigError(ValueError):
    """The pyproject section is not one the audit can use (exit 2, one line)."""


@dataclass
class AuditConfig:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    fail_on: str | None = None
    baseline: str | None = None
    source: str | None = None

    def wants(self, rule: str) -> bool:
        if self.select and not any(_matches(rule, p) for p in self.select):
            return False
        return not any(_matches(rule, p) for p in self.ignore)

    def filter(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if self.wants(f.rule)]


def _matches(rule: str, prefix: str) -> bool:
    prefix = prefix.strip()
    return rule == prefix or rule.startswith(prefix + ".")


def _strings(section: dict[str, Any], key: str, where: str) -> list[str]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of rule ids or prefixes")
    return list(value)


def load_config(start: Path | None = None) -> AuditConfig:
    """The section from the nearest pyproject.toml at or above `start` (default: cwd)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return _parse(candidate)
    return AuditConfig()


def _parse(path: Path) -> AuditConfig:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    section = data.get("tool", {}).get("drivable", {}).get("audit")
    if section is None:
        return AuditConfig()
    where = f"{path} [tool.drivable.audit]"
    if not isinstance(section, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(section) - {"select", "ignore", "fail-on", "baseline"})
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (select, ignore, fail-on, baseline)"
        )
    fail_on = section.get("fail-on")
    if fail_on is not None and fail_on not in SEVERITIES:
        raise ConfigError(f"{where}: `fail-on` takes one of {', '.join(SEVERITIES)}")
    baseline = section.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise ConfigError(f"{where}: `baseline` must be a path")
    if isinstance(baseline, str):
        baseline = str((path.parent / baseline).resolve())
    return AuditConfig(
        select=_strings(section, "select", where),
        ignore=_strings(section, "ignore", where),
        fail_on=fail_on,
        baseline=baseline,
        source=str(path),
    )
