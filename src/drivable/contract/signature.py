"""A handler's signature read into its tool's input model, and the call that runs it.

A handler declares its input in one of two ways:

- **parameters**: `async def search_rooms(day: date, start: time | None = None, *, call: Call)`.
  Every parameter but the special ones is a property of the input: its annotation the type (with
  `Annotated[..., Field(description=...)]` for its words and bounds), its default the default, no
  default a required property. The runtime builds the input model from them (a `KindModel`, so
  kinds bind by type and by name exactly as in a declared model) and calls the handler with each
  value by name.
- **a model**: `async def search_rooms(args: SearchRooms, call: Call)`, the first parameter
  annotated with a `KindModel` subclass, which is the input model; the handler gets it whole, and
  takes no other property (a nested object is a parameter after a plain one, or a model field).

The special parameters are found by their annotation, wherever they stand: `Call` (the call's
context; in the model form also a second parameter annotated with nothing, or `Any`, as before),
`Page` (the page a `Paged` handler reads, `drivable.contract.paged`) and the type the contract's
lifespan yields (its resource, `drivable.contract.lifespan`). A handler returning
`Paged[Row]` takes `cursor` and `limit` in its input, added unless declared. A plain (not async)
handler runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, create_model

from drivable.contract.call import Call
from drivable.contract.lifespan import provided_by
from drivable.contract.paged import Page, close_page, is_paged, open_page, with_paging
from drivable.contract.tool import ContractError, Handler
from drivable.kinds import KindModel


@dataclass(frozen=True)
class Signature:
    """What a handler's parameters and return annotation declare."""

    input: Any  # the input model (built from the parameters, or the declared one)
    output: Any  # the return annotation
    whole: bool  # the handler takes the input model whole, as its first argument
    fields: tuple[str, ...]  # else, the input's properties it takes by name
    positional: tuple[str, ...]  # of the parameters it takes, those that cannot be named
    call: str | None  # the parameter the `Call` goes to
    page: str | None  # the parameter the `Page` goes to
    resources: tuple[str, ...] = ()  # the parameters the lifespan's resource goes to

    @property
    def paged(self) -> bool:
        return is_paged(self.output)


def read_signature(
    name: str, fn: Any, localns: Mapping[str, Any], resource: type | None = None
) -> Signature:
    """The input model, output annotation and special parameters of a handler, or a refusal
    that names the fix. A parameter annotated with `resource` (the type the contract's lifespan
    yields, `drivable.contract.lifespan`) is special too: it gets the open resource."""
    if not callable(fn):
        raise ContractError(
            f"tool {name!r}: decorate a function (`async def {name}(query: str) -> Out`)"
        )
    try:
        hints = typing.get_type_hints(fn, localns=dict(localns), include_extras=True)
    except Exception as exc:
        raise ContractError(
            f"tool {name!r}: cannot resolve the handler's annotations ({exc}); declare the models "
            "at module level, or before the function"
        ) from exc
    parameters = list(inspect.signature(fn).parameters.values())
    for p in parameters:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ContractError(
                f"tool {name!r}: *{p.name} takes no property of the input; name each one "
                f"(`async def {name}(query: str, limit: int = 20) -> Out`)"
            )
    call = _special(name, parameters, hints, Call)
    page = _special(name, parameters, hints, Page)
    provided = tuple(p.name for p in parameters if resource and hints.get(p.name) is resource)
    data = [p for p in parameters if p.name not in (call, page, *provided)]
    output = hints.get("return")
    # the model form's second parameter is the Call when nothing else annotates it, as it always was
    untyped = len(data) == 2 and hints.get(data[1].name, Any) in (Any, object)
    if call is None and untyped and _is_model(hints.get(data[0].name)):
        call, data = data[1].name, data[:1]
    if data and _is_model(hints.get(data[0].name)):
        if len(data) > 1:
            raise ContractError(
                f"tool {name!r}: the handler takes its input model alone (with the Call and the "
                f"Page), or its properties as parameters, not both: move "
                f"{', '.join(p.name for p in data[1:])} into {hints[data[0].name].__name__}, or "
                "declare every property as a parameter"
            )
        model: Any = hints[data[0].name]
        whole, fields = True, tuple(p.name for p in data)
    else:
        model = _model_of(name, fn, data, hints)
        whole, fields = False, tuple(p.name for p in data)
    if page is not None and not is_paged(output):
        raise ContractError(
            f"tool {name!r}: `{page}: Page` reads one page; the handler returns it as "
            "`Paged[Row]` (drivable.Paged), for the runtime to sign its next cursor"
        )
    if is_paged(output) and isinstance(model, type) and issubclass(model, BaseModel):
        model = with_paging(model)
    positional = tuple(p.name for p in parameters if p.kind is p.POSITIONAL_ONLY)
    return Signature(model, output, whole, fields, positional, call, page, provided)


