"""`drivable codes`: the closed registry of error, issue and warning codes."""

from __future__ import annotations

from typing import Annotated

import typer

from drivable.contract.codes import ERROR_CODES, ISSUE_CODES, WARNING_CODES
from drivable.contract.docs import codes_markdown


def codes_command(
    code: Annotated[str | None, typer.Argument(help="Explain one code.")] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print docs/codes.md.")] = False,
) -> None:
    """List every code drivable servers emit, or explain one."""
    if markdown:
        typer.echo(codes_markdown(), nl=False)
        return
    if code is not None:
        if code in ERROR_CODES:
            c = ERROR_CODES[code]
            typer.echo(
                f"{c.id} (error; recovery: {c.recovery.value}; temporary: {c.temporary})\n{c.doc}"
            )
        elif code in ISSUE_CODES:
            typer.echo(f"{code} (issue)\n{ISSUE_CODES[code].doc}")
        elif code in WARNING_CODES:
            typer.echo(f"{code} (warning)\n{WARNING_CODES[code].doc}")
        else:
            typer.echo(
                f"drivable codes: unknown code {code!r}; `drivable codes` lists them", err=True
            )
            raise typer.Exit(2)
        return
    for c in ERROR_CODES.values():
        typer.echo(f"error    {c.id:<22} {c.recovery.value}")
    for name in ISSUE_CODES:
        typer.echo(f"issue    {name}")
    for name in WARNING_CODES:
        typer.echo(f"warning  {name}")


def register(app: typer.Typer) -> None:
    app.command("codes")(codes_command)
