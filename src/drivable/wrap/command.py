"""`drivable wrap [--config FILE] [--http ...] -- CMD ARGS...`: serve an MCP server through the
contract.

The upstream is read once (its tools become the contract's), then `drivable.serve` serves the
contract over stdio or streamable HTTP exactly as `drivable serve` serves any contract; the
contract's lifespan keeps its own connection to the upstream for the calls (one a worker:
`drivable.wrap.workers`).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from drivable.options import (
    BearerToken,
    Env,
    Host,
    Http,
    Insecure,
    PassEnv,
    Port,
    ServerCommand,
    Url,
    Verifier,
    Workers,
)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"drivable wrap: {message}", err=True)
    return typer.Exit(2)


def wrap_command(
    server_command: ServerCommand = None,
    url: Url = None,
    bearer_token: BearerToken = None,
    env: Env = None,
    pass_env: PassEnv = None,
    config: Annotated[
        Path | None,
        typer.Option(help="A TOML file with the wrap config (default: [tool.drivable.wrap])."),
    ] = None,
    http: Http = False,
    host: Host = None,
    port: Port = None,
    workers: Workers = None,
    verifier: Verifier = None,
    insecure: Insecure = False,
    store: Annotated[
        str | None,
        typer.Option(help="Where receipts and confirm-token nonces live (sqlite:///FILE, ...)."),
    ] = None,
    suggest: Annotated[
        bool,
        typer.Option(
            "--suggest",
            help="Write a starting config from the server's listing and the auditor's findings, "
            "and stop.",
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="With --suggest: the file to write (default: stdout).")
    ] = None,
) -> None:
    """Serve an MCP server's tools through drivable's contract (stdio, or HTTP with --http)."""
    import anyio

    from drivable import settings
    from drivable.target import Target
    from drivable.wrap import WrapError, contract_of, read_listing
    from drivable.wrap.config import ConfigError, load
    from drivable.wrap.schema import SchemaError
    from drivable.wrap.upstream import Gone

    if bool(server_command) == (url is not None):
        raise _fail("give the server to wrap: `-- CMD ARGS...` or --url URL, one of them")
    try:
        target = Target.from_cli(
            server_command or (),
            url=url,
            env_pairs=env or (),
            pass_env=pass_env or (),
            bearer_token=bearer_token,
        )
        chosen_config = load(config)
    except (ValueError, ConfigError) as error:
        raise _fail(str(error)) from None
    if suggest:
        _suggest(target, chosen_config.timeout_s, out)
        return
    if out is not None:
        raise _fail("--out applies to --suggest only")
    chosen = settings.current().with_flags(
        host=host, port=port, verifier=verifier, store=store, workers=workers
    )
    if not http and (verifier is not None or insecure or workers is not None):
        raise _fail("--verifier, --workers and --insecure apply to --http only")
    if chosen.store:
        settings.hand_down("store", chosen.store)
    try:
        listing = anyio.run(read_listing, target, sys.stderr)
        contract = contract_of(listing, chosen_config, target, sys.stderr)
    except Gone:
        raise _fail("the server to wrap did not start or answer (its stderr is above)") from None
    except (WrapError, SchemaError) as error:
        raise _fail(str(error)) from None
    if not http:
        from drivable.serve.stdio import run_stdio

        run_stdio(contract)
        return
    from drivable.serve.command import serve_http
    from drivable.wrap import workers as several

    kept = None
    if chosen.workers > 1:
        settings.hand_down("workers", chosen.workers)
        kept = several.hand_down(listing, target, config)
    try:
        serve_http(contract, several.FACTORY, chosen, insecure=insecure, command="wrap")
    finally:
        if kept is not None:
            shutil.rmtree(kept, ignore_errors=True)


def _suggest(target: Any, timeout_s: float, out: Path | None) -> None:
    import anyio

    from drivable.wrap.suggest import suggest

    try:
        _, text = anyio.run(suggest, target, timeout_s)
    except Exception as error:  # a server that did not start: said without its trace
        raise _fail(
            f"the server to wrap did not answer its listing ({type(error).__name__})"
        ) from None
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        raise _fail(f"cannot write {out}: {error.strerror}") from None
    typer.echo(f"drivable wrap: wrote {out}", err=True)


def register(app: typer.Typer) -> None:
    app.command("wrap", context_settings={"allow_interspersed_args": False})(wrap_command)
