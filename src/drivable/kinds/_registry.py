"""The registry of kinds, the one `read()` entry point, and the table binding property names to kinds."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from drivable.kinds import absence
from drivable.kinds._reading import Reading

Intent = Literal["read", "write"]
"""What a value is read for: a placeholder ("n/a") is no value on a "read", a question on a "write"."""
T = TypeVar("T")

# Work is bounded before any parsing: a scalar spelled in more characters than this is refused at
# once. Free text (a search query) is bounded by its own field, not by the kinds; a field that
# declares a bound (max_length) is bounded by it alone.
MAX_SCALAR_CHARS = 512


@dataclass(frozen=True)
class Options:
    """What a reader may be told besides the value.

    `minimum`/`maximum` bound numbers, integers and dates; `choices` lists enum members;
    `vocabulary` is a data-owned vocabulary; `bound` marks a date as the start or end of a range;
    `clamp` makes an integer clamp into its bounds (page sizes) instead of refusing;
    `max_chars` is the field's own declared bound on a string's length (its max_length);
    `extra` carries what one kind alone understands (a cursor's decoder, an id's prefix).
    """

    intent: Intent = "read"
    choices: tuple[str, ...] | None = None
    minimum: Any = None
    maximum: Any = None
    vocabulary: Any = None
    bound: Literal["from", "to"] | None = None
    clamp: bool = False
    item_kind: str | None = None
    max_chars: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    # True when minimum or maximum is set: one attribute for the fast paths to test.
    bounded: bool = field(init=False, repr=False, compare=False)
    # What a kind derives from these options, once per field rather than once per read (money's
    # currency and exponent), by `derived`. The options are frozen, so it never goes stale.
    _derived: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bounded", self.minimum is not None or self.maximum is not None)
        object.__setattr__(self, "_derived", {})

    def derived(self, key: str, derive: Callable[[Options], T]) -> T:
        """`derive(self)`, computed on the first call for `key` and kept with the options."""
        try:
            return self._derived[key]  # type: ignore[no-any-return]
        except KeyError:
            value = self._derived[key] = derive(self)
            return value

    def with_(self, **changes: Any) -> Options:
        return replace(self, **changes)


Reader = Callable[[Any, Options], Reading]
SchemaOf = Callable[[Options], dict[str, Any]]
# The fast path of a kind: the value itself when `value` is already canonical (no note to make,
# nothing to ask), else NOT_CANONICAL. The pydantic seam tries it before the reader.
Canonical = Callable[[Any, Options], Any]


class _NotCanonical:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_CANONICAL"


NOT_CANONICAL: Any = _NotCanonical()


@dataclass(frozen=True)
class KindSpec:
    """A kind: its name, its one reader, the strict JSON Schema it advertises, what it expects."""

    name: str
    reader: Reader
    schema: SchemaOf
    expected: str
    # Kinds whose own reader decides what absence means (a cursor, a filter) still get null.
    handles_placeholders: bool = False
    canonical: Canonical | None = None
    # Longer than this, a spelling is refused before the reader runs (None: free text, bounded
    # only by its field).
    max_chars: int | None = MAX_SCALAR_CHARS

    @property
    def owner(self) -> str:
        """The module that reads this kind: one of drivable.kinds, or a server's own."""
        return self.reader.__module__


KINDS: dict[str, KindSpec] = {}


def kind(
    name: str,
    *,
    schema: SchemaOf,
    expected: str,
    handles_placeholders: bool = False,
    canonical: Canonical | None = None,
    max_chars: int | None = MAX_SCALAR_CHARS,
) -> Callable[[Reader], Reader]:
    """Register a module's reader as the one owner of `name` (and its fast path, if any).

    Kinds of drivable.kinds and kinds a server owns register alike; a second owner is an error.
    """

    def decorate(reader: Reader) -> Reader:
        if name in KINDS:
            raise ValueError(f"kind {name!r} already has an owner: {KINDS[name].reader.__module__}")
        KINDS[name] = KindSpec(
            name, reader, schema, expected, handles_placeholders, canonical, max_chars
        )
        return reader

    return decorate


