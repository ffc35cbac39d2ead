"""Settings in one place: `[tool.drivable]` in pyproject.toml, environment variables, CLI flags.

Each setting is data (`SETTINGS`: key, environment variable, doc), documented in docs/settings.md
(a test keeps the two in step). Every other environment variable is declared here too, typed
(`VARIABLES`, on the same page), and this is the one module that touches `os.environ` (a test holds
every other module to it). Precedence, lowest first: the default, `[tool.drivable]` of the nearest
pyproject.toml that has one (searched from the current directory upward), the environment
variable, the command-line flag. The store and the token secret apply to every contract a process
serves, the reference servers' and the user's alike.

The secret is never written in pyproject.toml (it is committed); name a file holding it with
`secret_file`, or set DRIVABLE_SECRET. Without either, the runtime derives one and keeps it in the
effect store, so every process that shares the store shares the secret (`shared_secret`).
"""

from __future__ import annotations

import os
import secrets as _secrets
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

if TYPE_CHECKING:
    from drivable.effects import EffectStore


class SettingsError(Exception):
    """A setting that cannot be used; the message names the setting and the fix."""


@dataclass(frozen=True)
class Setting:
    """One setting: its `[tool.drivable]` key, its environment variable, its type and doc."""

    key: str
    env: str
    kind: type
    doc: str
    flag: str | None = None


SETTINGS: Final[tuple[Setting, ...]] = (
    Setting(
        "store",
        "DRIVABLE_STORE",
        str,
        "Where receipts, confirm-token nonces and the derived secret live: `sqlite:///FILE` "
        "(relative) or `sqlite:////ABS/FILE`, or `postgresql://...` for several hosts. Default: "
        "`sqlite:///<cache_dir>/<server>-effects.sqlite`, which every process of one host shares.",
        "--store",
    ),
    Setting(
        "secret_file",
        "DRIVABLE_SECRET_FILE",
        str,
        "A file whose content signs confirm tokens and cursors. DRIVABLE_SECRET (the secret "
        "itself) wins over it. Without either, a secret is derived once and kept in the store.",
    ),
    Setting(
        "cache_dir",
        "DRIVABLE_CACHE",
        str,
        "The directory of the default store and of downloaded data. Default: "
        "`$XDG_CACHE_HOME/drivable`, else `~/.cache/drivable`.",
    ),
    Setting("host", "DRIVABLE_HOST", str, "`serve --http` bind address.", "--host"),
    Setting("port", "DRIVABLE_PORT", int, "`serve --http` port (0: any free port).", "--port"),
    Setting("workers", "DRIVABLE_WORKERS", int, "`serve --http` worker processes.", "--workers"),
    Setting(
        "max_body_bytes",
        "DRIVABLE_MAX_BODY_BYTES",
        int,
        "`serve --http` request body bound in bytes (default: the inline bound + 64 KiB).",
        "--max-body-bytes",
    ),
    Setting(
        "worker_timeout",
        "DRIVABLE_WORKER_TIMEOUT",
        int,
        "`serve --http --workers N`: seconds a worker may go without answering the supervisor's "
        "health check (while it imports the contract, say) before it is restarted.",
        "--worker-timeout",
    ),
    Setting(
        "verifier",
        "DRIVABLE_VERIFIER",
        str,
        "`serve --http`: MODULE:ATTR of a TokenVerifier, to require a bearer token.",
        "--verifier",
    ),
    Setting(
        "tasks_lease_s",
        "DRIVABLE_TASKS_LEASE_S",
        float,
        "Seconds a worker's lease on a running task lasts before another worker may take the "
        "task over (run it again or fail it, as the tool declares); renewed while it works.",
    ),
    Setting(
        "header_timeout_s",
        "DRIVABLE_HEADER_TIMEOUT_S",
        float,
        "`serve --http`: seconds from a request's first byte to the end of its headers.",
    ),
    Setting(
        "body_timeout_s",
        "DRIVABLE_BODY_TIMEOUT_S",
        float,
        "`serve --http`: seconds from the end of a request's headers to the end of its body.",
    ),
    Setting(
        "idle_timeout_s",
        "DRIVABLE_IDLE_TIMEOUT_S",
        float,
        "`serve --http`: seconds a connection may wait without a request before it is closed.",
    ),
    Setting(
        "max_connections",
        "DRIVABLE_MAX_CONNECTIONS",
        int,
        "`serve --http`: connections one worker holds at once; more are answered 503.",
    ),
)
SECRET_ENV: Final = "DRIVABLE_SECRET"
LEGACY_STORE_ENV: Final = "DRIVABLE_EFFECTS_DB"  # a bare SQLite path; DRIVABLE_STORE wins
_BY_KEY = {s.key: s for s in SETTINGS}
# Tables under [tool.drivable] that are other readers' own, not runtime settings: the auditor's
# (`[tool.drivable.audit]`, audit/config.py), the size budget's (tests/test_size_budget.py) and
# the wrapper's (`[tool.drivable.wrap]`, wrap/config.py).
SECTIONS: Final = frozenset({"audit", "budget", "wrap"})

