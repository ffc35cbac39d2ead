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
Http = Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")]
Host = Annotated[
    str | None,
    typer.Option(
        help="HTTP bind address (loopback keeps DNS-rebinding protection).",
        show_default="127.0.0.1",
    ),
]
Port = Annotated[
    int | None, typer.Option(min=0, help="HTTP port (0: a free one).", show_default="8000")
]
Workers = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="HTTP worker processes (a wrapped server: each runs its own upstream).",
        show_default="1",
    ),
]
Insecure = Annotated[
    bool,
    typer.Option(
        "--insecure",
        help="Serve tools that change data over HTTP without a --verifier: every caller on "
        "the network may use every tool.",
    ),
]
