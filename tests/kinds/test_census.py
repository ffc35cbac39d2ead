"""Census: one module per kind, one owner per kind, and no second reader outside `kinds/`.

A new call site that parses dates, ids, countries, languages or numbers from strings fails here;
it should read through `drivable.kinds` instead. Add to the allow-list only with a reason.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from drivable.kinds import KINDS
from drivable.kinds._registry import _KIND_MODULES, _load_all

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "drivable"
KINDS_DIR = PACKAGE / "kinds"
NOT_KINDS = {"command", "absence"}

# Calls that parse a kind's value from text. Outside `kinds/` each one is a second reader.
SECOND_READERS: dict[str, re.Pattern[str]] = {
    "date.fromisoformat / datetime.fromisoformat": re.compile(r"\bfromisoformat\s*\("),
    "strptime": re.compile(r"\bstrptime\s*\("),
    "uuid.UUID(...)": re.compile(r"\bUUID\s*\("),
    "dateutil": re.compile(r"\bdateutil\b"),
    "pycountry": re.compile(r"\bpycountry\b"),
    "langcodes": re.compile(r"\blangcodes\b"),
    "babel parsing": re.compile(r"\bbabel\b|\bparse_(?:decimal|number|date|time|locale)\s*\("),
    "locale module parsing": re.compile(r"\blocale\.(?:atof|atoi|delocalize|setlocale)\s*\("),
    "Decimal from text": re.compile(r"\bDecimal\s*\(\s*(?:str\(|[a-z_]+\.strip\(|text\b|value\b)"),
}
# (path relative to src/drivable, readers name) -> why this call site may parse the kind itself.
ALLOWED: dict[tuple[str, str], str] = {}


def kind_modules() -> list[str]:
    return sorted(
        p.stem
        for p in KINDS_DIR.glob("*.py")
        if not p.stem.startswith("_") and p.stem not in NOT_KINDS
    )


def test_every_kind_module_registers_exactly_its_one_kind() -> None:
    _load_all()
    for module in kind_modules():
        importlib.import_module(f"drivable.kinds.{module}")
        owned = [
            name
            for name, spec in KINDS.items()
            if spec.reader.__module__ == f"drivable.kinds.{module}"
        ]
        assert owned == [module], (
            f"drivable.kinds.{module} registers {owned}, expected [{module!r}]"
        )


def test_the_registry_lists_every_kind_module() -> None:
    _load_all()
    assert set(kind_modules()) == set(_KIND_MODULES)
    assert set(KINDS) == set(_KIND_MODULES)
    assert len(_KIND_MODULES) == len(set(_KIND_MODULES))


def outside_kinds() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if KINDS_DIR not in p.parents)


def test_no_module_outside_kinds_reads_a_kind_itself() -> None:
    found: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in outside_kinds():
        relative = path.relative_to(PACKAGE).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for reader, pattern in SECOND_READERS.items():
                if pattern.search(line):
                    if (relative, reader) in ALLOWED:
                        used.add((relative, reader))
                        continue
                    found.append(f"{relative}:{number}: {reader}: {line.strip()}")
    assert not found, "parse these through drivable.kinds instead:\n" + "\n".join(found)
    assert used == set(ALLOWED), f"stale allow-list entries: {set(ALLOWED) - used}"


@pytest.mark.parametrize(
    "line",
    [
        "day = date.fromisoformat(text)",
        "when = datetime.strptime(text, '%d.%m.%Y')",
        "ident = uuid.UUID(raw)",
        "from dateutil import parser",
        "import pycountry",
        "tag = langcodes.standardize_tag(x)",
        "amount = parse_decimal(text, locale='cs')",
        "x = locale.atof(text)",
        "n = Decimal(value)",
    ],
)
def test_the_census_catches_a_second_reader(line: str) -> None:
    assert any(p.search(line) for p in SECOND_READERS.values())
