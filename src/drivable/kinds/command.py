"""`drivable read KIND VALUE`: print what a kind makes of a value, as the pinned JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from drivable.kinds._registry import read


def _parse(raw: str, as_json: bool) -> Any:
    if not as_json:
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"--json: not JSON ({exc.msg})") from None


def _bound(raw: str) -> Any:
    """A bound as given: a number when it is one (4, 2.5), else the text (a day, a time)."""
    try:
        number = float(raw)
    except ValueError:
        return raw
    return int(number) if number.is_integer() else number


def _clock(raw: str) -> Any:
    """--now as the clock the date and datetime kinds take: read through the datetime kind."""
    reading = read("datetime", raw)
    if reading.outcome != "value":
        raise typer.BadParameter(f"--now: {reading.hint or 'send RFC 3339 with an offset'}")
    moment = reading.value
    return lambda: moment


def read_command(
    kind: Annotated[
        str,
        typer.Argument(
            help="A kind (number, date, ...) or a property name (limit, date_from, *_id)."
        ),
    ],
    value: Annotated[str, typer.Argument(help="The value as a model would send it.")],
    write: Annotated[
        bool, typer.Option("--write", help="Read with write intent: placeholders are asked about.")
    ] = False,
    choices: Annotated[str | None, typer.Option(help="Comma-separated enum members.")] = None,
    minimum: Annotated[
        str | None,
        typer.Option(help="Lower bound (a number, a day, a time: 4, 2026-01-01, 08:00)."),
    ] = None,
    maximum: Annotated[str | None, typer.Option(help="Upper bound, as --minimum.")] = None,
    zone: Annotated[
        str | None,
        typer.Option(help="The tool's zone for a time without one (Europe/Prague, UTC, +02:00)."),
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            help="The server's clock, RFC 3339 with an offset, for relative days (tomorrow, next Monday)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Parse VALUE as JSON (null, 4000, true, [..]).")
    ] = False,
) -> None:
    """Print what drivable makes of VALUE read as KIND."""
    options: dict[str, Any] = {}
    if choices is not None:
        options["choices"] = tuple(c.strip() for c in choices.split(",") if c.strip())
    for name, bound in (("minimum", minimum), ("maximum", maximum)):
        if bound is not None:
            options[name] = _bound(bound)
    if zone is not None:
        options["zone"] = zone
    if now is not None:
        options["clock"] = _clock(now)
    try:
        reading = read(kind, _parse(value, as_json), intent="write" if write else "read", **options)
    except KeyError as exc:
        typer.echo(f"drivable read: {exc.args[0]}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(reading.to_dict(), ensure_ascii=False))


def register(app: typer.Typer) -> None:
    app.command("read")(read_command)