T = TypeVar("T")


@dataclass(frozen=True)
class Variable(Generic[T]):
    """An environment variable read beside the settings, with its type (docs/settings.md says who
    reads it and what it means; a test keeps the page and `VARIABLES` in step)."""

    name: str
    parse: Callable[[str], T]

    def get(self) -> T | None:
        """The value, or None when the variable is unset or empty."""
        raw = os.environ.get(self.name)
        if not raw:
            return None
        try:
            return self.parse(raw)
        except ValueError:
            raise SettingsError(f"{self.name} cannot be {raw!r} (docs/settings.md)") from None

    def require(self) -> T:
        value = self.get()
        if value is None:
            raise SettingsError(f"{self.name} is not set (docs/settings.md)")
        return value

    def is_set(self) -> bool:
        """Present in the environment, even empty."""
        return self.name in os.environ

    def hand_down(self, value: str, *, overwrite: bool = True) -> None:
        """Set the variable in this process, so that the processes it starts read `value`."""
        if overwrite or self.name not in os.environ:
            os.environ[self.name] = value


def _flag(raw: str) -> bool:
    return raw == "1"


def _at_least_one(raw: str) -> int:
    return max(1, int(raw))


SECRET: Final = Variable(SECRET_ENV, str.encode)
XDG_CACHE_HOME: Final = Variable("XDG_CACHE_HOME", str)
DEBUG: Final = Variable("DRIVABLE_DEBUG", _flag)
BILLING_STORE: Final = Variable("DRIVABLE_BILLING_STORE", str)
CASELAW_DB: Final = Variable("DRIVABLE_CASELAW_DB", str)
BOOKINGS_STORE: Final = Variable("DRIVABLE_BOOKINGS_STORE", str)
DOCUMENTS_STORE: Final = Variable("DRIVABLE_DOCUMENTS_STORE", str)
TICKETS_STORE: Final = Variable("DRIVABLE_TICKETS_STORE", str)
RELIABILITY_STORE: Final = Variable("DRIVABLE_RELIABILITY_STORE", str)
OPENAI_MODEL: Final = Variable("DRIVABLE_OPENAI_MODEL", str)
ANTHROPIC_MODEL: Final = Variable("DRIVABLE_ANTHROPIC_MODEL", str)
LOCAL_THREADS: Final = Variable("DRIVABLE_LOCAL_THREADS", _at_least_one)
TOKENS: Final = Variable("DRIVABLE_TOKENS", str.strip)
PG_DSN: Final = Variable("DRIVABLE_PG_DSN", str)
PG: Final = Variable("DRIVABLE_PG", str)
OTEL_TRACER_PROVIDER: Final = Variable("OTEL_PYTHON_TRACER_PROVIDER", str)
PYTHONPATH: Final = Variable("PYTHONPATH", str)
# What `serve`/`wrap --http --workers N` hand their worker processes (internal: not for users).
HTTP_CONTRACT: Final = Variable("DRIVABLE_HTTP_CONTRACT", str)
HTTP_HOST: Final = Variable("DRIVABLE_HTTP_HOST", str)
HTTP_VERIFIER: Final = Variable("DRIVABLE_HTTP_VERIFIER", str)
HTTP_INSECURE: Final = Variable("DRIVABLE_HTTP_INSECURE", _flag)
HTTP_MAX_BODY: Final = Variable("DRIVABLE_HTTP_MAX_BODY", int)
WRAP_LISTING: Final = Variable("DRIVABLE_WRAP_LISTING", str)
WRAP_TARGET: Final = Variable("DRIVABLE_WRAP_TARGET", str)
WRAP_CONFIG: Final = Variable("DRIVABLE_WRAP_CONFIG", str)
# Every variable above, and those read elsewhere but documented on the page: the command line's
# --bearer-token (typer reads it), a hosted agent's default key variable, the test suite's.
VARIABLES: Final[tuple[Variable[Any], ...]] = (
    SECRET,
    Variable(LEGACY_STORE_ENV, str),
    XDG_CACHE_HOME,
    DEBUG,
    BILLING_STORE,
    CASELAW_DB,
    BOOKINGS_STORE,
    DOCUMENTS_STORE,
    TICKETS_STORE,
    RELIABILITY_STORE,
    OPENAI_MODEL,
    ANTHROPIC_MODEL,
    LOCAL_THREADS,
    TOKENS,
    PG_DSN,
    PG,
    OTEL_TRACER_PROVIDER,
    PYTHONPATH,
    HTTP_CONTRACT,
    HTTP_HOST,
    HTTP_VERIFIER,
    HTTP_INSECURE,
    HTTP_MAX_BODY,
    WRAP_LISTING,
    WRAP_TARGET,
    WRAP_CONFIG,
    Variable("DRIVABLE_BEARER_TOKEN", str),
    Variable("OPENAI_API_KEY", str),
    Variable("ANTHROPIC_API_KEY", str),
    Variable("DRIVABLE_SLOW", _flag),
)


