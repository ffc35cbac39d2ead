"""The options that name the server a command reaches (`drivable audit`, `eval`, `snapshot`,
`diff`, `wrap`) and those of a command that serves (`serve`, `wrap`): one spelling and one help
text each, whichever command takes them."""

from __future__ import annotations

from typing import Annotated

import typer

ServerCommand = Annotated[
    list[str] | None,
    typer.Argument(metavar="[-- CMD ARGS...]", help="A stdio server command, after `--`."),
]
Url = Annotated[str | None, typer.Option(help="A streamable HTTP endpoint.")]
BearerToken = Annotated[
    str | None,
    typer.Option(
        envvar="DRIVABLE_BEARER_TOKEN", help="Bearer token for --url.", show_default=False
    ),
]
Env = Annotated[
    list[str] | None, typer.Option("--env", help="KEY=VALUE for the stdio server (repeatable).")
]
PassEnv = Annotated[
    list[str] | None,
    typer.Option(
        "--pass-env", help="Pass this variable of yours to the stdio server (repeatable)."
    ),
]
Verifier = Annotated[
    str | None,
    typer.Option(help="MODULE:ATTR of a TokenVerifier: require a bearer token over HTTP."),
]