# Property names that imply a kind. A tool declaring `limit` or `date_from` inherits the reading
# without saying so. Exact names first, then glob patterns, in order.
NAME_BINDINGS: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    ("limit", "integer", {"clamp": True}),
    ("page_size", "integer", {"clamp": True}),
    ("per_page", "integer", {"clamp": True}),
    ("max_results", "integer", {"clamp": True}),
    ("top_k", "integer", {"clamp": True}),
    ("cursor", "cursor", {}),
    ("page_token", "cursor", {}),
    ("date_from", "date", {"bound": "from"}),
    ("date_to", "date", {"bound": "to"}),
    ("*_from", "date", {"bound": "from"}),
    ("*_to", "date", {"bound": "to"}),
    ("*_after", "date", {"bound": "from"}),
    ("*_before", "date", {"bound": "to"}),
    ("*_date", "date", {}),
    ("*_on", "date", {}),
    ("locale", "locale", {}),
    ("*_locale", "locale", {}),
    ("country", "country", {}),
    ("*_country", "country", {}),
    ("eli", "eli", {}),
    ("*_eli", "eli", {}),
    ("*_id", "uuid", {}),
    ("amount_minor_units", "money", {}),
    ("*_minor_units", "money", {}),
    ("*_cents", "money", {}),
    ("*_minor", "money", {}),
    ("idempotency_key", "idempotency_key", {}),
    ("dry_run", "boolean", {}),
    ("is_*", "boolean", {}),
    ("include_*", "boolean", {}),
    # Times, moments and addresses: bound only on a field of their own Python type (a `time`, a
    # `datetime`, a `TimeRange`; an email's `str`), so a `start_time: str` stays the author's.
    # Last, so that no name an earlier row binds (is_email, include_time) changes its kind.
    ("time", "time", {}),
    ("*_time", "time", {}),
    ("time_range", "time_range", {}),
    ("slot", "time_range", {}),
    ("*_slot", "time_range", {}),
    ("*_at", "datetime", {}),
    ("email", "email", {}),
    ("*_email", "email", {}),
)


def bound_kind(property_name: str) -> tuple[str, Mapping[str, Any]] | None:
    """The kind a property's name implies, with its options, or None."""
    for pattern, name, options in NAME_BINDINGS:
        if property_name == pattern or (
            "*" in pattern and fnmatch.fnmatchcase(property_name, pattern)
        ):
            return name, options
    return None


def resolve(kind_or_property: str) -> tuple[KindSpec, Mapping[str, Any]]:
    """A kind by its name, or the kind a property name binds. KeyError names the known kinds."""
    if kind_or_property in KINDS or _load(kind_or_property):
        return KINDS[kind_or_property], {}
    bound = bound_kind(kind_or_property)
    if bound is not None and _load(bound[0]):
        return KINDS[bound[0]], bound[1]
    _load_all()  # the message lists every kind
    raise KeyError(
        f"unknown kind {kind_or_property!r}; kinds: {', '.join(sorted(KINDS))}, "
        "or a property name that binds one (limit, date_from, *_id, ...)"
    )


def read_with(spec: KindSpec, value: Any, options: Options) -> Reading:
    """Read one value through a kind: bounded, absence first, then the kind's own reader."""
    if isinstance(value, str):
        too_long = _too_long(spec, value, options)
        if too_long is not None:
            return too_long
    if value is None:
        return Reading.absent()
    # Only strings can be placeholders, and no placeholder is spelled in digits: the canonical
    # "4000" goes straight to its reader.
    if (
        not spec.handles_placeholders
        and isinstance(value, str)
        and not value.isdigit()
        and not (options.choices and _is_a_choice(value, options))
    ):
        placeholder = absence.placeholder_of(value)
        if placeholder is not None:
            return absence.reading_for(value, options.intent, spec.expected)
    try:
        return spec.reader(value, options)
    except Exception:  # a reader never raises on input; a bug in one must not reach a client
        return Reading.invalid(
            value if isinstance(value, str | int | float | bool) else type(value).__name__,
            expected=spec.expected,
            hint=f"Send a {spec.name} as: {spec.expected}.",
            code=f"invalid_{spec.name}",
        )


