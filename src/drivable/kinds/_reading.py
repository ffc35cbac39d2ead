"""The one result shape every kind returns: a value, absence, a question, or a refusal."""

from __future__ import annotations

import datetime as _dt
import decimal
import uuid as _uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["value", "absent", "ask", "invalid"]


_UNSETTLED: Any = object()


class Deferred:
    """A value a kind read as far as it can before data the handler holds settles it (an amount
    before its invoice's currency is known). Its JSON form is what was received until the handler
    settles it, then the settled value: a confirm token binds to the value read, not to its
    spelling, so "42.00 GBP" and 4200 are one call (`drivable.contract.durable.identity`)."""

    received: Any
    settled: Any = _UNSETTLED

    def settle_as(self, value: Any) -> None:
        """Record the value the handler settled this reading to (once; the same value again is
        fine, another is a bug of the handler)."""
        if self.is_settled and self.settled != value:
            raise ValueError("a deferred value was settled twice to different values")
        object.__setattr__(self, "settled", value)

    @property
    def is_settled(self) -> bool:
        return self.settled is not _UNSETTLED


class KindValue:
    """A value type a kind owns (a time range): it says its canonical JSON form itself."""

    def to_json(self) -> Any:
        raise NotImplementedError


def jsonable(value: Any) -> Any:
    """The canonical JSON form of a read value (dates as ISO strings, uuids as strings)."""
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, _dt.time):
        return _time_text(value)
    if isinstance(value, KindValue):
        return value.to_json()
    if isinstance(value, _uuid.UUID):
        return str(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():  # Infinity, NaN, sNaN (which no comparison may touch)
            return str(value)
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, Deferred):
        return jsonable(value.settled if value.is_settled else value.received)
    return value


def _time_text(value: _dt.time) -> str:
    """ "14:30", "14:30:15", "24:00" (the end of a day, `time.max`), then the offset if any."""
    if value.replace(tzinfo=None) == _dt.time.max:
        offset = value.isoformat()[len("23:59:59.999999") :]
        return "24:00" + offset
    seconds = value.second or value.microsecond
    return value.isoformat(timespec="auto" if seconds else "minutes")


def shown(value: Any) -> str:
    """How a received value is quoted in a note: strings in single quotes, the rest as JSON."""
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= 80 else f"'{value[:77]}...'"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(jsonable(value))


def read_note(received: Any, value: Any) -> str:
    """The note for a repaired spelling: "Read '4 000' as 4000."."""
    canonical = jsonable(value)
    rendered = canonical if isinstance(canonical, str) else shown(canonical)
    return f"Read {shown(received)} as {rendered}."


@dataclass(frozen=True)
class Warning_:
    """A structured warning a reading carries for the runtime (closed code, message)."""

    code: str
    message: str


@dataclass(frozen=True)
class Reading:
    """What a kind made of one received value.

    `value` holds the Python value (a `date`, a `UUID`, an `int`); `to_dict()` gives the pinned JSON.
    `code` names the issue for an ask or a refusal (`ambiguous_date`, `invalid_number`, ...).
    `warnings` are for the runtime; their messages also appear among the notes.
    """

    outcome: Outcome
    value: Any = None
    notes: tuple[str, ...] = ()
    received: Any = None
    expected: str = ""
    hint: str = ""
    readings: tuple[Any, ...] = ()
    code: str = ""
    warnings: tuple[Warning_, ...] = field(default=())

    @classmethod
    def of(cls, value: Any, *notes: str) -> Reading:
        # The hot path of every canonical read: built without the frozen dataclass __init__ (one
        # object.__setattr__ per field, several times the cost); unset fields keep their defaults.
        reading = object.__new__(cls)
        fields = reading.__dict__
        fields["outcome"] = "value"
        fields["value"] = value
        fields["notes"] = notes
        return reading

    @classmethod
    def repaired(cls, received: Any, value: Any, *more: str) -> Reading:
        """A value read from a spelling that differs from its canonical form, with its note."""
        if isinstance(received, str) and received == jsonable(value):
            return cls.of(value, *more)
        if received == value and type(received) is type(value):
            return cls.of(value, *more)
        return cls.of(value, read_note(received, value), *more)

    @classmethod
    def absent(cls, *notes: str, warnings: tuple[Warning_, ...] = ()) -> Reading:
        return cls("absent", notes=tuple(notes), warnings=warnings)

    @classmethod
    def ask(
        cls,
        received: Any,
        *,
        expected: str,
        hint: str,
        readings: tuple[Any, ...] | list[Any],
        code: str,
    ) -> Reading:
        return cls._question("ask", received, expected, hint, tuple(readings), code)

    @classmethod
    def invalid(cls, received: Any, *, expected: str, hint: str, code: str) -> Reading:
        return cls._question("invalid", received, expected, hint, (), code)

    @classmethod
    def _question(
        cls,
        outcome: Outcome,
        received: Any,
        expected: str,
        hint: str,
        readings: tuple[Any, ...],
        code: str,
    ) -> Reading:
        # As `of`: the frozen dataclass __init__ was a fifth of the cost of a whole ask.
        reading = object.__new__(cls)
        reading.__dict__.update(
            outcome=outcome,
            received=received,
            expected=expected,
            hint=hint,
            readings=readings,
            code=code,
        )
        return reading

    @property
    def ok(self) -> bool:
        """True when the reading can be used as it is (a value or absence)."""
        return self.outcome in ("value", "absent")

    def with_notes(self, *notes: str) -> Reading:
        return Reading(
            self.outcome,
            self.value,
            self.notes + tuple(notes),
            self.received,
            self.expected,
            self.hint,
            self.readings,
            self.code,
            self.warnings,
        )

    def to_dict(self) -> dict[str, Any]:
        """The pinned JSON shape (see DESIGN.md, "Readings")."""
        if self.outcome == "value":
            return {"outcome": "value", "value": jsonable(self.value), "notes": list(self.notes)}
        if self.outcome == "absent":
            return {"outcome": "absent", "notes": list(self.notes)}
        out: dict[str, Any] = {
            "outcome": self.outcome,
            "received": jsonable(self.received),
            "expected": self.expected,
            "hint": self.hint,
        }
        if self.outcome == "ask":
            out["readings"] = [jsonable(r) for r in self.readings]
        return out
