"""Declaring a tool the short way, as light as FastMCP's, keeping every import-time refusal.

- the name is the function's, the description its docstring, the title the name in words;
- the handler takes its input as parameters or as one model, and the `Call` and the `Page` where
  it wants them (`drivable.contract.signature`); a plain function runs in a worker thread;
- effect presets (`CREATE`, `DELETE`) need control fields (`idempotency_key`; `dry_run` and
  `confirm_token`): an input declares them in the open, as parameters (`IdempotencyKey`,
  `DryRun`, `ConfirmToken`) or through the bases `Keyed` and `Confirmed`; an input that lacks
  them still gets them added, as before the bases existed;
- `examples` are data: each validates, canonically, against the input model at import, and they
  are published in the inputSchema (`examples`) and the first in the description.

Every refusal names the fix.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError, create_model

from drivable.contract.durable import ConfirmToken, DryRun, IdempotencyKey
from drivable.contract.signature import adapt_call, read_signature
from drivable.contract.tool import ContractError, Effects, Handler
from drivable.kinds import KindModel, validate
from drivable.kinds.absence import is_template


@dataclass(frozen=True)
class Preset(Effects):
    """Effects that bring their control fields with them (added when the model lacks them)."""

    adds: tuple[str, ...] = ()


CREATE = Preset(
    read_only=False,
    destructive=False,
    idempotent=False,
    open_world=False,
    adds=("idempotency_key",),
)
"""A mutation that would duplicate on a retry: the input gains a required `idempotency_key`."""
UPDATE = Preset(read_only=False, destructive=False, idempotent=True, open_world=False)
"""A mutation that sets state (the same call twice leaves the same state): no control fields."""
DELETE = Preset(
    read_only=False,
    destructive=True,
    idempotent=True,
    open_world=False,
    adds=("dry_run", "confirm_token"),
)
"""A destructive action in two steps: the input gains `dry_run` (default false) and `confirm_token`."""


class Keyed(KindModel):
    """The input of a mutation a retry would duplicate (`CREATE`): a required idempotency key."""

    idempotency_key: IdempotencyKey


class Confirmed(KindModel):
    """The input of a destructive action (`DELETE`): a call without its confirm_token is answered
    with its dry run and the same call with a token; sent with that token, it runs."""

    dry_run: DryRun = False
    confirm_token: ConfirmToken = None


CONTROL_FIELDS: dict[str, tuple[Any, Any]] = {
    "idempotency_key": (IdempotencyKey, ...),
    "dry_run": (DryRun, False),
    "confirm_token": (ConfirmToken, None),
}


def title_of(name: str) -> str:
    """`search_bookmarks` -> "Search bookmarks"."""
    return name.replace("_", " ").strip().capitalize()


def with_controls(model: type[KindModel], effects: Effects) -> type[KindModel]:
    """`model` with the control fields of a preset it does not declare itself."""
    adds = getattr(effects, "adds", ())
    missing = {f: CONTROL_FIELDS[f] for f in adds if f not in model.model_fields}
    if not missing:
        return model
    extended: type[KindModel] = create_model(  # type: ignore[call-overload]
        model.__name__, __base__=model, __module__=model.__module__, **missing
    )
    extended.__doc__ = model.__doc__
    return extended


def adapt(
    name: str,
    fn: Any,
    effects: Effects,
    localns: Mapping[str, Any],
    resource: type | None = None,
) -> tuple[Handler, type[KindModel] | None]:
    """The handler as the pipeline calls it (`await handler(args, call)`), with annotations the
    registration reads, and the input model it will receive (None: left for build_spec to refuse).
    A parameter annotated with `resource` (the lifespan's type) gets the open resource."""
    signature = read_signature(name, fn, localns, resource)
    model = signature.input
    if isinstance(model, type) and issubclass(model, KindModel):
        model = with_controls(model, effects)
    handler = adapt_call(name, fn, signature, model)
    return handler, (model if isinstance(model, type) and issubclass(model, KindModel) else None)


def check_examples(
    name: str,
    model: type[BaseModel],
    examples: Sequence[Mapping[str, Any]],
    intent: typing.Literal["read", "write"],
) -> list[dict[str, Any]]:
    """Each example validates against the input model as a call would, and is canonical."""
    out: list[dict[str, Any]] = []
    for index, example in enumerate(examples):
        if not isinstance(example, Mapping):
            raise ContractError(f"tool {name!r}: example {index} is not an object of arguments")
        unknown = sorted(set(example) - set(model.model_fields))
        if unknown:
            raise ContractError(
                f"tool {name!r}: example {index} sends {', '.join(unknown)}, which the input does "
                "not declare; fix the example so that a model copying it makes a valid call"
            )
        # A placeholder is filled by the model (check_copyable): the concrete rest must validate.
        concrete = {key: value for key, value in example.items() if not _placeholders_only(value)}
        filled_later = set(example) - set(concrete)
        validated: Any
        try:
            validated = validate(model, concrete, intent=intent)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in error.errors()
                if not (e["type"] == "missing" and e["loc"][:1] and e["loc"][0] in filled_later)
            )
            if problems:
                raise ContractError(
                    f"tool {name!r}: example {index} does not validate ({problems}); fix the "
                    "example so that a model copying it makes a valid call"
                ) from None
            validated = None
        if validated is not None and validated.notes:
            raise ContractError(
                f"tool {name!r}: example {index} is read leniently ({' '.join(validated.notes)}); "
                "write it in the canonical form a model should copy"
            )
        out.append(dict(example))
    return out


