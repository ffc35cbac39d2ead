"""Census: one module per kind, one owner per kind, and no second reader outside `kinds/`.

A new call site that parses dates, ids, countries, languages or numbers from strings fails here;
it should read through `drivable.kinds` instead. Add to the allow-list only with a reason.
Kinds a server owns (registered from its own module) have a row in SERVER_KINDS; nothing else
reads them, and every input property named after one is declared with it. Text is folded in one
module, `kinds/text_folding.py`.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import drivable.eval.corpus
import drivable.servers
from drivable.kinds import KINDS, KindModel
from drivable.kinds._pydantic import _declares_kind
from drivable.kinds._registry import _KIND_MODULES, _load_all

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "drivable"
KINDS_DIR = PACKAGE / "kinds"
NOT_KINDS = {"command", "absence", "text_folding", "writing"}

# kind -> the module outside drivable.kinds that owns it (a server's domain value).
SERVER_KINDS = {
    "case_number": "drivable.servers.caselaw.case_number",
    "file_size": "drivable.eval.corpus.documents.sizes",
}

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
    # What a hand-written reader of dates, booleans and numbers looks like (the eval's agents had
    # one of each): a four-digit-year pattern, a list of yes-words, digits kept from a string.
    "a date pattern": re.compile(r"\\d\{4\}"),
    "yes-words": re.compile(r"[\"'](?:yes|ano|ja|oui)[\"']\s*,"),
    "digits kept from text": re.compile(r"\[\^\\d"),
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
    ours = {name for name, spec in KINDS.items() if spec.owner.startswith("drivable.kinds.")}
    assert ours == set(_KIND_MODULES)
    assert len(_KIND_MODULES) == len(set(_KIND_MODULES))


def server_modules() -> list[str]:
    """Every module of every reference server and eval corpus domain, imported, so each
    registers its kinds."""
    names = [
        m.name
        for package in (drivable.servers, drivable.eval.corpus)
        for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
        if not m.name.endswith("__main__")
    ]
    for name in names:
        importlib.import_module(name)
    return names


def test_kinds_a_server_owns_have_their_census_row() -> None:
    server_modules()
    theirs = {n: s.owner for n, s in KINDS.items() if not s.owner.startswith("drivable.kinds.")}
    assert theirs == SERVER_KINDS


def test_nothing_but_its_owner_reads_a_server_kind() -> None:
    """Outside its module, a server kind is only named (its types, its constants), never read:
    no module imports its reader or a private helper, and no module folds its text itself."""
    server_modules()
    found: list[str] = []
    for owner in SERVER_KINDS.values():
        public = set(importlib.import_module(owner).__all__)
        readers = {n for n in public if n.startswith("read_")}
        for path in PACKAGE.rglob("*.py"):
            module = "drivable." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
            if module == owner:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == owner:
                    bad = [a.name for a in node.names if a.name not in public - readers]
                    found += [f"{module} imports {name} from {owner}" for name in bad]
    assert not found, (
        "read server kinds through drivable.kinds.read or a Kind field:\n" + "\n".join(found)
    )


def test_every_input_property_named_after_a_server_kind_reads_through_it() -> None:
    missing: list[str] = []
    for name in server_modules():
        for value in vars(importlib.import_module(name)).values():
            # Input models: what a tool or an import line reads (outputs are written, not read).
            if not (isinstance(value, type) and issubclass(value, KindModel)):
                continue
            if value.__module__ != name:
                continue
            for field_name, info in value.model_fields.items():
                if field_name in SERVER_KINDS and not (
                    _declares_kind(info.annotation)
                    or any(getattr(m, "name", None) == field_name for m in info.metadata)
                ):
                    missing.append(f"{name}.{value.__name__}.{field_name}")
    assert not missing, f"declare these with their kind: {missing}"


# The eval's naive twins are written the way most servers are, on purpose: they parse values
# themselves, so that naive vs drivable compares the same work done two ways.
NAIVE_TWINS = PACKAGE / "eval" / "baselines"


def outside_kinds() -> list[Path]:
    return sorted(
        p
        for p in PACKAGE.rglob("*.py")
        if KINDS_DIR not in p.parents and NAIVE_TWINS not in p.parents
    )


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
        'm = re.fullmatch(r"(\\d{4})-(\\d{2})", s)',
        'return s.lower() in ("true", "yes", "ano")',
        'digits = re.sub(r"[^\\d.]", "", s)',
    ],
)
def test_the_census_catches_a_second_reader(line: str) -> None:
    assert any(p.search(line) for p in SECOND_READERS.values())


def test_text_is_folded_in_one_module() -> None:
    """Case, width and diacritics are folded by kinds/text_folding.py alone: for every kind, for
    server kinds, and for everything else (a server's search index, its generated data)."""
    found = [
        str(p.relative_to(PACKAGE.parent))
        for p in outside_kinds() + sorted(KINDS_DIR.glob("*.py"))
        if p.stem != "text_folding" and re.search(r"\bunicodedata\b", p.read_text(encoding="utf-8"))
    ]
    assert not found, f"fold through drivable.kinds.text_folding instead: {found}"