def from_environment(key: str) -> str | None:
    """The raw environment value of setting `key` (None when unset or empty), for a server's own
    default that looks at the variable before its own (`DRIVABLE_STORE`, then billing's)."""
    return os.environ.get(_BY_KEY[key].env) or None


def hand_down(key: str, value: object) -> None:
    """Set setting `key`'s variable in this process, so that the workers it starts read `value`."""
    os.environ[_BY_KEY[key].env] = str(value)


def named(name: str) -> str | None:
    """A variable whose name the user chose (a hosted agent's key, `--pass-env NAME`), or None."""
    return os.environ.get(name)


def passed_through(names: Iterable[str]) -> dict[str, str]:
    """The named variables that are set (even empty), to hand to a child process."""
    return {name: os.environ[name] for name in names if name in os.environ}


def environment() -> dict[str, str]:
    """A copy of this process's environment: a CI runner's own variables (`INPUT_*`, `GITHUB_*`)."""
    return dict(os.environ)


def withdraw(name: str) -> None:
    """Remove variable `name`, so that no code this process imports afterwards can read it."""
    os.environ.pop(name, None)


def child_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child process starts with: this process's, `extra` on top."""
    return {**os.environ, **(extra or {})}


def user_cache() -> Path:
    """`$XDG_CACHE_HOME`, else `~/.cache`: where the per-user caches live."""
    return Path(XDG_CACHE_HOME.get() or Path.home() / ".cache")


@dataclass(frozen=True)
class Settings:
    """The resolved settings of this process. `origin` says where each value came from."""

    store: str | None = None
    secret_file: str | None = None
    cache_dir: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    max_body_bytes: int | None = None
    worker_timeout: int = 60
    verifier: str | None = None
    tasks_lease_s: float = 10.0
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    idle_timeout_s: float = 5.0
    max_connections: int = 512
    secret: bytes | None = field(default=None, repr=False)
    origin: Mapping[str, str] = field(default_factory=dict)

    def cache_path(self) -> Path:
        if self.cache_dir:
            return Path(self.cache_dir).expanduser()
        return user_cache() / "drivable"

    def store_url(self, server: str) -> str:
        """The store URL for `server`: the configured one, else a SQLite file in the cache."""
        if self.store:
            return self.store
        return f"sqlite:///{self.cache_path() / f'{server}-effects.sqlite'}"

    def with_flags(self, **flags: Any) -> Settings:
        """These settings with the command line's flags (None: not given) on top."""
        given = {k: v for k, v in flags.items() if v is not None}
        unknown = [k for k in given if k not in _BY_KEY]
        if unknown:
            raise ValueError(f"not settings: {unknown}")
        origin = {**self.origin, **{k: f"flag {_BY_KEY[k].flag or k}" for k in given}}
        return replace(self, **given, origin=origin)


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest pyproject.toml with a `[tool.drivable]` table, from `start` upward."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as error:
                raise SettingsError(f"{candidate} is not valid TOML: {error}") from None
            if isinstance(data.get("tool"), dict) and "drivable" in data["tool"]:
                return candidate
    return None


def _typed(setting: Setting, value: Any, where: str) -> Any:
    if setting.kind is float:
        try:
            number = float(value) if not isinstance(value, bool) else None
        except (TypeError, ValueError):
            number = None
        if number is None or not number > 0 or number == float("inf"):
            raise SettingsError(
                f"{setting.key} ({where}) must be a positive number of seconds, not {value!r}"
            )
        return number
    if setting.kind is int:
        if isinstance(value, bool):
            raise SettingsError(f"{setting.key} ({where}) must be an integer, not {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise SettingsError(
                f"{setting.key} ({where}) must be an integer, not {value!r}"
            ) from None
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{setting.key} ({where}) must be a non-empty string")
    return value


