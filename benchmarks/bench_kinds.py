"""The cost of reading a value through its kind, as ratios measured in the same run.

Two tables, each a list of rows; a new kind adds rows, not code:

- CANONICAL: a canonical spelling read the way the pydantic seam reads it (the kind's fast path,
  then its reader) against the strict standard-library parse of the same text (`int`,
  `date.fromisoformat`, `uuid.UUID`). Target: at most 3x. The full `read()` path, which builds a
  `Reading` with its notes, is shown beside it.
- REPAIRED: a spelling the kind repairs ("4 000"), median microseconds per read. Target: <= 20 us.

Each read goes through `read_with(spec, value, options)` with options built once, as the pydantic
seam calls it. Each row reads a thousand different values, so no cache of one value can flatter
it; every timing is the median of several repeats, in CPU time of the benchmark's thread (wall
time on a shared machine counts the waits for a core), and a ratio is the median of the ratios of
passes timed in turns.
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.utils import parseaddr
from typing import Any

from babel.dates import get_month_names

from drivable.kinds._registry import KINDS, NOT_CANONICAL, _load_all, make_options, read_with

REPEATS = 21
# CPU time of this thread, not wall time: on a machine whose cores other work shares, wall time
# counts the waits for a core too, and the microsecond targets are about the work of a read.
CLOCK = time.thread_time
VALUES = 1000


@dataclass(frozen=True)
class Canonical:
    """A canonical value read through `kind`, against `baseline` parsing the same values."""

    label: str
    kind: str
    values: Sequence[Any]
    baseline: Callable[[Any], Any]
    baseline_label: str
    options: dict[str, Any] = field(default_factory=dict)
    max_ratio: float = 3.0


@dataclass(frozen=True)
class Repaired:
    """A repaired spelling read through `kind`: median microseconds per read."""

    label: str
    kind: str
    values: Sequence[Any]
    options: dict[str, Any] = field(default_factory=dict)
    max_us: float = 20.0


def _ints(lo: int, hi: int) -> list[str]:
    step = max(1, (hi - lo) // VALUES)
    return [str(n) for n in range(lo, hi, step)][:VALUES]


CANONICAL: list[Canonical] = [
    Canonical("plain int through integer", "integer", _ints(1, 10**6), int, "int(text)"),
    Canonical(
        "JSON int through integer",
        "integer",
        [int(s) for s in _ints(1, 10**6)],
        int,
        "int(number)",
    ),
    Canonical("plain int through number", "number", _ints(1, 10**6), int, "int(text)"),
]

REPAIRED: list[Repaired] = [
    Repaired("number '4 000'", "number", [f"{n} {m:03d}" for n, m in zip(range(1, 1001), range(1000), strict=True)]),
    Repaired("number '1.234,5'", "number", [f"{n}.{m:03d},5" for n, m in zip(range(1, 1001), range(1000), strict=True)]),
    Repaired("number '1,234' (asks)", "number", [f"{n},{m:03d}" for n, m in zip(range(1, 1001), range(1000), strict=True)]),
    Repaired(
        "limit '500' (clamps)", "integer", [str(n) for n in range(101, 1101)],
        {"minimum": 1, "maximum": 100, "clamp": True},
    ),
    Repaired("enum 'Přehled'", "enum", ["Přehled", "DETAIL", "public law"] * 334, {"choices": ("prehled", "detail", "public_law")}),
    Repaired("filter 'all'", "filter", ["all", " * ", "vše"] * 334),
    Repaired("string_list 'a, b'", "string_list", ["civil, criminal", "civil"] * 500, {"choices": ("civil", "criminal")}),
]  # fmt: skip

# date and uuid (kinds/date.py, kinds/uuid.py): a thousand different days and ids.
_DAYS = [dt.date(2000, 1, 1) + dt.timedelta(days=7 * i) for i in range(VALUES)]
_IDS = [
    uuid.UUID(int=(i * 0x9E3779B97F4A7C15F39CC0605CEDC834 + 0x1234567) % (1 << 128))
    for i in range(1, VALUES + 1)
]
_CS_MONTHS = get_month_names("wide", "format", "cs")
CANONICAL += [
    Canonical(
        "ISO date through date",
        "date",
        [d.isoformat() for d in _DAYS],
        dt.date.fromisoformat,
        "date.fromisoformat",
    ),
    Canonical(
        "canonical uuid through uuid", "uuid", [str(u) for u in _IDS], uuid.UUID, "uuid.UUID(text)"
    ),
]
REPAIRED += [
    Repaired("date '1. 10. 2026'", "date", [f"{d.day}. {d.month}. {d.year}" for d in _DAYS]),
    Repaired("date '1. října 2026'", "date", [f"{d.day}. {_CS_MONTHS[d.month]} {d.year}" for d in _DAYS]),
    Repaired("date_from '2020'", "date", [str(1000 + i) for i in range(VALUES)], {"bound": "from"}),
    Repaired("uuid '{UPPER-CASE}'", "uuid", [f"{{{str(u).upper()}}}" for u in _IDS]),
]  # fmt: skip


# money (kinds/money.py): amounts spelled in major units, a currency code or symbol around them.
_WHOLES = range(1, VALUES + 1)
REPAIRED += [
    Repaired("money '42.00 GBP'", "money", [f"{n}.{n % 100:02d} GBP" for n in _WHOLES], {"currency": "GBP"}),
    Repaired("money '$42'", "money", [f"${n}" for n in _WHOLES], {"currency": "USD"}),
    Repaired("money '€1.234,50'", "money", [f"€{n}.{n % 1000:03d},50" for n in _WHOLES], {"currency": "EUR"}),
    Repaired("money '42 Kč'", "money", [f"{n} Kč" for n in _WHOLES], {"currency": "CZK"}),
    Repaired("money '42.50' (one meaning)", "money", [f"{n}.{n % 99 + 1:02d}" for n in _WHOLES], {"currency": "EUR"}),
    Repaired("money '42.00' (asks)", "money", [f"{n}.00" for n in _WHOLES], {"currency": "EUR"}),
]  # fmt: skip


# time, time_range, datetime, email (kinds/time.py, time_range.py, datetime.py, email.py).
_TIMES = [dt.time(i % 24, (7 * i) % 60) for i in range(VALUES)]
_MOMENTS = [
    dt.datetime(2026, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=i % 5 - 2)))
    + dt.timedelta(minutes=97 * i)
    for i in range(VALUES)
]
_SPANS = [(t, dt.time(t.hour + 1, t.minute)) for t in _TIMES if t.hour < 23][: VALUES - 100]


def _two_times(text: str) -> Any:
    start, _, end = text.partition("/")
    return dt.time.fromisoformat(start), dt.time.fromisoformat(end)


CANONICAL += [
    Canonical(
        "HH:MM through time",
        "time",
        [t.strftime("%H:%M") for t in _TIMES],
        dt.time.fromisoformat,
        "time.fromisoformat",
    ),
    Canonical(
        "HH:MM/HH:MM through time_range",
        "time_range",
        [f"{a:%H:%M}/{b:%H:%M}" for a, b in _SPANS],
        _two_times,
        "2x time.fromisoformat",
    ),
    Canonical(
        "RFC 3339 through datetime",
        "datetime",
        [m.isoformat() for m in _MOMENTS],
        dt.datetime.fromisoformat,
        "datetime.fromisoformat",
    ),
    Canonical(
        "address through email",
        "email",
        [f"user{i}.x@mail{i % 7}.example.cz" for i in range(VALUES)],
        parseaddr,
        "email.utils.parseaddr",
    ),
]
REPAIRED += [
    Repaired("time '2pm'", "time", [f"{t.hour % 12 or 12}:{t.minute:02d} {'am' if t.hour < 12 else 'pm'}" for t in _TIMES]),
    Repaired("time '9.00'", "time", [f"{t.hour}.{t.minute:02d}" for t in _TIMES]),
    Repaired("time '9:00 CET' (asks)", "time", [f"{t.hour}:{t.minute:02d} CET" for t in _TIMES]),
    Repaired("time_range '9-11'", "time_range", [f"{a.hour}-{b.hour}" for a, b in _SPANS]),
    Repaired("time_range 'from 9 to 5' (asks)", "time_range", [f"from {i % 11 + 1} to {(i // 11) % (i % 11 + 1) + 1}" for i in range(VALUES)]),
    Repaired("datetime '1. 10. 2026 14:00 UTC'", "datetime", [f"{m.day}. {m.month}. {m.year} {m.hour}:{m.minute:02d} UTC" for m in _MOMENTS]),
    Repaired("datetime '... Europe/Prague'", "datetime", [f"{m:%Y-%m-%d %H:%M} Europe/Prague" for m in _MOMENTS]),
    Repaired("email 'Jana <jana@FIRMA.cz>'", "email", [f"Jana {i} <jana{i}@FIRMA{i % 7}.cz>" for i in range(VALUES)]),
]  # fmt: skip


def _per_call(fn: Callable[[Any], Any], values: Sequence[Any], repeats: int = REPEATS) -> float:
    """Median seconds per call over `repeats` passes of `values`."""
    samples = []
    for _ in range(repeats):
        start = CLOCK()
        for v in values:
            fn(v)
        samples.append((CLOCK() - start) / len(values))
    return statistics.median(samples)


def _paired(
    fn: Callable[[Any], Any], base: Callable[[Any], Any], values: Sequence[Any]
) -> tuple[float, float, float]:
    """Median seconds per call of `fn` and of `base`, and the median of their ratios, the two
    timed in turns over REPEATS pairs: on a shared machine the load moves between passes, and a
    ratio of neighbouring passes is what it disturbs least."""
    kinds, bases, ratios = [], [], []
    for _ in range(REPEATS):
        b = _per_call(base, values, repeats=1)
        k = _per_call(fn, values, repeats=1)
        kinds.append(k)
        bases.append(b)
        ratios.append(k / b)
    return statistics.median(kinds), statistics.median(bases), statistics.median(ratios)


def _one_call(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The baseline behind one call level, as the kind's reader is, so the ratio compares parses."""
    return lambda value: fn(value)


