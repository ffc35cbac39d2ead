"""A contract's lifespan: the one resource its handlers use (a ledger, a database handle), opened
when the server starts and closed when it stops.

The author writes an async context manager that takes the contract and yields the resource, and
declares it on the contract; a handler gets the resource through a parameter annotated with its
type, as it gets the `Call`:

    @asynccontextmanager
    async def open_ledger(contract: Contract) -> AsyncIterator[Ledger]:
        ledger = Ledger()
        await ledger.prepare()
        yield ledger
        await ledger.close()

    contract = Contract("billing", ..., lifespan=open_ledger)

    @contract.tool(effects=READ_ONLY)
    async def get_invoice(invoice_id: str, ledger: Ledger) -> Invoice: ...

The resource's type is read from the lifespan's return annotation (`AsyncIterator[Ledger]`), so
a type checker and the runtime agree on it. `Contract.started()` enters the lifespan: `drivable
serve` holds it from start to stop (once per process: stdio, and each HTTP worker), every session
of `build_server` enters it too, and the entries share one opening: the first opens it, the last
closes it. A test opens it over its own data with the lifespan's own keyword arguments
(`contract.started(ledger=mine)`).
"""

from __future__ import annotations

import collections.abc
import contextlib
import typing
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol, runtime_checkable

import anyio

from drivable.contract.tool import ContractError

Lifespan = Callable[..., AbstractAsyncContextManager[Any]]

# The return annotations whose one argument is what the lifespan yields.
_YIELDING = (
    collections.abc.AsyncIterator,
    collections.abc.AsyncGenerator,
    collections.abc.AsyncIterable,
    contextlib.AbstractAsyncContextManager,
)


class LifespanError(RuntimeError):
    """The lifespan failed to open: the server does not start (said in one line, never a trace)."""


def resource_type(lifespan: Lifespan) -> type:
    """The type a lifespan yields, from its return annotation, or a refusal naming the fix."""
    name = getattr(lifespan, "__name__", repr(lifespan))
    try:
        hints = typing.get_type_hints(lifespan)
    except Exception as exc:
        raise ContractError(f"lifespan {name}: cannot resolve its annotations ({exc})") from exc
    returned = hints.get("return")
    origin = typing.get_origin(returned)
    arguments = typing.get_args(returned)
    if origin in _YIELDING and arguments and isinstance(arguments[0], type):
        kind: type = arguments[0]
        if kind is not object:
            return kind
    raise ContractError(
        f"lifespan {name}: annotate what it yields, `async def {name}(contract: Contract) -> "
        "AsyncIterator[Ledger]` under @asynccontextmanager: handlers get the resource by that type"
    )


def resource_parameters(fn: Any, kind: type | None) -> tuple[str, ...]:
    """The parameters of `fn` annotated with the resource's type (each gets the resource)."""
    if kind is None:
        return ()
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # left for the registration to refuse with its own words
        return ()
    return tuple(name for name, hint in hints.items() if name != "return" and hint is kind)


@runtime_checkable
class Provides(Protocol):
    """What a call's context answers when it runs in a runtime with a lifespan (`Runtime`)."""

    def provided(self) -> Any: ...


def provided_by(context: object) -> Any:
    """The open resource of the runtime a call runs in (a handler's resource parameter)."""
    if not isinstance(context, Provides):
        raise LookupError("this call runs without a runtime that opens a lifespan")
    return context.provided()


class Opening:
    """The open state of one runtime's lifespan, shared by every entry (`Contract.started`)."""

    def __init__(self) -> None:
        self.value: Any = None
        self.holders = 0
        self._context: AbstractAsyncContextManager[Any] | None = None
        self._ready: anyio.Event | None = None

    @property
    def open(self) -> bool:
        return self.holders > 0 and self._ready is None

    @asynccontextmanager
    async def hold(
        self, contract: Any, lifespan: Lifespan | None, arguments: Mapping[str, Any]
    ) -> AsyncIterator[None]:
        if lifespan is None:
            if arguments:
                raise ContractError(f"{contract.name} declares no lifespan to pass {arguments}")
            yield
            return
        if self.holders and arguments:
            raise ContractError(
                f"{contract.name}: its lifespan is open already; open it with arguments only "
                "once, before anything else enters it (or start a copy: copy.copy(contract))"
            )
        self.holders += 1
        try:
            if self.holders == 1:
                await self._open(contract, lifespan, arguments)
            elif self._ready is not None:
                await self._ready.wait()
                if self._context is None:
                    raise LifespanError(f"{contract.name}: its lifespan failed to open")
            yield
        finally:
            self.holders -= 1
            if self.holders == 0 and self._context is not None:
                context, self._context, self.value = self._context, None, None
                with anyio.CancelScope(shield=True):
                    await context.__aexit__(None, None, None)

    async def _open(self, contract: Any, lifespan: Lifespan, arguments: Mapping[str, Any]) -> None:
        self._ready = ready = anyio.Event()
        try:
            self._context, self.value = await _enter(contract, lifespan, arguments)
        finally:
            self._ready = None
            ready.set()


async def _enter(
    contract: Any, lifespan: Lifespan, arguments: Mapping[str, Any]
) -> tuple[AbstractAsyncContextManager[Any], Any]:
    """The lifespan entered, and what it yielded, checked against its annotation."""
    name = getattr(lifespan, "__name__", "lifespan")
    try:
        context = lifespan(contract, **arguments)
        value = await context.__aenter__()
    except Exception as exc:
        raise LifespanError(
            f"{contract.name}: its lifespan {name} failed to open: {type(exc).__name__}: {exc}"
        ) from exc
    kind = contract.resource_type
    if not isinstance(value, kind):
        await context.__aexit__(None, None, None)
        raise LifespanError(
            f"{contract.name}: its lifespan {name} yielded a {type(value).__name__}, not the "
            f"{kind.__name__} its annotation promises"
        )
    return context, value