def _too_long(spec: KindSpec, value: str, options: Options) -> Reading | None:
    """The refusal of a spelling longer than any its reader parses, naming the bound exceeded:
    the field's own max_length when it declares one (a longer spelling of a value within it is
    still read), else the kind's (docs/kinds.md, "A bound is the field's own")."""
    if spec.max_chars is None:
        return None  # free text: its field's bound checks the value read
    declared = options.max_chars
    if len(value) <= max(spec.max_chars, declared or 0):
        return None
    if declared is not None:
        return Reading.invalid(
            f"<{len(value)} characters>",
            expected=f"at most {declared} characters",
            hint=f"This property takes at most {declared} characters; {len(value)} were sent.",
            code="invalid_value",
        )
    return Reading.invalid(
        f"<{len(value)} characters>",
        expected=spec.expected,
        hint=f"Send the value itself: no {spec.name} is longer than {spec.max_chars} characters.",
        code="value_too_long",
    )


def _is_a_choice(value: Any, options: Options) -> bool:
    """A declared member ("none", "default") is a value, never a placeholder."""
    if not isinstance(value, str) or not options.choices:
        return False
    folded = value.strip().casefold()
    return any(folded == c.casefold() for c in options.choices)


def read(kind: str, value: Any, *, intent: Intent = "read", **options: Any) -> Reading:
    """Read `value` as `kind` (a kind name, or a property name that binds one).

    Options: `choices`, `minimum`, `maximum`, `vocabulary`, `bound`, `clamp`, and kind-specific
    ones. Never raises on input: every outcome is a Reading.
    """
    spec, bound_options = resolve(kind)
    merged = dict(bound_options)
    merged.update(options)
    return read_with(spec, value, make_options(intent=intent, **merged))


def make_options(**given: Any) -> Options:
    known = {f for f in Options.__dataclass_fields__ if f != "extra"}
    extra = dict(given.pop("extra", {}) or {})
    for key in list(given):
        if key not in known:
            extra[key] = given.pop(key)
    if given.get("choices") is not None:
        given["choices"] = tuple(given["choices"])
    return Options(extra=extra, **given)


def spec_of(name: str) -> KindSpec | None:
    """The kind named `name`, importing its module first if it is one of drivable's own."""
    if name in KINDS or _load(name):
        return KINDS[name]
    return None


def _load(name: str) -> bool:
    """Import the one module that owns kind `name`, if drivable owns it; True once it is known.

    One kind at a time, so that `drivable read limit 500` pays for the integer reader alone, not
    for the locale and country data (langcodes, babel, pycountry) behind other kinds.
    """
    if name not in KINDS and name in _KIND_MODULES:
        import importlib

        importlib.import_module(f"drivable.kinds.{name}")
    return name in KINDS


_loaded = False


def _load_all() -> None:
    """Import every kind module once, so each registers its reader."""
    global _loaded
    if _loaded:
        return
    import importlib

    _loaded = True  # set first: a kind module imported here may import another kind module
    try:
        for module in _KIND_MODULES:
            importlib.import_module(f"drivable.kinds.{module}")
    except BaseException:
        _loaded = False
        raise


# One module per kind, named as its kind; the census test checks this list against the package.
_KIND_MODULES = (
    "number",
    "integer",
    "boolean",
    "date",
    "uuid",
    "filter",
    "vocabulary",
    "string_list",
    "eli",
    "country",
    "locale",
    "enum",
    "cursor",
    "text",
    "identifier",
    "idempotency_key",
    "money",
    "time",
    "time_range",
    "datetime",
    "email",
    "timezone",
)