def example_sentence(description: str, examples: Sequence[Mapping[str, Any]]) -> str:
    """`Example: {...}.` of the first example call, or "" when there is none or the description
    shows one of its own (the `example-sentence` addition)."""
    if not examples or "example" in description.lower():
        return ""
    return f"Example: {json.dumps(dict(examples[0]), ensure_ascii=False)}."


# Properties whose example value is the same for every first call of the tool: the effect control
# a model should copy (a destructive tool's first call is its dry run).
_SAME_FOR_EVERY_CALL = frozenset({"dry_run"})
_EXAMPLE_IN_TEXT = re.compile(r"\bExample:\s*(\{.*?\})(?=\.(?:\s|$))", re.DOTALL)


def examples_in(text: str) -> list[dict[str, Any]]:
    """The example calls a description writes out (`Example: {...}.`), as data."""
    found: list[dict[str, Any]] = []
    for match in _EXAMPLE_IN_TEXT.finditer(text):
        try:
            value = json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def check_copyable(name: str, example: Mapping[str, Any]) -> None:
    """A model copies an example call as it is (decision 0030): every value the user supplies is
    written as a placeholder, so a copied example adds no constraint and writes no value the user
    never gave. Only what every first call sends (`dry_run`) may be concrete."""
    for path, value in _leaves(example):
        if path.split(".", 1)[0] in _SAME_FOR_EVERY_CALL:
            continue
        if not is_template(value):
            raise ContractError(
                f"tool {name!r}: the example sends {path}={json.dumps(value, ensure_ascii=False)}, "
                "a value a model copies as if the user had given it; write a placeholder that "
                f'names what goes there instead (for example "<{path.rsplit(".", 1)[-1]}>", '
                '"<YYYY-MM-DD>", "<id of a search result>")'
            )


def has_placeholder(value: Any) -> bool:
    return any(is_template(leaf) for _, leaf in _leaves(value))


def _placeholders_only(value: Any) -> bool:
    return all(is_template(leaf) for _, leaf in _leaves(value))


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [
            leaf
            for key, item in value.items()
            for leaf in _leaves(item, f"{path}.{key}" if path else str(key))
        ]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item, path)]
    return [(path, value)]
