"""`drivable serve TARGET [--http ...]`: serve a contract by its import path or its file.

Flags override the environment, which overrides `[tool.drivable]` (docs/settings.md). The store
and the secret reach every worker through the environment (DRIVABLE_STORE, DRIVABLE_WORKERS), so
a contract that brought no store of its own keeps its receipts where `--store` says, and several
workers share the token secret derived in that store.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from drivable.options import Host, Http, Insecure, Port, Verifier, Workers

if TYPE_CHECKING:
    from drivable.contract import Contract
    from drivable.settings import Settings


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def serve_command(
    target: Annotated[
        str,
        typer.Argument(
            help="MODULE:ATTR or FILE.py:ATTR naming a drivable Contract (or a function returning "
            "one), or a reference server's name: caselaw, billing."
        ),
    ],
    http: Http = False,
    host: Host = None,
    port: Port = None,
    workers: Workers = None,
    verifier: Verifier = None,
    max_body_bytes: Annotated[
        int | None, typer.Option(min=1, help="HTTP request body bound (default: inline + 64 KiB).")
    ] = None,
    worker_timeout: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Seconds a worker may go without answering the health check before a restart.",
            show_default="60",
        ),
    ] = None,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="Keep handshake-era HTTP sessions (one worker) so their cancellations reach calls.",
        ),
    ] = False,
    insecure: Insecure = False,
    store: Annotated[
        str | None,
        typer.Option(
            help="Where receipts, confirm-token nonces and the derived secret live: "
            "sqlite:///FILE or postgresql://... (every contract, every worker)."
        ),
    ] = None,
) -> None:
    """Serve the contract at MODULE:ATTR over stdio (default) or streamable HTTP at /mcp."""
    from drivable import settings

    # The current directory is importable, as it is for `python -m`.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    from drivable.serve.http import load_contract
    from drivable.servers import import_path

    chosen = settings.current().with_flags(
        host=host,
        port=port,
        workers=workers,
        verifier=verifier,
        max_body_bytes=max_body_bytes,
        worker_timeout=worker_timeout,
        store=store,
    )
    target = import_path(target)  # a reference server by name: `drivable serve caselaw`
    if not http:
        if verifier is not None or (workers or 1) != 1 or sessions or insecure:
            raise typer.BadParameter(
                "--verifier, --workers, --sessions and --insecure apply to --http only"
            )
        if chosen.store:
            settings.hand_down("store", chosen.store)
        from drivable.serve.stdio import run_stdio

        run_stdio(load_contract(target))
        return
    # What every worker process reads back through `drivable.settings`.
    if chosen.store:
        settings.hand_down("store", chosen.store)
    settings.hand_down("workers", chosen.workers)
    contract = load_contract(target)  # here, in the parent: a bad target fails once, in one line
    serve_http(contract, target, chosen, sessions=sessions, insecure=insecure)


def serve_http(
    contract: Contract,
    importable: str,
    chosen: Settings,
    *,
    sessions: bool = False,
    insecure: bool = False,
    command: str = "serve",
) -> None:
    """Serve `contract` over streamable HTTP as `chosen` says (`drivable serve` and `drivable
    wrap`): the access check and the line that says where run here, in the parent; with several
    workers, each imports `importable` (MODULE:ATTR naming the contract or a function returning
    it)."""
    from drivable.serve.http import InsecureServingError, check_access, run_http
    from drivable.serve.notices import log_config, startup_line

    try:
        check_access(contract, chosen.verifier, insecure)
    except InsecureServingError as refused:
        typer.echo(f"drivable {command}: {refused}", err=True)
        raise typer.Exit(2) from None
    bound = chosen.port or _free_port(chosen.host)
    shown = f"[{chosen.host}]" if ":" in chosen.host else chosen.host
    startup_line(
        contract.name,
        f"http://{shown}:{bound}/mcp",
        workers=chosen.workers,
        store=chosen.store_url(contract.name) if contract.durability is None else None,
    )
    run_http(
        importable if chosen.workers > 1 else contract,
        host=chosen.host,
        port=bound,
        workers=chosen.workers,
        verifier=chosen.verifier,
        max_body_bytes=chosen.max_body_bytes,
        sessions=sessions,
        insecure=insecure,
        log_config=log_config(chosen.worker_timeout),
        worker_timeout_s=chosen.worker_timeout,
    )


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)


def main() -> None:
    """`python -c "from drivable.serve.command import main; main()" MODULE:ATTR ...` (no other CLI)."""
    from drivable.cli import run

    sys.exit(run(["serve", *sys.argv[1:]]))