def _seam(kind: str, options: dict[str, Any]) -> Callable[[Any], Any]:
    """What a server pays per canonical value: the pydantic seam tries the kind's fast path
    first and reads through the kind only when the value is not canonical."""
    _load_all()
    spec = KINDS[kind]
    built = make_options(**options)
    fast = spec.canonical
    if fast is None:
        return lambda value: read_with(spec, value, built)

    def seam(value: Any) -> Any:
        got = fast(value, built)
        return read_with(spec, value, built) if got is NOT_CANONICAL else got

    return seam


def _reader(kind: str, options: dict[str, Any]) -> Callable[[Any], Any]:
    _load_all()
    spec = KINDS[kind]
    built = make_options(**options)
    return lambda value: read_with(spec, value, built)


def run() -> tuple[list[list[str]], bool]:
    _load_all()
    rows: list[list[str]] = []
    ok = True
    for case in CANONICAL:
        seam = _seam(case.kind, case.options)
        reader = _reader(case.kind, case.options)
        baseline = _one_call(case.baseline)
        _per_call(seam, case.values)  # warm up
        _per_call(baseline, case.values)
        kind_s, base_s, ratio = _paired(seam, baseline, case.values)
        full_s = _per_call(reader, case.values)
        passed = ratio <= case.max_ratio
        ok &= passed
        rows.append(
            [
                case.label,
                f"{kind_s * 1e6:.3f} us (Reading: {full_s * 1e6:.2f} us, {full_s / base_s:.1f}x)",
                f"{case.baseline_label} {base_s * 1e6:.3f} us",
                f"{ratio:.1f}x (<= {case.max_ratio:g}x)",
                "ok" if passed else "MISSED",
            ]
        )
    for rep in REPAIRED:
        reader = _reader(rep.kind, rep.options)
        _per_call(reader, rep.values)
        kind_s = _per_call(reader, rep.values)
        passed = kind_s * 1e6 <= rep.max_us
        ok &= passed
        rows.append(
            [
                rep.label,
                f"{kind_s * 1e6:.3f} us",
                "",
                f"(<= {rep.max_us:g} us)",
                "ok" if passed else "MISSED",
            ]
        )
    return rows, ok


def _table(rows: list[list[str]]) -> str:
    header = ["case", "through the kind", "strict stdlib", "ratio / target", ""]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    rows, ok = run()
    print(_table(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