def _special(
    name: str, parameters: list[inspect.Parameter], hints: Mapping[str, Any], kind: type
) -> str | None:
    found = [p.name for p in parameters if _is(hints.get(p.name), kind)]
    if len(found) > 1:
        raise ContractError(
            f"tool {name!r}: the handler takes one {kind.__name__}, not {len(found)} "
            f"({', '.join(found)})"
        )
    return found[0] if found else None


def _is(annotation: Any, kind: type) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, kind)


def _is_model(annotation: Any) -> bool:
    return _is(annotation, BaseModel)


def _model_of(
    name: str, fn: Any, parameters: list[inspect.Parameter], hints: Mapping[str, Any]
) -> type[KindModel]:
    """The input model whose properties are the handler's parameters, in their order."""
    fields: dict[str, Any] = {}
    for p in parameters:
        if p.name not in hints:
            raise ContractError(
                f"tool {name!r}: parameter {p.name!r} has no annotation; annotate it with its "
                f"type (`{p.name}: str`), or with `Call` for the call's context"
            )
        if p.name.startswith("_"):
            raise ContractError(
                f"tool {name!r}: parameter {p.name!r} starts with '_', which no property of an "
                "input may; rename it"
            )
        fields[p.name] = (hints[p.name], ... if p.default is p.empty else p.default)
    title = "".join(word.capitalize() for word in name.split("_")) + "Input"
    try:
        model: type[KindModel] = create_model(
            title, __base__=KindModel, __module__=getattr(fn, "__module__", __name__), **fields
        )
    except (TypeError, ValueError) as exc:
        raise ContractError(f"tool {name!r}: its parameters do not make an input ({exc})") from exc
    return model


def adapt_call(name: str, fn: Any, sig: Signature, model: Any) -> Handler:
    """The handler as the pipeline calls it (`await handler(args, call)`), annotated with the
    input model and the output the registration reads. An async handler taking its model and the
    Call, with nothing to page, is its own adapter."""
    if inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn):
        raise ContractError(
            f"tool {name!r}: a handler returns its result once (a model); report progress with "
            "`await call.report_progress(...)` instead of yielding"
        )
    is_async = inspect.iscoroutinefunction(fn)
    if is_async and not sig.paged and model is sig.input and _takes_args_call(fn, sig):
        return typing.cast(Handler, fn)

    def arguments(args: Any, call: Any, page: Page | None) -> tuple[list[Any], dict[str, Any]]:
        given: dict[str, Any] = (
            {sig.fields[0]: args}
            if sig.whole
            else {field: getattr(args, field) for field in sig.fields}
        )
        if sig.call is not None:
            given[sig.call] = call
        if sig.page is not None:
            given[sig.page] = page
        for resource in sig.resources:
            given[resource] = provided_by(call.contract)
        positional = [given.pop(p) for p in sig.positional]
        return positional, given

    async def handler(args: Any, call: Any) -> Any:
        page = open_page(call, args) if sig.paged else None
        positional, named = arguments(args, call, page)
        if is_async:
            result = await fn(*positional, **named)
        else:
            # A plain function runs in a worker thread so it cannot stall every other call.
            bound = functools.partial(fn, *positional, **named)
            result = await anyio.to_thread.run_sync(bound)
            if inspect.isawaitable(result):
                raise TypeError(f"{name} returned an awaitable from a plain function")
        if page is not None:
            result = close_page(call, args, page, result, sliced=sig.page is not None)
        return result

    handler.__name__ = getattr(fn, "__name__", name)
    handler.__doc__ = getattr(fn, "__doc__", None)
    handler.__annotations__ = {"args": model, "call": Any, "return": sig.output}
    return handler


def _takes_args_call(fn: Any, sig: Signature) -> bool:
    """The handler is `(args: Model, call: Call)`, as the pipeline calls it."""
    first, second, *rest = [*inspect.signature(fn).parameters.values(), None, None]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return (
        sig.whole
        and first is not None
        and second is not None
        and not any(rest)
        and first.kind in positional
        and second.kind in positional
        and second.name == sig.call
    )
