"""`drivable serve MODULE:ATTR [--http --port N --workers N]`: serve a contract by its import path."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer


def serve_command(
    target: Annotated[
        str,
        typer.Argument(
            help="MODULE:ATTR naming a drivable Contract (or a function returning one), or a "
            "reference server's name: caselaw, billing."
        ),
    ],
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[
        str, typer.Option(help="HTTP bind address (loopback keeps DNS-rebinding protection).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="HTTP worker processes.")] = 1,
    verifier: Annotated[
        str | None,
        typer.Option(help="MODULE:ATTR of a TokenVerifier: require a bearer token over HTTP."),
    ] = None,
    max_body_bytes: Annotated[
        int | None, typer.Option(min=1, help="HTTP request body bound (default: inline + 64 KiB).")
    ] = None,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="Keep handshake-era HTTP sessions (one worker) so their cancellations reach calls.",
        ),
    ] = False,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            help="Serve tools that change data over HTTP without a --verifier: every caller on "
            "the network may use every tool.",
        ),
    ] = False,
    store: Annotated[
        str | None,
        typer.Option(
            help="Where a server that keeps state keeps it: sqlite:///FILE or "
            "postgresql://... (exported as DRIVABLE_STORE to every worker)."
        ),
    ] = None,
) -> None:
    """Serve the contract at MODULE:ATTR over stdio (default) or streamable HTTP at /mcp."""
    # The current directory is importable, as it is for `python -m`.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    from drivable.serve.http import load_contract
    from drivable.servers import import_path

    target = import_path(target)  # a reference server by name: `drivable serve caselaw`
    if store is not None:
        os.environ["DRIVABLE_STORE"] = store  # read by the server's factory, in each worker
    if not http:
        if verifier is not None or workers != 1 or sessions or insecure:
            typer.echo(
                "--verifier, --workers, --sessions and --insecure apply to --http only", err=True
            )
            raise typer.Exit(2)
        from drivable.serve.stdio import run_stdio

        run_stdio(load_contract(target))
        return
    from drivable.serve.http import InsecureServingError, run_http

    try:
        run_http(
            target,
            host=host,
            port=port,
            workers=workers,
            verifier=verifier,
            max_body_bytes=max_body_bytes,
            sessions=sessions,
            insecure=insecure,
        )
    except InsecureServingError as refused:
        typer.echo(f"drivable serve: {refused}", err=True)
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)


def main() -> None:
    """`python -c "from drivable.serve.command import main; main()" MODULE:ATTR ...` (no other CLI)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(serve_command)
    app()