def load(start: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, then `[tool.drivable]`, then the environment (flags come on top: `with_flags`)."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    pyproject = find_pyproject(start)
    if pyproject is not None:
        table = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["drivable"]
        if not isinstance(table, dict):
            raise SettingsError(f"[tool.drivable] in {pyproject} must be a table")
        if "secret" in table:
            raise SettingsError(
                f"[tool.drivable] in {pyproject} holds a secret: remove `secret` and name a file "
                "with `secret_file`, or set DRIVABLE_SECRET"
            )
        table = {key: value for key, value in table.items() if key not in SECTIONS}
        unknown = sorted(set(table) - set(_BY_KEY))
        if unknown:
            raise SettingsError(
                f"[tool.drivable] in {pyproject}: unknown setting(s) {', '.join(unknown)}; "
                f"known: {', '.join(_BY_KEY)} (see docs/settings.md)"
            )
        for key, value in table.items():
            values[key] = _typed(_BY_KEY[key], value, str(pyproject))
            origin[key] = str(pyproject)
        # Paths in pyproject are relative to the file, as in every other tool's table.
        for key in ("secret_file", "cache_dir"):
            if key in values and not Path(values[key]).expanduser().is_absolute():
                values[key] = str(pyproject.parent / values[key])
        if values.get("store", "").startswith("sqlite:///") and not values["store"].startswith(
            "sqlite:////"
        ):
            values["store"] = f"sqlite:///{pyproject.parent / values['store'][len('sqlite:///') :]}"
    legacy = env.get(LEGACY_STORE_ENV)
    if legacy and not env.get("DRIVABLE_STORE"):
        values["store"], origin["store"] = legacy, LEGACY_STORE_ENV
    for setting in SETTINGS:
        raw = env.get(setting.env)
        if raw:
            values[setting.key] = _typed(setting, raw, setting.env)
            origin[setting.key] = setting.env
    secret = env.get(SECRET_ENV, "").encode() or None
    if secret is None and values.get("secret_file"):
        path = Path(values["secret_file"]).expanduser()
        try:
            secret = path.read_bytes().strip() or None
        except OSError as error:
            raise SettingsError(
                f"secret_file ({origin.get('secret_file')}): cannot read {path}: {error.strerror}"
            ) from None
        if secret is None:
            raise SettingsError(f"secret_file ({origin.get('secret_file')}): {path} is empty")
    return Settings(**values, secret=secret, origin=origin)


_ENVIRONMENT: Final = (
    *(s.env for s in SETTINGS),
    SECRET_ENV,
    LEGACY_STORE_ENV,
    "XDG_CACHE_HOME",
)
_current: tuple[tuple[str | None, ...], Settings] | None = None


def current() -> Settings:
    """This process's settings, loaded again only when the directory or the environment changed."""
    global _current
    key = (os.getcwd(), *(os.environ.get(name) for name in _ENVIRONMENT))
    if _current is None or _current[0] != key:
        _current = (key, load())
    return _current[1]


def reset() -> None:
    """Forget the loaded settings and this process's secret (tests)."""
    global _current, _process_secret
    _current = None
    _process_secret = None


SECRETS_TABLE: Final = "drivable_secrets"


async def shared_secret(store: EffectStore, name: str) -> bytes:
    """The secret named `name` kept in `store`, created once by whichever process comes first.

    Every process sharing the store reads the same value (the insert is first-writer-wins), so
    several workers sign and accept each other's tokens without a configured secret.
    """
    candidate = _secrets.token_hex(32)
    for attempt in range(2):
        try:
            async with store.transaction() as tx:
                await tx.execute(
                    f"CREATE TABLE IF NOT EXISTS {SECRETS_TABLE} "
                    "(name TEXT PRIMARY KEY, value TEXT NOT NULL)"
                )
                await tx.execute(
                    f"INSERT INTO {SECRETS_TABLE} (name, value) VALUES (?, ?) "
                    "ON CONFLICT (name) DO NOTHING",
                    (name, candidate),
                )
                row = (
                    await tx.execute(f"SELECT value FROM {SECRETS_TABLE} WHERE name = ?", (name,))
                ).first()
        except Exception:
            # Two first processes creating the table at once on PostgreSQL: one loses; again.
            if attempt:
                raise
            continue
        assert row is not None
        return bytes.fromhex(str(row[0]))
    raise AssertionError("unreachable")


_process_secret: bytes | None = None


def token_secret() -> bytes:
    """The secret cursors are signed with when a `Pager` is given none: the configured one, else
    the one the server derived from its store at startup (`install_secret`), else one for this
    process alone (a single process: tests, stdio)."""
    global _process_secret
    configured = current().secret
    if configured:
        return configured
    if _process_secret is None:
        _process_secret = _secrets.token_bytes(32)
    return _process_secret


def install_secret(secret: bytes) -> None:
    """Make `secret` what `token_secret()` returns in this process (the store-derived one), unless
    it already signed something here: a secret never changes under a running process."""
    global _process_secret
    if _process_secret is None:
        _process_secret = secret
