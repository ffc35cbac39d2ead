"""Settings: `[tool.drivable]`, the environment over it, flags over both; the documented registry."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable import settings
from drivable.effects import open_store

ROOT = Path(__file__).resolve().parents[2]


def write(directory: Path, table: str) -> Path:
    path = directory / "pyproject.toml"
    path.write_text(f"[project]\nname = 'x'\n\n[tool.drivable]\n{table}\n", encoding="utf-8")
    return path


def test_the_nearest_pyproject_with_a_drivable_table_is_found_from_below(tmp_path: Path) -> None:
    write(tmp_path, 'store = "sqlite:///state/effects.sqlite"\nport = 9100')
    below = tmp_path / "src" / "pkg"
    below.mkdir(parents=True)
    # A pyproject.toml without the table in between does not stop the search.
    (tmp_path / "src" / "pyproject.toml").write_text("[project]\nname = 'y'\n", encoding="utf-8")
    loaded = settings.load(below, environ={})
    assert loaded.port == 9100
    # A relative SQLite path is relative to the pyproject.toml that names it.
    assert loaded.store == f"sqlite:///{tmp_path / 'state' / 'effects.sqlite'}"
    assert loaded.origin["port"] == str(tmp_path / "pyproject.toml")


def test_environment_overrides_pyproject_and_flags_override_both(tmp_path: Path) -> None:
    write(tmp_path, "workers = 2\nhost = '127.0.0.1'")
    loaded = settings.load(tmp_path, environ={"DRIVABLE_WORKERS": "3"})
    assert loaded.workers == 3 and loaded.origin["workers"] == "DRIVABLE_WORKERS"
    flagged = loaded.with_flags(workers=4, port=None)
    assert flagged.workers == 4 and flagged.origin["workers"] == "flag --workers"
    assert flagged.port == 8000  # an absent flag changes nothing


def test_a_secret_in_pyproject_is_refused_naming_the_fix(tmp_path: Path) -> None:
    write(tmp_path, 'secret = "hunter2"')
    with pytest.raises(settings.SettingsError, match="secret_file"):
        settings.load(tmp_path, environ={})


def test_an_unknown_key_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    write(tmp_path, "prot = 8000")
    with pytest.raises(settings.SettingsError, match=r"unknown setting\(s\) prot; known: store"):
        settings.load(tmp_path, environ={})


@pytest.mark.parametrize("section", sorted(settings.SECTIONS))
def test_the_tables_of_other_readers_are_no_unknown_settings(tmp_path: Path, section: str) -> None:
    write(tmp_path, f"port = 8123\n[tool.drivable.{section}]\nsome = 1")
    assert settings.load(tmp_path, environ={}).port == 8123


def test_a_bad_integer_names_the_setting_and_where_it_came_from(tmp_path: Path) -> None:
    with pytest.raises(settings.SettingsError, match=r"port \(DRIVABLE_PORT\) must be an integer"):
        settings.load(tmp_path, environ={"DRIVABLE_PORT": "eighty"})


def test_secret_file_and_the_environment_secret(tmp_path: Path) -> None:
    (tmp_path / "token.key").write_text("from-a-file\n", encoding="utf-8")
    write(tmp_path, 'secret_file = "token.key"')
    assert settings.load(tmp_path, environ={}).secret == b"from-a-file"
    assert settings.load(tmp_path, environ={"DRIVABLE_SECRET": "env"}).secret == b"env"
    (tmp_path / "token.key").write_text("", encoding="utf-8")
    with pytest.raises(settings.SettingsError, match="is empty"):
        settings.load(tmp_path, environ={})


def test_the_default_store_lives_in_the_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    loaded = settings.load(tmp_path, environ={})
    assert (
        loaded.store_url("notes")
        == f"sqlite:///{tmp_path / 'xdg' / 'drivable' / 'notes-effects.sqlite'}"
    )
    cached = settings.load(tmp_path, environ={"DRIVABLE_CACHE": str(tmp_path / "c")})
    assert cached.store_url("notes") == f"sqlite:///{tmp_path / 'c' / 'notes-effects.sqlite'}"
    legacy = settings.load(tmp_path, environ={"DRIVABLE_EFFECTS_DB": str(tmp_path / "old.db")})
    assert legacy.store_url("notes") == str(tmp_path / "old.db")


@given(st.integers(min_value=0, max_value=65535))
def test_integers_read_from_the_environment_as_written(port: int) -> None:
    assert settings.load(Path("/"), environ={"DRIVABLE_PORT": str(port)}).port == port


@given(st.floats(min_value=0.001, max_value=1e6))
def test_the_task_lease_reads_any_positive_number_of_seconds(seconds: float) -> None:
    loaded = settings.load(Path("/"), environ={"DRIVABLE_TASKS_LEASE_S": repr(seconds)})
    assert loaded.tasks_lease_s == seconds


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf"])
def test_a_lease_that_is_not_a_positive_number_names_the_setting(raw: str) -> None:
    with pytest.raises(settings.SettingsError, match=r"tasks_lease_s \(DRIVABLE_TASKS_LEASE_S\)"):
        settings.load(Path("/"), environ={"DRIVABLE_TASKS_LEASE_S": raw})


async def test_the_derived_secret_is_one_for_every_store_on_the_same_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    first, second = open_store(url), open_store(url)
    try:
        a = await settings.shared_secret(first, "tokens")
        b = await settings.shared_secret(second, "tokens")
        other = await settings.shared_secret(second, "cursors")
    finally:
        await first.close()
        await second.close()
    assert a == b and len(a) == 32
    assert other != a


def test_every_setting_and_variable_is_documented() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    for setting in settings.SETTINGS:
        assert re.search(rf"`{setting.key}`", page), setting.key
        assert setting.env in page, setting.env
    for name in (settings.SECRET_ENV, settings.LEGACY_STORE_ENV, "XDG_CACHE_HOME"):
        assert name in page, name
    # Every DRIVABLE_* variable the package reads is on the page.
    read = set()
    for path in (ROOT / "src" / "drivable").rglob("*.py"):
        read |= set(re.findall(r"\"(DRIVABLE_[A-Z_]+)\"", path.read_text(encoding="utf-8")))
    missing = sorted(name for name in read if name not in page)
    assert not missing, f"undocumented environment variables: {missing}"


def test_every_other_variable_is_declared_and_documented_both_ways() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    section = page[page.index("## Other environment variables") :]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    internal = section[section.index("\n\n`DRIVABLE_HTTP_") : section.index("are internal")]
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", " ".join([*first_cells, internal])))
    declared = {v.name for v in settings.VARIABLES}
    assert len(declared) == len(settings.VARIABLES), "a variable is declared twice"
    assert not declared & {s.env for s in settings.SETTINGS}, "a setting's variable is a setting"
    assert declared == documented, (
        f"declared, not on the page: {sorted(declared - documented)}; "
        f"on the page, not declared: {sorted(documented - declared)}"
    )


# What reads or writes the process environment: os.environ, os.environb, os.getenv, os.putenv...
ENVIRONMENT = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})


def environment_uses(tree: ast.AST) -> list[int]:
    """The lines that touch the environment through the os module, however it was imported."""
    aliases = {"os"}
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name in ("os", "posix")}
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "posix"):
            lines += [node.lineno for a in node.names if a.name in ENVIRONMENT]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ENVIRONMENT
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_no_module_but_settings_touches_the_environment() -> None:
    package = ROOT / "src" / "drivable"
    found = {
        path.relative_to(package).as_posix(): uses
        for path in sorted(package.rglob("*.py"))
        if path.name != "settings.py" or path.parent != package
        for uses in [environment_uses(ast.parse(path.read_text(encoding="utf-8")))]
        if uses
    }
    assert not found, f"read the environment through drivable.settings: {found}"


def test_the_census_sees_every_spelling() -> None:
    spellings = [
        "import os\nos.environ.get('X')",
        "import os as o\no.getenv('X')",
        "from os import environ",
        "from os import getenv as g",
        "import os\nos.environ['X'] = '1'",
        "import os\nx = {**os.environ}",
    ]
    for source in spellings:
        assert environment_uses(ast.parse(source)), source
    assert not environment_uses(ast.parse("import os\nos.getcwd()\nenviron = {}"))
