"""drivable.kinds: every value a model sends, read the way the model meant it, in exactly one place.

One module per kind owns its reading, its notes, its questions and its JSON Schema fragment.
`read(kind, value, intent=..., **options)` returns a `Reading`; `Kind(...)` puts a kind on a
pydantic field; `KindModel` binds kinds implied by property names; `validate()` keeps the notes.
A server registers a kind of its own with the same `kind(...)` decorator (caselaw's case_number):
one registry, one reader per kind, wherever it lives.

Reading needs neither pydantic nor every kind: `read` imports the one module of the kind it is
asked for, and the pydantic seam (`KindModel`, `Validated`, `validate`) is imported on first use.
"""

from typing import TYPE_CHECKING, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, Warning_, jsonable
from drivable.kinds._registry import (
    KINDS,
    MAX_SCALAR_CHARS,
    NAME_BINDINGS,
    Intent,
    KindSpec,
    Options,
    bound_kind,
    kind,
    read,
    resolve,
)

if TYPE_CHECKING:
    from drivable.kinds._pydantic import KindModel, Validated, validate

_PYDANTIC_SEAM = frozenset({"KindModel", "Validated", "validate"})


def __getattr__(name: str) -> Any:
    if name in _PYDANTIC_SEAM:
        from drivable.kinds import _pydantic

        return getattr(_pydantic, name)
    raise AttributeError(f"module 'drivable.kinds' has no attribute {name!r}")


__all__ = [
    "KINDS",
    "MAX_SCALAR_CHARS",
    "NAME_BINDINGS",
    "Intent",
    "Kind",
    "KindModel",
    "KindSpec",
    "Options",
    "Reading",
    "Validated",
    "Warning_",
    "bound_kind",
    "jsonable",
    "kind",
    "read",
    "resolve",
    "validate",
]
